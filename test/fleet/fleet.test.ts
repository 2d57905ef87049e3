import { describe, expect, it } from 'vitest';
import { globRegExp, globRoot, matchesGlob } from '../../src/fleet/glob.js';
import { orderedPool } from '../../src/fleet/pool.js';
import { RateGate } from '../../src/http/rate-gate.js';
import { fleetProjectPath } from '../../src/sandbox/seed.js';
import { useTestSandbox } from '../helpers/cli.js';

// 30 fleet projects under acme/team-01/squad-{1,2,3}; a generous budget so only the faults below limit anything.
const sandbox = useTestSandbox({ fleet: 30, rateLimit: { limit: 100_000 } });

const squad1 = Array.from({ length: 10 }, (_, i) => fleetProjectPath(i + 1));

describe('globs over full paths', () => {
  it('matches ** across segments and * within one', () => {
    expect(matchesGlob('acme/team-01/squad-1/svc-001', 'acme/**')).toBe(true);
    expect(matchesGlob('acme/api', 'acme/**')).toBe(true);
    expect(matchesGlob('acme', 'acme/**')).toBe(false);
    expect(matchesGlob('acme/team-01/api', 'acme/*/api')).toBe(true);
    expect(matchesGlob('acme/team-01/x/api', 'acme/*/api')).toBe(false);
    expect(matchesGlob('acme/team-01/x/api', 'acme/**/api')).toBe(true);
    expect(matchesGlob('ACME/Api', 'acme/api')).toBe(true);
    expect(matchesGlob('acme/a.b', 'acme/a?b')).toBe(true);
    expect(globRegExp('a+b/(x)').test('a+b/(x)')).toBe(true);
    expect(globRoot('acme/team-*/**')).toBe('acme');
    expect(globRoot('acme/api')).toBe('acme/api');
  });

  it('takes sets of characters within a segment, as shells do', () => {
    expect(matchesGlob('acme/team-01/squad-1/svc-001', 'acme/**/svc-00[12]')).toBe(true);
    expect(matchesGlob('acme/team-01/squad-1/svc-003', 'acme/**/svc-00[12]')).toBe(false);
    expect(matchesGlob('acme/team-01/squad-1/svc-003', 'acme/**/svc-00[!12]')).toBe(true);
    expect(globRoot('acme/team-01/squad-1/svc-00[12]')).toBe('acme/team-01/squad-1');
  });
});

