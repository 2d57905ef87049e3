import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxLicenseKey } from './sandbox.js';
import { isoDate } from '../../sandbox/seed.js';
import { tokens } from '../../sandbox/model.js';
import { tempDir, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();
const dir = tempDir();

const now = new Date();
const licensee = { Name: 'Jo Admin', Email: 'jo@example.com', Company: 'Jo Inc' };
const keyFile = (name: string, fields: Partial<Parameters<typeof sandboxLicenseKey>[0]> = {}): string => {
  const file = join(dir, name);
  writeFileSync(file, `${sandboxLicenseKey({ plan: 'premium', licensee, starts_at: isoDate(now, -1), expires_at: isoDate(now, 365), user_limit: 50, ...fields })}\n`);
  return file;
};

describe('license', () => {
  it('shows the current license with seats, overage and expiry', async () => {
    const result = await sandbox.run(['license', 'get', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ id: 1, plan: 'ultimate', user_limit: 100, overage: 0, expired: false, licensee: { Company: 'Acme Corp' } });
    expect(result.json().active_users).toBeGreaterThan(0);
    expect(result.stderr).toBe('');
  });

  it('adds a license from a file; license list shows it and it becomes current', async () => {
    const added = await sandbox.run(['license', 'add', '--file', keyFile('premium.key'), '-o', 'json']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.json()).toMatchObject({ plan: 'premium', licensee, user_limit: 50 });
    const list = await sandbox.run(['license', 'list', '-o', 'json']);
    expect(list.json().map((l: { plan: string }) => l.plan)).toEqual(['premium', 'ultimate']);
    expect((await sandbox.run(['license', 'get', '-o', 'json'])).json().id).toBe(added.json().id);
    const piped = await sandbox.run(['license', 'list']);
    const first = list.json()[0];
    expect(piped.stdout.split('\n')[0]).toBe(`${added.json().id}\tpremium\tJo Admin\tJo Inc\t50\t${first.historical_max}\t0\t${isoDate(now, -1)}\t${isoDate(now, 365)}\tfalse`);
    // No column is empty for every license of the list.
    for (const column of piped.stdout.trim().split('\n').map((line) => line.split('\t')).reduce((cols, row) => row.map((cell, i) => [...(cols[i] ?? []), cell]), [] as string[][])) expect(column.some(Boolean)).toBe(true);
  });

  it('reads the key from stdin with --file -, and never puts it in --dry-run output', async () => {
    const key = readFileSync(keyFile('stdin.key', { plan: 'ultimate' }), 'utf8');
    const dry = await sandbox.run(['license', 'add', '--file', '-', '--dry-run'], { input: key });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('POST ');
    expect(dry.stdout).not.toContain(key.trim());
    const added = await sandbox.run(['license', 'add', '--file', '-', '-o', 'json'], { input: key });
    expect(added.json().plan).toBe('ultimate');
  });

  it('exits 6 with the message when the instance refuses the key, and 2 when there is no key', async () => {
    const bad = join(dir, 'bad.key');
    writeFileSync(bad, Buffer.from('{"plan":"premium"}').toString('base64'));
    const refused = await sandbox.run(['license', 'add', '--file', bad]);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toMatch(/license key is invalid.*licensee/);
    const expired = await sandbox.run(['license', 'add', '--file', keyFile('old.key', { starts_at: '2020-01-01', expires_at: '2021-01-01' })]);
    expect(expired.code).toBe(6);
    expect(expired.stderr).toContain('already expired');
    sandbox.clearRequests();
    const empty = join(dir, 'empty.key');
    writeFileSync(empty, '\n');
    expect((await sandbox.run(['license', 'add', '--file', empty])).code).toBe(2);
    expect((await sandbox.run(['license', 'add', '--file', join(dir, 'missing.key')])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });

  it('warns when the current license expires within 30 days, and about overage', async () => {
    await sandbox.run(['license', 'add', '--file', keyFile('short.key', { expires_at: isoDate(now, 10), user_limit: 2 })]);
    const result = await sandbox.run(['license', 'get', '-o', 'json']);
    expect(result.stderr).toMatch(/warning: the current license \d+ \(premium, Jo Inc\) expires on \d{4}-\d{2}-\d{2}, in 1[01] days/);
    expect(result.stderr).toMatch(/billable users? over its user limit of 2/);
    expect(result.json().overage).toBe(result.json().active_users - 2);
    expect((await sandbox.run(['license', 'list'])).stderr).toContain('expires on');
  });

  it('deletes a license after confirmation, and exits 5 for one that does not exist', async () => {
    sandbox.clearRequests();
    expect((await sandbox.run(['license', 'delete', '1'])).code).toBe(2);
    expect(sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
    const deleted = await sandbox.run(['license', 'delete', '1', '--yes']);
    expect(deleted.code).toBe(0);
    expect(deleted.stderr).toContain('Deleted license 1 (ultimate, Acme Corp)');
    expect((await sandbox.run(['license', 'get', '1'])).code).toBe(5);
    expect((await sandbox.run(['license', 'delete', '1', '--yes'])).code).toBe(5);
    expect((await sandbox.run(['license', 'get', 'x'])).code).toBe(2);
  });

  it('starts a recalculation of billable users', async () => {
    const result = await sandbox.run(['license', 'refresh-billable', '2', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json()).toEqual({ success: true });
    expect(sandbox.requests().at(-1)).toMatchObject({ method: 'PUT', path: '/api/v4/license/2/refresh_billable_users', status: 202 });
    expect((await sandbox.run(['license', 'refresh-billable', '999'])).code).toBe(5);
  });

  it('exports usage as CSV to a file or a pipe, never to a terminal', async () => {
    const file = join(dir, 'usage.csv');
    expect((await sandbox.run(['license', 'usage-export', '--output-file', file])).code).toBe(0);
    const csv = readFileSync(file, 'utf8');
    expect(csv).toMatch(/^License Key,/);
    expect(csv).toContain('Company,Jo Inc');
    expect(csv).toMatch(/Date,Billable User Count\n\d{4}-\d{2}-\d{2},\d+\n$/);
    expect((await sandbox.run(['license', 'usage-export'])).stdout).toMatch(/^License Key,/);
    sandbox.clearRequests();
    expect((await sandbox.run(['license', 'usage-export'], { tty: true })).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });

  it('exits 4 for non-administrators', async () => {
    const bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
    expect((await sandbox.run(['license', 'list'], { env: { FORGECTL_TOKEN: bob } })).code).toBe(4);
  });
});
