import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { tokens } from '../../sandbox/model.js';

const sandbox = useTestSandbox();

describe('freeze-periods', () => {
  it('refuses an invalid cron expression locally (exit 2, nothing sent), then creates with a valid one', async () => {
    sandbox.clearRequests();
    const bad = await sandbox.run(['freeze-periods', 'create', '--project', 'acme/api', '--freeze-start', '0 23 * * 5', '--freeze-end', 'not cron']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--freeze-end is not a valid cron expression');
    expect((await sandbox.run(['freeze-periods', 'create', '--project', 'acme/api', '--freeze-start', '0 23 * * 5 *', '--freeze-end', '0 7 * * 1'])).code).toBe(2);
    expect((await sandbox.run(['freeze-periods', 'create', '--project', 'acme/api', '--freeze-start', '61 23 * * 5', '--freeze-end', '0 7 * * 1'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);

    const good = await sandbox.run(['freeze-periods', 'create', '--project', 'acme/api', '--freeze-start', '0 23 * * 5', '--freeze-end', '0 7 * * 1', '-o', 'json']);
    expect(good.code).toBe(0);
    expect(good.json()).toMatchObject({ freeze_start: '0 23 * * 5', freeze_end: '0 7 * * 1', cron_timezone: 'UTC' });
  });

  it('checks the time zone against the IANA names and fixes its case', async () => {
    sandbox.clearRequests();
    const bad = await sandbox.run(['freeze-periods', 'create', '--project', 'acme/api', '--freeze-start', '0 1 * * *', '--freeze-end', '0 2 * * *', '--cron-timezone', 'Europe/Berlim']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Europe/Berlin');
    const far = await sandbox.run(['freeze-periods', 'create', '--project', 'acme/api', '--freeze-start', '0 1 * * *', '--freeze-end', '0 2 * * *', '--cron-timezone', 'Mars/Olympus']);
    expect(far.code).toBe(2);
    expect(far.stderr).not.toContain('did you mean');
    expect(far.stderr).toContain('hint: for example UTC, Europe/Berlin, America/New_York');
    const city = await sandbox.run(['freeze-periods', 'create', '--project', 'acme/api', '--freeze-start', '0 1 * * *', '--freeze-end', '0 2 * * *', '--cron-timezone', 'America/NewYork']);
    expect(city.stderr).toContain('did you mean America/New_York?');
    expect((await sandbox.run(['freeze-periods', 'create', '--project', 'acme/api', '--freeze-start', '0 1 * * *', '--freeze-end', '0 2 * * *', '--cron-timezone', '+01:00'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
    const good = await sandbox.run(['freeze-periods', 'create', '--project', 'acme/web', '--freeze-start', '0 1 * * *', '--freeze-end', '0 2 * * *', '--cron-timezone', 'america/new_york', '-o', 'json']);
    expect(good.json().cron_timezone).toBe('America/New_York');
  });

  it('lists oldest first, in TSV when piped, and updates and deletes', async () => {
    const list = await sandbox.run(['freeze-periods', 'list', '--project', 'acme/api']);
    const lines = list.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(lines[0].slice(1, 4)).toEqual(['0 23 * * 5', '0 7 * * 1', 'Europe/Berlin']);
    const id = lines[lines.length - 1][0];

    expect((await sandbox.run(['freeze-periods', 'update', id, '--project', 'acme/api'])).code).toBe(2);
    const updated = await sandbox.run(['freeze-periods', 'update', id, '--project', 'acme/api', '--freeze-end', '0 9 * * 1', '-o', 'json']);
    expect(updated.json()).toMatchObject({ id: Number(id), freeze_end: '0 9 * * 1' });

    expect((await sandbox.run(['freeze-periods', 'delete', id, '--project', 'acme/api'])).code).toBe(2);
    expect((await sandbox.run(['freeze-periods', 'delete', id, '--project', 'acme/api', '--yes'])).code).toBe(0);
    expect((await sandbox.run(['freeze-periods', 'get', id, '--project', 'acme/api'])).code).toBe(5);
  });

  it('lets a developer read but not write', async () => {
    const bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
    expect((await sandbox.run(['freeze-periods', 'list', '--project', 'acme/api'], { env: { FORGECTL_TOKEN: bob } })).code).toBe(0);
    expect((await sandbox.run(['freeze-periods', 'create', '--project', 'acme/api', '--freeze-start', '0 1 * * *', '--freeze-end', '0 2 * * *'], { env: { FORGECTL_TOKEN: bob } })).code).toBe(4);
  });
});