describe('the ordered pool', () => {
  it('yields outcomes in the order of the items whatever the timing, with at most N at once', async () => {
    let active = 0;
    let peak = 0;
    const items = Array.from({ length: 40 }, (_, i) => i);
    const outcomes = [];
    for await (const outcome of orderedPool(items, 5, async (n) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((resolve) => setTimeout(resolve, (n * 7919) % 13));
      active--;
      if (n === 17) throw new Error('seventeen');
      return n * 2;
    })) outcomes.push(outcome);
    expect(outcomes.map((o) => o.index)).toEqual(items);
    expect(outcomes.filter((o) => o.status === 'failed').map((o) => o.item)).toEqual([17]);
    expect(outcomes.find((o) => o.index === 3)).toMatchObject({ status: 'ok', value: 6 });
    expect(peak).toBe(5);
  });

  it('keeps N running while an early item is slow (no head-of-line blocking)', async () => {
    const started: number[] = [];
    const pool = orderedPool([0, 1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      await new Promise((resolve) => setTimeout(resolve, n === 0 ? 60 : 1));
      return n;
    });
    await pool.next();
    // While item 0 took 60 ms, the second slot ran 1 … 5 one after another.
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('skips the items not started once told to stop', async () => {
    let stop = false;
    const statuses: string[] = [];
    for await (const outcome of orderedPool([1, 2, 3, 4, 5, 6], 2, async (n) => {
      if (n === 2) {
        stop = true;
        throw new Error('two');
      }
      return n;
    }, { stop: () => stop })) statuses.push(outcome.status);
    expect(statuses.slice(0, 2)).toEqual(['ok', 'failed']);
    expect(statuses.slice(3)).toEqual(['skipped', 'skipped', 'skipped']);
  });
});

describe('the shared rate gate', () => {
  it('holds every request until the reset when the remaining budget would not cover those in flight', async () => {
    let now = 1_800_000_000_000;
    const slept: number[] = [];
    const gate = new RateGate(() => now, async (ms) => {
      slept.push(ms);
      now += ms;
    });
    const headers = (values: Record<string, string>) => (name: string) => values[name];
    gate.observe(200, headers({ 'ratelimit-remaining': '3', 'ratelimit-reset': '1800000010' }));
    await gate.wait();
    expect(slept).toEqual([]); // passive until a fleet run activates it
    gate.activate(4);
    gate.observe(200, headers({ 'ratelimit-remaining': '10', 'ratelimit-reset': '1800000010' }));
    await gate.wait();
    expect(slept).toEqual([]);
    // Reset in 10 s by the server's clock (the answer's Date), whatever the local clock says.
    gate.observe(200, headers({ 'ratelimit-remaining': '4', 'ratelimit-reset': '1800000010', date: new Date(1_800_000_000_000).toUTCString() }));
    await gate.wait();
    expect(slept).toEqual([10_000]);
    gate.hold(2000);
    gate.hold(500);
    await gate.wait();
    expect(slept).toEqual([10_000, 2000]);
    expect(gate.stats).toMatchObject({ holds: 2, heldMs: 12_000 });
    // A hold no request waited for (the run ended first) is not reported as waiting.
    gate.hold(5000);
    now += 6000;
    expect(gate.stats).toMatchObject({ holds: 2, heldMs: 12_000 });
    expect(gate.summary()).toBe('waited 12.0 s for the rate limit');
  });
});

describe('fleet operations on any project command', () => {
  it('runs a list over a group and its subgroups, one row per record with the project in front, in path order', async () => {
    const result = await sandbox.run(['badges', 'list', '--group', 'acme/team-01', '--recursive', '--concurrency', '8', '-o', 'ndjson']);
    expect(result.code).toBe(0);
    const rows = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.map((r) => r.project)).toEqual(Array.from({ length: 30 }, (_, i) => fleetProjectPath(i + 1)));
    expect(rows[0]).toMatchObject({ project: fleetProjectPath(1), outcome: 'ok', kind: 'group', name: 'pipeline', error: null });
    expect(result.stderr).toMatch(/^30 projects: 30 ok in [\d.]+ s at concurrency 8$/m);
  });

  it('rows refused with 403 get the hint the command gives of one project (its role and tier), once after the summary', async () => {
    const env = { FORGECTL_TOKEN: sandbox.tokenWithRole('developer') };
    const args = ['push-rule', 'set', '--group', 'acme/team-01', '--recursive', '--match', 'acme/team-01/squad-1/**', '--max-file-size', '12', '--yes', '--continue-on-error'];
    const single = await sandbox.run(['push-rule', 'set', '--project', squad1[0], '--max-file-size', '12', '--yes'], { env });
    expect(single.code).toBe(4);
    const needs = /^hint: (push-rule set needs .+)$/m.exec(single.stderr)![1];
    for (const format of ['table', 'json']) {
      const fleet = await sandbox.run([...args, '-o', format], { env });
      expect(fleet.code).toBe(9);
      expect(fleet.stderr.split('\n').filter((line) => line.startsWith('hint:'))).toEqual([`hint: 10 projects were refused (403 Forbidden): ${needs}`]);
    }
  });

  it('rows answering 404 for the record get the hint to list what exists, over the same projects, once after the summary', async () => {
    const many = await sandbox.run(['hooks', 'get', '77', '--group', 'acme/team-01', '--recursive', '--match', 'acme/team-01/squad-1/**', '--exclude', '**/svc-00[12]', '--continue-on-error']);
    expect(many.code).toBe(9);
    expect(many.stderr).toContain(`${squad1[2]}: error: 404 Hook Not Found (GET /projects/${encodeURIComponent(squad1[2])}/hooks/77 → 404)\n`);
    expect(many.stderr.split('\n').filter((line) => line.startsWith('hint:'))).toEqual([
      "hint: 8 projects answered 404 Not Found: forgectl hooks list --group acme/team-01 --recursive --match 'acme/team-01/squad-1/**' --exclude '**/svc-00[12]' lists their webhooks",
    ]);
    // One project, or projects read from stdin (which cannot be given again): the list of the first, as of one project.
    const one = await sandbox.run(['hooks', 'get', '77', '--projects-file', '-', '--continue-on-error'], { input: `${squad1[0]}\n` });
    expect(one.stderr.split('\n').filter((line) => line.startsWith('hint:'))).toEqual([`hint: 1 project answered 404 Not Found: forgectl hooks list --project ${squad1[0]} lists its webhooks`]);
    const piped = await sandbox.run(['hooks', 'get', '77', '--projects-file', '-', '--continue-on-error'], { input: `${squad1[0]}\n${squad1[1]}\n` });
    expect(piped.stderr).toContain(`hint: 2 projects answered 404 Not Found: forgectl hooks list --project ${squad1[0]} lists its webhooks (${squad1[0]}, the first of them)\n`);
    // A project that is not there gets no hint to list its records, as with --project.
    const absent = await sandbox.run(['hooks', 'get', '77', '--projects-file', '-'], { input: 'acme/nope\n' });
    expect(absent.stderr).not.toContain('hint:');
  });

  it('narrows with --match and --exclude, and reads projects from a file or stdin', async () => {
    const matched = await sandbox.run(['push-rule', 'get', '--group', 'acme', '--recursive', '--match', 'acme/team-01/squad-2/**', '--exclude', '**/svc-01?', '-o', 'json']);
    expect(matched.json<Array<{ project: string }>>().map((r) => r.project)).toEqual(['acme/team-01/squad-2/svc-020']);
    const listed = await sandbox.run(['push-rule', 'get', '--projects-file', '-', '--fields', 'project,outcome,max_file_size'], { input: `# two of them\n${squad1[4]}\n\n${squad1[1]}  # this one too\n${squad1[4]}\n` });
    expect(listed.stdout).toBe(`${squad1[4]}\tok\t100\n${squad1[1]}\tok\t100\n`);
    const set = await sandbox.run(['push-rule', 'get', '--group', 'acme/team-01', '--recursive', '--match', '**/svc-00[12]', '--fields', 'project']);
    expect(set.stdout).toBe(`${squad1[0]}\n${squad1[1]}\n`);
  });

  it('says where the projects are when a group\'s own projects match nothing: in its subgroups, with --recursive', async () => {
    const result = await sandbox.run(['push-rule', 'get', '--group', 'acme/team-01', '--match', 'acme/team-01/**']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('no projects selected: only the projects of acme/team-01 itself were looked at; --recursive adds those of its subgroups\n');
    expect((await sandbox.run(['push-rule', 'get', '--group', 'acme/team-01', '--recursive', '--match', 'acme/nothing/**'])).stderr).toBe('no projects selected\n');
  });

  it('stops at the first failure, or goes on with --continue-on-error; either way one row per project and exit 9', async () => {
    sandbox.fault({ path: 'svc-003/push_rule$', status: 500, times: 2 });
    const stopped = await sandbox.run(['push-rule', 'get', '--group', 'acme/team-01/squad-1', '--concurrency', '1', '--retries', '0', '--fields', 'project,outcome']);
    expect(stopped.code).toBe(9);
    expect(stopped.stdout.split('\n').slice(0, 5)).toEqual([`${squad1[0]}\tok`, `${squad1[1]}\tok`, `${squad1[2]}\tfailed`, `${squad1[3]}\tskipped`, `${squad1[4]}\tskipped`]);
    expect(stopped.stderr).toContain(`${squad1[2]}: error: 500 Injected fault`);
    expect(stopped.stderr).toMatch(/attention: 10 projects: 2 ok, 1 failed, 7 not started/);

    const all = await sandbox.run(['push-rule', 'get', '--group', 'acme/team-01/squad-1', '--retries', '0', '--continue-on-error', '-o', 'json']);
    expect(all.code).toBe(9);
    const rows = all.json<Array<{ project: string; outcome: string; max_file_size: number | null; error: string | null }>>();
    expect(rows.map((r) => r.outcome)).toEqual(['ok', 'ok', 'failed', ...Array(7).fill('ok')]);
    expect(rows[2]).toMatchObject({ max_file_size: null, error: expect.stringContaining('→ 500') });
  });

  it('--verbose at --concurrency 4: each line carries its request number, so a 403 stays under the project that got it', async () => {
    sandbox.fault({ path: 'svc-003/push_rule$', status: 403, latency_ms: 200, times: 1 });
    const result = await sandbox.run(['-v', 'push-rule', 'get', '--group', 'acme/team-01/squad-1', '--concurrency', '4', '--continue-on-error', '-o', 'json']);
    sandbox.faults.clear();
    expect(result.code).toBe(9);
    const lines = result.stderr.split('\n').filter((line) => /^\[\d+\] [<>]/.test(line));
    const requests = new Map<string, string[]>();
    for (const line of lines) {
      const [, tag, rest] = /^\[(\d+)\] (.*)$/.exec(line)!;
      requests.set(tag, [...(requests.get(tag) ?? []), rest]);
    }
    const pushRules = [...requests.values()].filter((request) => /^> GET \S+\/push_rule$/.test(request[0]));
    expect(pushRules).toHaveLength(10);
    // One GET per number, its answer under it: the 403 under svc-003's request, a 200 under every other.
    expect(pushRules.map((request) => request.filter((line) => /^> GET /.test(line)).length)).toEqual(Array(10).fill(1));
    expect(pushRules.map((request) => [/svc-003/.test(request[0]), request.find((line) => line.startsWith('< '))?.split(' ')[1]]))
      .toEqual(pushRules.map((request) => (/svc-003/.test(request[0]) ? [true, '403'] : [false, '200'])));
    // The requests were in flight together: another request's lines sit between svc-003's GET and its 403.
    const tag = [...requests].find(([, request]) => /svc-003/.test(request[0]))![0];
    const own = lines.flatMap((line, index) => (line.startsWith(`[${tag}] `) ? [index] : []));
    expect(lines.slice(own[0], own.at(-1)).some((line) => !line.startsWith(`[${tag}] `))).toBe(true);
    expect(result.stderr).not.toContain(sandbox.adminToken);
  });

  it('lists every request with --dry-run and sends none of them', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['push-rule', 'set', '--group', 'acme/team-01/squad-1', '--max-file-size', '5', '--dry-run']);
    expect(result.code).toBe(0);
    const puts = result.stdout.split('\n').filter((line) => line.startsWith('PUT '));
    expect(puts).toEqual(squad1.map((path) => `PUT ${sandbox.url}/projects/${encodeURIComponent(path)}/push_rule`));
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('asks once for the whole fleet: without a terminal it needs --yes, and nothing is deleted without it', async () => {
    sandbox.clearRequests();
    const refused = await sandbox.run(['push-rule', 'delete', '--group', 'acme/team-01/squad-3']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/confirmation needed: .*and run the same command in 9 more projects \(.*\), not read yet\?/);
    expect(sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
  });

  it('refuses selector mistakes before sending anything', async () => {
    sandbox.clearRequests();
    expect((await sandbox.run(['push-rule', 'get', '--project', 'acme/api', '--group', 'acme'])).code).toBe(2);
    expect((await sandbox.run(['push-rule', 'get', '--project', 'acme/api', '--concurrency', '4'])).stderr).toMatch(/--concurrency applies to a fleet of projects/);
    expect((await sandbox.run(['push-rule', 'get', '--group', 'acme', '--concurrency', '0'])).code).toBe(2);
    expect((await sandbox.run(['push-rule', 'get', '--projects-file', '-'], { input: 'acme/*\n' })).stderr).toMatch(/stdin:1: "acme\/\*" is not a project ID or full path/);
    expect(sandbox.requests()).toEqual([]);
  });

  it('honours one project\'s 429 for every worker: nothing is sent until its Retry-After has passed', async () => {
    sandbox.fault({ method: 'GET', path: 'svc-005/push_rule$', status: 429, retry_after: 1 });
    sandbox.clearRequests();
    const result = await sandbox.run(['push-rule', 'get', '--group', 'acme/team-01', '--recursive', '--concurrency', '6', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json()).toHaveLength(30);
    const log = sandbox.faults.log.map((entry) => ({ ...entry, ms: Date.parse(entry.at) }));
    const limited = log.find((entry) => entry.status === 429)!;
    const after = log.filter((entry) => entry.ms > limited.ms);
    // Requests already on their way when the 429 came may arrive after it (on a busy machine tens of milliseconds
    // after): at most one from each of the 5 other workers, and not the retry. None is sent during the wait.
    const onTheirWay = after.filter((entry) => entry.ms < limited.ms + 950);
    expect(onTheirWay.length).toBeLessThanOrEqual(5);
    expect(new Set(onTheirWay.map((entry) => entry.path)).size).toBe(onTheirWay.length);
    expect(onTheirWay.filter((entry) => entry.path === limited.path)).toEqual([]);
    expect(after.length).toBeGreaterThan(onTheirWay.length);
    expect(result.stderr).toMatch(/1 answer 429, honoured/);
  });
});

describe('pacing by the budget the answers announce', () => {
  const tight = useTestSandbox({ fleet: 30, rateLimit: { limit: 25, periodSeconds: 1 } });

  it('waits for the window to reset instead of running into 429s', async () => {
    const result = await tight.run(['push-rule', 'get', '--group', 'acme/team-01', '--recursive', '--concurrency', '8', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json()).toHaveLength(30);
    expect(tight.requests().filter((r) => r.status === 429)).toEqual([]);
    // Whether the budget ran out depends on where in the sandbox's one-second windows the run fell and how fast
    // the machine is (a slow run spreads over windows and never exhausts one). Where a window's 25 were all spent
    // and more requests followed, the run must have waited for the reset, and said so.
    const windows = new Map<number, number>();
    for (const entry of tight.faults.log) {
      const window = Math.floor(Date.parse(entry.at) / 1000);
      windows.set(window, (windows.get(window) ?? 0) + 1);
    }
    const last = Math.max(...windows.keys());
    const exhausted = [...windows].some(([window, count]) => count >= 25 && window < last);
    if (exhausted) expect(result.stderr).toMatch(/waited [\d.]+ s for the rate limit/);
    expect(Math.max(...windows.values())).toBeLessThanOrEqual(25);
  });
});

describe('tokens audit over the whole instance', () => {
  it('reads the token lists of every group and project at once, for administrators only', async () => {
    const soon = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    const created = await sandbox.run(['tokens', 'create', '--project', fleetProjectPath(23), '--name', 'expiring', '--scopes', 'read_api', '--expires-at', soon, '-o', 'json']);
    expect(created.code).toBe(0);
    sandbox.clearRequests();
    const audit = await sandbox.run(['tokens', 'audit', '--instance', '--concurrency', '8', '--expiring-within', '10d', '--no-personal', '-o', 'json']);
    expect(audit.code).toBe(9);
    expect(audit.json()).toEqual([expect.objectContaining({ id: created.json().id, source: `project ${fleetProjectPath(23)}`, days_left: 5 })]);
    // Every project (32) and group (acme, team-01, three squads) was read.
    expect(sandbox.requests().filter((r) => /\/access_tokens\?/.test(r.path))).toHaveLength(32 + 5);
    expect(audit.stderr).toMatch(/attention: 1 token expires within 10d \(by [\d-]+\) in 37 token lists of the instance/);

    const notAdmin = await sandbox.run(['tokens', 'audit', '--instance'], { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('owner') } });
    expect(notAdmin.code).toBe(4);
    expect(notAdmin.stderr).toContain('tokens audit --instance is for administrators');
    expect((await sandbox.run(['tokens', 'audit', '--concurrency', '4'])).code).toBe(2);
  });
});
