import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../../../test/helpers/cli.js';

let clock = new Date();
const sandbox = useTestSandbox({ now: () => clock });
const runnerNamed = async (description: string): Promise<{ id: number }> =>
  (await sandbox.call('GET', '/runners/all?per_page=100')).body.find((r: { description: string }) => r.description === description);
const verifies = async (token: string): Promise<number> => (await sandbox.call('POST', '/runners/verify', { token })).status;
const resets = () => sandbox.requests().filter((r) => r.method === 'POST' && r.path.endsWith('/reset_authentication_token'));

describe('runners commands', () => {
  it('lists the runners you manage, the instance\'s, a group\'s and a project\'s, with filters', async () => {
    const mine = await sandbox.run(['runners', 'list', '-o', 'json']);
    expect(mine.code).toBe(0);
    expect(mine.json().every((r: { runner_type: string }) => r.runner_type !== 'instance_type')).toBe(true);
    const stale = await sandbox.run(['runners', 'list', '--instance', '--status', 'stale', '-o', 'json']);
    expect(stale.json().map((r: { description: string }) => r.description)).toEqual(['shared-docker-2', 'shared-macos', 'acme-arm', 'web-builder']);
    const group = await sandbox.run(['runners', 'list', '--group', 'acme', '--type', 'group_type', '--paused', '-o', 'json']);
    expect(group.json().map((r: { description: string }) => r.description)).toEqual(['acme-legacy']);
    const tagged = await sandbox.run(['runners', 'list', '--project', 'acme/api', '--tag', 'gpu', '-o', 'json']);
    expect(tagged.json().map((r: { description: string }) => r.description)).toEqual(['api-gpu']);
  });

  it('refuses bad input before sending anything', async () => {
    sandbox.clearRequests();
    for (const argv of [['list', '--type', 'shared'], ['list', '--instance', '--group', 'acme'], ['get', 'x'], ['audit', '--stale', 'soon'], ['update', '7'], ['update', '7', '--maximum-timeout', 'long']]) {
      const result = await sandbox.run(['runners', ...argv]);
      expect(result.code).toBe(2);
    }
    expect(sandbox.requests()).toEqual([]);
  });

  it('shows one runner, pauses and resumes it, updates it, and lists its jobs', async () => {
    const gpu = await runnerNamed('api-gpu');
    const shown = await sandbox.run(['runners', 'get', String(gpu.id), '-o', 'json']);
    expect(shown.json()).toMatchObject({ description: 'api-gpu', tag_list: ['gpu'], contacted_at: expect.any(String), projects: [{ path_with_namespace: 'acme/api' }] });
    const paused = await sandbox.run(['runners', 'pause', String(gpu.id), '-o', 'json']);
    expect(paused.json()).toMatchObject({ paused: true });
    expect(paused.stderr).toContain(`Paused runner ${gpu.id} ("api-gpu")`);
    expect((await sandbox.run(['runners', 'resume', String(gpu.id), '-o', 'json'])).json()).toMatchObject({ paused: false });
    const updated = await sandbox.run(['runners', 'update', String(gpu.id), '--tag-list', 'gpu,cuda', '--maximum-timeout', '3600', '-o', 'json']);
    expect(updated.json()).toMatchObject({ tag_list: ['gpu', 'cuda'], maximum_timeout: 3600 });
    const refused = await sandbox.run(['runners', 'update', String(gpu.id), '--maximum-timeout', '60']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--maximum-timeout');
    const jobs = await sandbox.run(['runners', 'jobs', String(gpu.id), '-o', 'json']);
    expect(jobs.json().length).toBeGreaterThan(0);
    expect(jobs.json()[0]).toMatchObject({ project_path: 'acme/api' });
    const failed = await sandbox.run(['runners', 'jobs', '1', '--status', 'failed', '-o', 'json']);
    expect(failed.json().every((j: { status: string }) => j.status === 'failed')).toBe(true);
  });

  it('deletes after asking, saying whose runner it is and when it was last seen', async () => {
    const created = (await sandbox.call('POST', '/user/runners', { runner_type: 'project_type', project_id: 'acme/web', description: 'doomed' })).body;
    const asked = await sandbox.run(['runners', 'delete', String(created.id)]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain(`Delete runner ${created.id} ("doomed"), a runner of project acme/web, never_contacted (never contacted)?`);
    expect((await sandbox.run(['runners', 'delete', String(created.id), '--yes'])).code).toBe(0);
    expect((await sandbox.call('GET', `/runners/${created.id}`)).status).toBe(404);
    // A group's Maintainer may use the instance's runner 1 but not delete it: the service's bare 403, said with why.
    const shared = await sandbox.run(['runners', 'delete', '1', '--yes'], { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('maintainer') } });
    expect(shared.code).toBe(4);
    expect(shared.stderr).toContain('hint: a runner is deleted by an administrator, or by a Maintainer of its group or project; forgectl runners list shows the ones you manage\n');
  });

  it('audit --stale lists runners without contact for that long, with the fix, and exits 9; by the clock', async () => {
    sandbox.clearRequests();
    const audit = await sandbox.run(['runners', 'audit', '--instance', '--stale', '30d', '-o', 'json'], { now: () => clock });
    expect(audit.code).toBe(9);
    const rows = audit.json();
    expect(rows.map((r: { description: string }) => r.description)).toEqual(['acme-arm', 'shared-macos', 'shared-docker-2', 'web-builder']);
    expect(rows[0]).toMatchObject({ idle_days: 100, last_contact: expect.any(String), fix: expect.stringMatching(/^forgectl runners delete \d+$/) });
    expect(rows[1]).toMatchObject({ last_contact: 'never', idle_days: 60 });
    expect(audit.stderr).toContain('attention: 4 runners without contact for 30d');
    // Only the runners the service calls stale were read one by one.
    expect(sandbox.requests().filter((r) => r.method === 'GET' && /\/runners\/\d+$/.test(r.path))).toHaveLength(4);

    const fine = await sandbox.run(['runners', 'audit', '--project', 'acme/api', '--type', 'project_type', '--stale', '30d'], { now: () => clock });
    expect(fine.code).toBe(0);
    expect(fine.stderr).toContain('no runner without contact for 30d');
    // On a terminal that sentence is the whole answer: no "no results" beside it; JSON still gets its list.
    const onTerminal = await sandbox.run(['runners', 'audit', '--project', 'acme/api', '--type', 'project_type', '--stale', '30d'], { now: () => clock, tty: true });
    expect(onTerminal.stderr).toMatch(/^no runner without contact for 30d \(since [\d-]+\); checked [^\n]*\n$/);
    expect(onTerminal.stdout).toBe('');
    expect((await sandbox.run(['runners', 'audit', '--project', 'acme/api', '--type', 'project_type', '--stale', '30d', '-o', 'json'], { now: () => clock })).json()).toEqual([]);
    // Forty days on, the project's own runner has not been seen for that long either.
    clock = new Date(clock.getTime() + 40 * 86_400_000);
    const later = await sandbox.run(['runners', 'audit', '--project', 'acme/api', '--type', 'project_type', '--stale', '30d', '-o', 'json'], { now: () => clock });
    expect(later.code).toBe(9);
    expect(later.json().map((r: { description: string }) => r.description)).toEqual(['api-gpu']);
    clock = new Date();
  });

  it('reset-token prints the new token once, or writes it 0600 to --output-file; the old one is refused', async () => {
    const created = (await sandbox.call('POST', '/user/runners', { runner_type: 'group_type', group_id: 'acme', description: 'resettable' })).body;
    const printed = await sandbox.run(['runners', 'reset-token', String(created.id), '--yes', '-o', 'json']);
    expect(printed.code).toBe(0);
    const token = printed.json().token as string;
    expect(await verifies(created.token)).toBe(403);
    expect(await verifies(token)).toBe(200);

    const file = join(tempDir(), 'runner.token');
    const saved = await sandbox.run(['runners', 'reset-token', String(created.id), '--yes', '--output-file', file, '-o', 'json']);
    expect(saved.code).toBe(0);
    const written = readFileSync(file, 'utf8').trim();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(saved.stdout).not.toContain(written);
    expect(await verifies(written)).toBe(200);
    expect(readdirSync(join(sandbox.env().FORGECTL_CONFIG_DIR!, 'recovery', 'runners'))).toEqual([]);
  });

  it('reset but not saved: exit 10 naming the recovery file; the next run saves from it without resetting again', async () => {
    const created = (await sandbox.call('POST', '/user/runners', { runner_type: 'project_type', project_id: 'acme/api', description: 'unsaved' })).body;
    const dir = tempDir();
    const taken = join(dir, 'taken');
    mkdirSync(taken);
    const failed = await sandbox.run(['runners', 'reset-token', String(created.id), '--yes', '--output-file', taken]);
    expect(failed.code).toBe(10);
    const [, path] = /recovery file (\S+) \(mode 0600\)/.exec(failed.stderr) ?? [];
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const kept = JSON.parse(readFileSync(path, 'utf8')).token.token as string;
    expect(await verifies(kept)).toBe(200);

    sandbox.clearRequests();
    const file = join(dir, 'runner.token');
    const next = await sandbox.run(['runners', 'reset-token', String(created.id), '--yes', '--output-file', file]);
    expect(next.code).toBe(0);
    expect(next.stderr).toContain('finishing it from');
    expect(resets()).toEqual([]);
    expect(readFileSync(file, 'utf8').trim()).toBe(kept);
  });

  it('SIGTERM while the reset is in flight: it waits for the answer, keeps the token, exits 143; the next run finishes', async () => {
    const created = (await sandbox.call('POST', '/user/runners', { runner_type: 'project_type', project_id: 'acme/api', description: 'interrupted' })).body;
    sandbox.fault({ method: 'POST', path: 'reset_authentication_token$', answer_latency_ms: 400 });
    const stop = new Promise<'SIGTERM'>((resolve) => setTimeout(() => resolve('SIGTERM'), 150));
    const stopped = await sandbox.run(['runners', 'reset-token', String(created.id), '--yes'], { interrupted: stop });
    expect(stopped.code).toBe(143);
    expect(stopped.stderr).toMatch(/interrupted \(SIGTERM\) after the token was reset: the new token is in the recovery file/);
    expect(stopped.stdout).toBe('');
    sandbox.clearRequests();
    const next = await sandbox.run(['runners', 'reset-token', String(created.id), '--yes', '-o', 'json']);
    expect(next.code).toBe(0);
    expect(resets()).toEqual([]);
    expect(await verifies(next.json().token)).toBe(200);
  });
});
