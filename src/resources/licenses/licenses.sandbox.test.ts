import { describe, expect, it } from 'vitest';
import { sandboxLicenseKey } from './sandbox.js';
import { tokens, users } from '../../sandbox/model.js';
import { addUser, isoDate } from '../../sandbox/seed.js';
import { startTestSandbox, type TestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

const call = (...args: Parameters<TestSandbox['call']>) => sandbox.call(...args);

const now = new Date();
const licensee = { Name: 'Jo', Email: 'jo@example.com', Company: 'Jo Inc' };
const key = (fields: Record<string, unknown> = {}) => sandboxLicenseKey({ plan: 'premium', licensee, starts_at: isoDate(now, -10), expires_at: isoDate(now, 100), user_limit: 10, ...fields } as never);

describe('sandbox: licenses', () => {
  it('the seeded current license carries every field of the spec, active_users only in single and current reads', async () => {
    const current = await call('GET', '/license');
    expect(Object.keys(current.body).sort()).toEqual(['active_users', 'add_ons', 'created_at', 'expired', 'expires_at', 'historical_max', 'id', 'licensee', 'maximum_user_count', 'overage', 'plan', 'starts_at', 'user_limit'].sort());
    const billable = users(sandbox.db).filter((u) => u.state === 'active' && !u.bot).length;
    expect(current.body).toMatchObject({ plan: 'ultimate', active_users: billable, historical_max: billable, maximum_user_count: billable, overage: 0 });
    expect((await call('GET', '/licenses')).body[0].active_users).toBeUndefined();
    expect((await call('GET', `/license/${current.body.id}`)).body.active_users).toBe(billable);
  });

  it('adds a valid key with 201, and refuses others with 400 and a message', async () => {
    const added = await call('POST', '/license', { license: key() });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ plan: 'premium', licensee, user_limit: 10, expired: false });
    expect((await call('GET', '/license')).body.id).toBe(added.body.id);
    expect(await call('POST', '/license', {})).toMatchObject({ status: 400, body: { error: 'license is missing' } });
    for (const bad of ['not base64!', Buffer.from('[1]').toString('base64'), key({ plan: 'platinum' }), key({ licensee: { Name: 'x' } }), key({ user_limit: 0 }), key({ starts_at: 'soon' }), key({ expires_at: isoDate(now, -20) })]) {
      const refused = await call('POST', '/license', { license: bad });
      expect(refused.status).toBe(400);
      expect(typeof refused.body.message).toBe('string');
    }
  });

  it('computes overage from billable users, and from the historical maximum once expired', async () => {
    const tight = await call('POST', '/license', { license: key({ user_limit: 1 }) });
    const active = tight.body.active_users as number;
    expect(tight.body.overage).toBe(active - 1);
    // Blocked users stop being billable; the historical maximum keeps the peak.
    const extra = addUser(sandbox.db, { username: 'temp', name: 'Temp' }, now);
    expect((await call('PUT', `/license/${tight.body.id}/refresh_billable_users`)).body).toEqual({ success: true });
    extra.state = 'blocked';
    const after = (await call('GET', `/license/${tight.body.id}`)).body;
    expect(after).toMatchObject({ active_users: active, historical_max: active + 1, maximum_user_count: active + 1, overage: active - 1 });
    // An expired license counts its historical maximum.
    const record = (sandbox.db.table('licenses') as Array<{ id: number; starts_at: string; expires_at: string }>).find((l) => l.id === tight.body.id)!;
    record.expires_at = isoDate(now, -1);
    record.starts_at = isoDate(now, -30);
    sandbox.db.record<Record<string, number>>('license_history', () => ({}))[isoDate(now, -5)] = 50;
    const expired = (await call('GET', `/license/${tight.body.id}`)).body;
    expect(expired).toMatchObject({ expired: true, historical_max: 50, overage: 49 });
  });

  it('deletes with 204, recalculates with 202, and answers 404 for unknown ids', async () => {
    const added = await call('POST', '/license', { license: key() });
    expect(await call('PUT', `/license/${added.body.id}/refresh_billable_users`)).toMatchObject({ status: 202, body: { success: true } });
    expect((await call('DELETE', `/license/${added.body.id}`)).status).toBe(204);
    expect(await call('GET', `/license/${added.body.id}`)).toMatchObject({ status: 404, body: { message: '404 License Not Found' } });
    expect((await call('DELETE', `/license/${added.body.id}`)).status).toBe(404);
    expect((await call('PUT', '/license/999/refresh_billable_users')).status).toBe(404);
  });

  it('exports the usage of the current license as CSV', async () => {
    const csv = await call('GET', '/license/usage_export.csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = csv.text.trim().split('\n');
    expect(lines.slice(0, 6).map((l) => l.split(',')[0])).toEqual(['License Key', 'Email', 'License Start Date', 'License End Date', 'Company', 'Generated At']);
    expect(lines).toContain('Date,Billable User Count');
    expect(lines[lines.length - 1]).toMatch(/^\d{4}-\d{2}-\d{2},\d+$/);
  });

  it('answers 403 to non-administrators on every route, and null when no license is current', async () => {
    const bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
    for (const [method, path] of [['GET', '/license'], ['GET', '/licenses'], ['GET', '/license/1'], ['POST', '/license'], ['DELETE', '/license/1'], ['PUT', '/license/1/refresh_billable_users'], ['GET', '/license/usage_export.csv']]) {
      expect((await call(method, path, method === 'POST' ? { license: key() } : undefined, bob)).status, `${method} ${path}`).toBe(403);
    }
    const free = await startTestSandbox({ tier: 'free' });
    try {
      const response = await fetch(`${free.url}/license`, { headers: { 'PRIVATE-TOKEN': free.adminToken } });
      expect(response.status).toBe(200);
      expect(await response.json()).toBeNull();
      expect((await fetch(`${free.url}/licenses`, { headers: { 'PRIVATE-TOKEN': free.adminToken } }).then((r) => r.json()))).toEqual([]);
    } finally {
      await free.close();
    }
  });
});
