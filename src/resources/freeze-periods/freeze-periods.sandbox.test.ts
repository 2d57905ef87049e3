import { describe, expect, it } from 'vitest';
import { type TestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

const call = (...args: Parameters<TestSandbox['call']>) => sandbox.call(...args);

describe('sandbox: freeze periods (spec 1, api-facts §1.6)', () => {
  it('creates with 201 and UTC by default, validates cron and time zone with a field map', async () => {
    const r = await call('POST', '/projects/acme%2Fweb/freeze_periods', { freeze_start: '0 23 * * 5', freeze_end: '0 7 * * 1' });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body)).toEqual(['id', 'freeze_start', 'freeze_end', 'cron_timezone', 'created_at', 'updated_at']);
    expect(r.body.cron_timezone).toBe('UTC');
    expect(await call('POST', '/projects/2/freeze_periods', { freeze_start: 'nope', freeze_end: '0 7 * * 1', cron_timezone: 'Mars/Olympus' }))
      .toMatchObject({ status: 400, body: { message: { freeze_start: [' is invalid syntax'], cron_timezone: [' is invalid syntax'] } } });
    expect((await call('POST', '/projects/2/freeze_periods', { freeze_start: '0 1 * * *' })).body).toEqual({ error: 'freeze_end is missing' });
  });

  it('lists with pagination headers, updates with 200 and deletes with 204', async () => {
    const list = await call('GET', '/projects/1/freeze_periods');
    expect(list.headers.get('x-total')).toBe(String(list.body.length));
    const id = list.body[0].id;
    expect((await call('PUT', `/projects/1/freeze_periods/${id}`, { cron_timezone: 'Asia/Tokyo' })).body.cron_timezone).toBe('Asia/Tokyo');
    expect((await call('DELETE', `/projects/1/freeze_periods/${id}`)).status).toBe(204);
    expect(await call('GET', `/projects/1/freeze_periods/${id}`)).toMatchObject({ status: 404, body: { message: '404 Freeze Period Not Found' } });
  });
});
