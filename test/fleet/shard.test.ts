import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { RateGate } from '../../src/http/rate-gate.js';
import { resolveShard, shardOf, startBudget } from '../../src/fleet/shard.js';
import { fleetProjectPath } from '../../src/sandbox/seed.js';
import { startTestSandbox, tempDir, tempFile, useTestSandbox, type TestSandbox } from '../helpers/cli.js';

// 40 fleet projects in acme/team-01/squad-1 … squad-4 beside the demo's acme/api and acme/web.
const sandbox = useTestSandbox({ fleet: 40 });
const dir = tempDir();
const fleet = Array.from({ length: 40 }, (_, i) => fleetProjectPath(i + 1));

const file = (name: string, text: string): string => tempFile(text, name, dir);

const DESIRED = file('desired.yaml', `version: 1
target: acme/**
projects:
  "*":
    push_rule: {max_file_size: 20, deny_delete_tag: true}
    badges:
      - {name: pipeline, link_url: "https://ci.example.com/%{project_path}", image_url: "https://ci.example.com/%{project_path}/badge.svg"}
  acme/team-01/squad-2/**:
    push_rule: {max_file_size: 50}
groups:
  acme/**:
    integrations:
      bugzilla: {issues_url: "https://bugs.example.com/show_bug.cgi?id=:id", project_url: "https://bugs.example.com", new_issue_url: "https://bugs.example.com/new"}
instance:
  application_settings: {max_attachment_size: 300}
`);

const SHARD_COUNTS = [1, 3, 7];
const shardsOf = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1}/${n}`);
/** Records in a canonical order, to compare the union of shards with the whole run as sets. */
const sorted = (rows: unknown[]) => rows.map((row) => JSON.stringify(row)).sort();

describe('which shard a project falls in', () => {
  it('depends on its full path and the number of shards only, every path in exactly one shard', () => {
    const paths = Array.from({ length: 2000 }, (_, i) => fleetProjectPath(i + 1));
    for (const total of [1, 2, 3, 7, 8]) {
      const counts = new Array(total + 1).fill(0);
      for (const path of paths) counts[shardOf(path, total)]++;
      expect(counts[0]).toBe(0);
      // Balanced within a few percent of an even share.
      for (let shard = 1; shard <= total; shard++) expect(Math.abs(counts[shard] - 2000 / total)).toBeLessThan(2000 / total / 5);
    }
    expect(shardOf('ACME/Api', 8)).toBe(shardOf('acme/api', 8));
    // Rendezvous: going from 8 shards to 9 moves only the projects the new shard takes.
    const moved = paths.filter((path) => shardOf(path, 9) !== shardOf(path, 8));
    expect(moved.every((path) => shardOf(path, 9) === 9)).toBe(true);
    expect(moved.length).toBeLessThan(2000 / 9 * 1.3);
    expect(shardOf('', 8)).toBe(1); // the instance's settings
  });

  it('reads the shard from --shard, an Indexed Job or a parallel CI job, and refuses bad values', () => {
    expect(resolveShard({}, {})).toBeUndefined();
    expect(resolveShard({}, { CI_NODE_TOTAL: '1' })).toBeUndefined(); // every CI job has a total of 1
    expect(resolveShard({}, { CI_NODE_INDEX: '3', CI_NODE_TOTAL: '8' })).toMatchObject({ index: 3, total: 8 });
    expect(resolveShard({}, { JOB_COMPLETION_INDEX: '0', FORGECTL_SHARD_TOTAL: '4' })).toMatchObject({ index: 1, total: 4 });
    expect(resolveShard({ shardTotal: 4 }, { JOB_COMPLETION_INDEX: '3' })).toMatchObject({ index: 4, total: 4 });
    expect(resolveShard({ shard: { index: 2, total: 2 } }, { CI_NODE_INDEX: '3', CI_NODE_TOTAL: '8' })).toMatchObject({ index: 2, total: 2, source: '--shard' });
    expect(() => resolveShard({}, { JOB_COMPLETION_INDEX: '4', FORGECTL_SHARD_TOTAL: '4' })).toThrow(/JOB_COMPLETION_INDEX must be between 0 and 3, got 4/);
    expect(() => resolveShard({}, { JOB_COMPLETION_INDEX: '1' })).toThrow(/not how many shards there are/);
    expect(() => resolveShard({}, { CI_NODE_INDEX: '0', CI_NODE_TOTAL: '8' })).toThrow(/CI_NODE_INDEX must be between 1 and 8, got 0/);
    expect(() => resolveShard({}, { CI_NODE_INDEX: 'x', CI_NODE_TOTAL: '8' })).toThrow(/CI_NODE_INDEX must be a whole number/);
    expect(() => resolveShard({ shardTotal: 3 }, {})).toThrow(/--shard-total goes with JOB_COMPLETION_INDEX/);
  });

  it('exits 2 for a bad --shard before sending anything, and says which shard a run is', async () => {
    sandbox.clearRequests();
    for (const bad of ['0/4', '5/4', '2', 'a/b', '1/0']) {
      const result = await sandbox.run(['push-rule', 'get', '--group', 'acme', '--recursive', '--shard', bad]);
      expect(result.code, bad).toBe(2);
      expect(result.stderr).toMatch(/^error: --shard/m);
    }
    expect((await sandbox.run(['push-rule', 'get', '--project', 'acme/api', '--shard', '1/2'])).stderr).toMatch(/--shard applies to a fleet of projects/);
    expect((await sandbox.run(['badges', 'list', '--group', 'acme', '--recursive'], { env: { CI_NODE_INDEX: '9', CI_NODE_TOTAL: '8' } })).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
    const result = await sandbox.run(['badges', 'list', '--group', 'acme', '--recursive', '-o', 'json'], { env: { CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3' } });
    expect(result.code).toBe(0);
    const mine = [...fleet, 'acme/api', 'acme/web'].filter((path) => shardOf(path, 3) === 2);
    expect(result.stderr).toContain(`shard 2 of 3 (CI_NODE_INDEX=2, CI_NODE_TOTAL=3): ${mine.length} of 42 projects`);
  });

  it('exits 0 with a line saying so when its shard selects nothing', async () => {
    const only = 'acme/api';
    const other = (shardOf(only, 4) % 4) + 1;
    const result = await sandbox.run(['push-rule', 'get', '--group', 'acme', '--match', only, '--shard', `${other}/4`, '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`shard ${other} of 4 has nothing to do`);
    expect(result.json()).toEqual([]);
  });
});

describe('the union of the shards is the whole run, for every fleet command', () => {
  it('a project command with a fleet selector, and hooks audit', async () => {
    for (const path of [fleet[2], fleet[17], fleet[33], 'acme/web']) {
      expect((await sandbox.run(['hooks', 'create', '--project', path, '--url', `http://hooks.example.com/${path.split('/').pop()}`, '--events', 'push'])).code).toBe(0);
    }
    for (const argv of [
      ['push-rule', 'get', '--group', 'acme', '--recursive'],
      ['badges', 'list', '--group', 'acme', '--recursive'],
      ['hooks', 'audit', '--group', 'acme', '--recursive'],
    ]) {
      const whole = await sandbox.run([...argv, '-o', 'json']);
      for (const n of SHARD_COUNTS) {
        const parts = await Promise.all(shardsOf(n).map((shard) => sandbox.run([...argv, '--shard', shard, '-o', 'json'])));
        // A shard without findings exits 0; the job fails when any shard does.
        expect(Math.max(...parts.map((part) => part.code)), argv.join(' ')).toBe(whole.code);
        expect(sorted(parts.flatMap((part) => part.json<unknown[]>())), `${argv.join(' ')} in ${n}`).toEqual(sorted(whole.json()));
      }
    }
  });

  it('plan, and plan merge of the shards\' plans', async () => {
    const whole = await sandbox.run(['plan', '-f', DESIRED, '-o', 'json']);
    expect(whole.code).toBe(9);
    const single = whole.json();
    expect(single.summary).toMatchObject({ projects: 42, groups: 5, instance: 1 });
    for (const n of SHARD_COUNTS) {
      const outs = shardsOf(n).map((_, i) => join(dir, `plan-${n}-${i + 1}.json`));
      const parts = await Promise.all(shardsOf(n).map((shard, i) => sandbox.run(['plan', '-f', DESIRED, '--shard', shard, '--out', outs[i], '-o', 'json'])));
      expect(sorted(parts.flatMap((part) => part.json().changes))).toEqual(sorted(single.changes));
      const merged = await sandbox.run(['plan', 'merge', ...outs.reverse(), '-o', 'json']);
      expect(merged.code).toBe(9);
      // Exactly the single run's changes, in its order.
      expect(merged.json().changes).toEqual(single.changes);
      expect(merged.json().summary).toEqual(single.summary);
    }
  });

  it('plan merge of 4 shard plans as text: exit 9 and the single run\'s plan, line for line', async () => {
    const whole = await sandbox.run(['plan', '-f', DESIRED]);
    const outs = shardsOf(4).map((_, i) => join(dir, `text-${i + 1}.json`));
    for (const [i, shard] of shardsOf(4).entries()) expect((await sandbox.run(['plan', '-f', DESIRED, '--shard', shard, '--out', outs[i]])).code).toBe(9);
    const merged = await sandbox.run(['plan', 'merge', ...outs, '--out', join(dir, 'merged.json')]);
    expect(merged.code).toBe(9);
    expect(merged.stdout).toBe(whole.stdout);
    expect(merged.stdout).toMatch(/Plan: .* in 42 of 42 projects, 5 of 5 groups and the instance\./);

    const missing = await sandbox.run(['plan', 'merge', outs[0], outs[2]]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('error: the plans are incomplete: shards 2, 4 of 4 are missing');
    expect((await sandbox.run(['plan', 'merge', outs[0], outs[0], outs[1], outs[2], outs[3]])).stderr).toMatch(/are both the plan of shard 1 of 4/);
    const other = file('other.yaml', readFileSync(DESIRED, 'utf8').replace('max_file_size: 50', 'max_file_size: 60'));
    const otherPlan = join(dir, 'other-2.json');
    await sandbox.run(['plan', '-f', other, '--shard', '2/4', '--out', otherPlan]);
    expect((await sandbox.run(['plan', 'merge', outs[0], otherPlan, outs[2], outs[3]])).stderr).toMatch(/were made from different desired-state files/);
    const elsewhere = JSON.parse(readFileSync(outs[1], 'utf8'));
    const moved = file('elsewhere-2.json', JSON.stringify({ ...elsewhere, server: 'https://other.example.com/api/v4' }));
    expect((await sandbox.run(['plan', 'merge', outs[0], moved, outs[2], outs[3]])).stderr).toMatch(/were made for different instances/);
    expect((await sandbox.run(['plan', 'merge', outs[0], join(dir, 'merged.json')])).stderr).toMatch(/is not the plan of a shard/);
  });

  it('refuses a hand-edited shard plan in plan merge and apply, naming the shard and the change, even with its digests made again', async () => {
    const outs = shardsOf(3).map((_, i) => join(dir, `edit-${i + 1}.json`));
    const made = await Promise.all(shardsOf(3).map((shard, i) => sandbox.run(['plan', '-f', DESIRED, '--shard', shard, '--out', outs[i]])));
    const digests = outs.map((out) => JSON.parse(readFileSync(out, 'utf8')).changes_digest as string);
    // Each job's output names the digest of what it planned.
    made.forEach((run, i) => expect(run.stderr).toContain(`plan saved to ${outs[i]} (changes digest ${digests[i]})`));
    const original = JSON.parse(readFileSync(outs[1], 'utf8'));
    const index = original.changes.findIndex((c: { section: string; action: string }) => c.section === 'badges' && c.action === 'create');
    const badge = original.changes[index];
    const edited = structuredClone(original);
    edited.changes[index].desired.link_url = 'https://evil.invalid/x';
    const tampered = file('edit-2t.json', JSON.stringify(edited, null, 2));
    const label = `change ${index + 1} (project ${badge.path}: badge "pipeline")`;

    const merge = await sandbox.run(['plan', 'merge', outs[0], tampered, outs[2], '--out', join(dir, 'edit-merged.json')]);
    expect(merge.code).toBe(2);
    expect(merge.stderr).toContain(`error: ${tampered} (shard 2 of 3): ${label} was edited after the plan was made: it does not match the digest recorded for it; nothing was applied`);
    const apply = await sandbox.run(['apply', '-f', tampered, '--yes']);
    expect(apply.code).toBe(2);
    expect(apply.stderr).toContain(`${label} was edited after the plan was made`);

    // The digests made again to match the edit: the change no longer follows from the desired-state file.
    const { createHash } = await import('node:crypto');
    const canonical = (value: unknown): string => Array.isArray(value) ? `[${value.map(canonical).join(',')}]` : value && typeof value === 'object' ? `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}` : JSON.stringify(value ?? null);
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    edited.change_digests = edited.changes.map((change: unknown) => sha(canonical(change)));
    edited.changes_digest = sha(canonical(edited.change_digests.join('\n')));
    const forged = file('edit-2f.json', JSON.stringify(edited, null, 2));
    const forgedMerge = await sandbox.run(['plan', 'merge', outs[0], forged, outs[2]]);
    expect(forgedMerge.code).toBe(2);
    expect(forgedMerge.stderr).toContain(`error: ${forged} (shard 2 of 3): ${label} does not follow from ${DESIRED}: the values it would send are not those the file declares; nothing was applied`);
    sandbox.clearRequests();
    const forgedApply = await sandbox.run(['apply', '-f', forged, '--yes']);
    expect(forgedApply.code).toBe(2);
    expect(forgedApply.stderr).toContain('does not follow from');
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);

    // The untouched plans merge, and the merged plan names its digest.
    const merged = await sandbox.run(['plan', 'merge', ...outs, '--out', join(dir, 'edit-merged.json')]);
    expect(merged.code).toBe(9);
    expect(merged.stderr).toMatch(/merged the plans of 3 shards \(changes digest [0-9a-f]{64}\)/);
  });

  it('export', async () => {
    const whole = (await sandbox.run(['export', '--group', 'acme', '--recursive', '-o', 'json'])).json();
    for (const n of SHARD_COUNTS) {
      const parts = await Promise.all(shardsOf(n).map((shard) => sandbox.run(['export', '--group', 'acme', '--recursive', '--shard', shard, '-o', 'json'])));
      const union: Record<string, Record<string, unknown>> = { projects: {}, groups: {} };
      for (const part of parts) for (const key of ['projects', 'groups']) Object.assign(union[key], part.json()[key] ?? {});
      expect(union.projects).toEqual(whole.projects);
      expect(union.groups).toEqual(whole.groups);
      expect(Object.keys(union.projects)).toHaveLength(42);
    }
  });

  it('tokens audit --instance', async () => {
    const soon = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    for (const path of [fleet[5], fleet[25], 'acme/api']) {
      expect((await sandbox.run(['tokens', 'create', '--project', path, '--name', 'soon', '--scopes', 'read_api', '--expires-at', soon])).code).toBe(0);
    }
    const argv = ['tokens', 'audit', '--instance', '--expiring-within', '10d', '-o', 'json'];
    const whole = await sandbox.run(argv);
    expect(whole.json().length).toBeGreaterThanOrEqual(3);
    for (const n of SHARD_COUNTS) {
      const parts = await Promise.all(shardsOf(n).map((shard) => sandbox.run([...argv, '--shard', shard])));
      expect(sorted(parts.flatMap((part) => part.json<unknown[]>()))).toEqual(sorted(whole.json()));
    }
  });
});

describe('apply by shards', () => {
  const boxes: TestSandbox[] = [];
  afterAll(async () => {
    for (const box of boxes) await box.close();
  });

  it('makes the same changes as one apply, from the file or from a merged plan applied by every shard', async () => {
    const fresh = async () => {
      const box = await startTestSandbox({ fleet: 40 });
      boxes.push(box);
      return box;
    };
    const one = await fresh();
    const whole = await one.run(['apply', '-f', DESIRED, '--yes', '-o', 'json']);
    expect(whole.code).toBe(0);
    for (const n of SHARD_COUNTS) {
      const box = await fresh();
      const parts = await Promise.all(shardsOf(n).map((shard) => box.run(['apply', '-f', DESIRED, '--shard', shard, '--yes', '-o', 'json'])));
      expect(parts.map((part) => part.code)).toEqual(parts.map(() => 0));
      expect(sorted(parts.flatMap((part) => part.json<unknown[]>()))).toEqual(sorted(whole.json()));
      expect((await box.run(['plan', '-f', DESIRED])).code).toBe(0);
    }
    // A merged plan, applied by the jobs of a parallel CI job: each applies its part.
    const box = await fresh();
    const outs = shardsOf(3).map((_, i) => join(dir, `apply-${i + 1}.json`));
    for (const [i, shard] of shardsOf(3).entries()) await box.run(['plan', '-f', DESIRED, '--shard', shard, '--out', outs[i]]);
    const merged = join(dir, 'apply-merged.json');
    expect((await box.run(['plan', 'merge', ...outs, '--out', merged])).code).toBe(9);
    const parts = await Promise.all([1, 2, 3].map((index) => box.run(['apply', '-f', merged, '--yes', '-o', 'json'], { env: { CI_NODE_INDEX: String(index), CI_NODE_TOTAL: '3' } })));
    expect(sorted(parts.flatMap((part) => part.json<unknown[]>()))).toEqual(sorted(whole.json()));
    expect((await box.run(['plan', '-f', DESIRED])).code).toBe(0);
  });
});

describe('resuming a large run', () => {
  it('--failed-to writes the projects that failed; --projects-file reruns only those', async () => {
    sandbox.fault({ method: 'GET', path: `${fleet[7].split('/').pop()}/push_rule$`, status: 500, times: 10 });
    sandbox.fault({ method: 'GET', path: `${fleet[30].split('/').pop()}/push_rule$`, status: 500, times: 10 });
    const failedTo = join(dir, 'failed.txt');
    const first = await sandbox.run(['push-rule', 'get', '--group', 'acme', '--recursive', '--continue-on-error', '--failed-to', failedTo, '-o', 'json']);
    expect(first.code).toBe(9);
    const listed = readFileSync(failedTo, 'utf8').split('\n').filter((line) => line && !line.startsWith('#'));
    expect(listed.sort()).toEqual([fleet[7], fleet[30]].sort());
    sandbox.faults.clear();
    sandbox.clearRequests();
    const rerun = await sandbox.run(['push-rule', 'get', '--projects-file', failedTo, '--failed-to', failedTo, '-o', 'json']);
    expect(rerun.code).toBe(0);
    expect(rerun.json().map((row: { project: string }) => row.project).sort()).toEqual([fleet[7], fleet[30]].sort());
    expect(sandbox.requests().filter((r) => /push_rule/.test(r.path))).toHaveLength(2);
    expect(readFileSync(failedTo, 'utf8')).toMatch(/^# 0 projects failed/);

    sandbox.fault({ method: 'GET', path: `${fleet[11].split('/').pop()}/protected_tags`, status: 500, times: 10 });
    sandbox.fault({ method: 'GET', path: `${fleet[11].split('/').pop()}/push_rule$`, status: 500, times: 10 });
    const planFailed = join(dir, 'plan-failed.txt');
    const plan = await sandbox.run(['plan', '-f', DESIRED, '--failed-to', planFailed, '-o', 'json']);
    expect(plan.code).toBe(9);
    expect(readFileSync(planFailed, 'utf8').split('\n').filter((line) => line && !line.startsWith('#'))).toEqual([fleet[11]]);
    sandbox.faults.clear();
    const again = await sandbox.run(['plan', '-f', DESIRED, '--projects-file', planFailed, '-o', 'json']);
    expect(again.json().summary).toMatchObject({ owners: 1, projects: 1, groups: 0, instance: 0, failures: 0 });
    // A line that names nothing the file declares is said, not silently dropped.
    const typo = await sandbox.run(['plan', '-f', DESIRED, '--projects-file', '-', '-o', 'json'], { input: `${fleet[11]}\nacme/team-01/no-such-svc\n` });
    expect(typo.json().summary).toMatchObject({ owners: 1, projects: 1 });
    expect(typo.stderr).toContain('note: acme/team-01/no-such-svc, listed in stdin, is not among the projects and groups the file declares something for: left out\n');
  });

  it('a saved plan with a project it could not read applies the rest and exits 9, naming that project in --failed-to', async () => {
    const box = await startTestSandbox({ fleet: 40 });
    onTestFinished(() => box.close());
    const unread = fleet[11];
    box.fault({ method: 'GET', path: `${unread.split('/').pop()}/push_rule$`, status: 500, times: 10 });
    const planned = join(dir, 'unread-plan.json');
    expect((await box.run(['plan', '-f', DESIRED, '--out', planned, '--retries', '0'])).code).toBe(9);
    box.faults.clear();
    const failedTo = join(dir, 'unread-failed.txt');
    const applied = await box.run(['apply', '-f', planned, '--yes', '--failed-to', failedTo]);
    expect(applied.code).toBe(9);
    expect(applied.stderr).toContain(`not applied: the plan could not read project ${unread}`);
    expect(applied.stderr).toMatch(/^attention: Applied: \d+ done, 1 could not be read\. Failed: acme\/team-01\/squad-2\/svc-012$/m);
    expect(readFileSync(failedTo, 'utf8').split('\n').filter((line) => line && !line.startsWith('#'))).toEqual([unread]);
    // Its shard's job says so too; the other shards' jobs do not.
    const parts = await Promise.all([1, 2, 3].map((index) => box.run(['apply', '-f', planned, '--yes'], { env: { CI_NODE_INDEX: String(index), CI_NODE_TOTAL: '3' } })));
    expect(parts.filter((part) => part.stderr.includes(unread)).map((part) => part.code)).toEqual([9]);
    // The project planned again on its own shows what is left to apply there.
    const rest = await box.run(['plan', '-f', DESIRED, '--projects-file', failedTo]);
    expect(rest.code).toBe(9);
    expect(rest.stdout).toContain(`project ${unread}\n`);
  });
});

describe('one rate budget for the whole job', () => {
  it('spaces the requests of each shard by its share of --rate-limit', async () => {
    let now = 1_000_000;
    const slept: number[] = [];
    const gate = new RateGate(() => now, async (ms) => {
      slept.push(ms);
      now += ms;
    });
    // 120 a minute for 4 shards: this one sends 30 a minute, one every 2 s.
    expect(startBudget(gate, 8, { limit: 120, periodSeconds: 60 }, { index: 2, total: 4, source: '--shard' })).toBe("rate limit: 30 requests a minute, this shard's share of 120");
    await Promise.all([gate.wait(), gate.wait(), gate.wait()]);
    expect(slept).toEqual([2000, 2000]);
    expect(now).toBe(1_004_000);
  });

  it('keeps shards started together within the budget of the whole job', async () => {
    const since = Date.now();
    const parts = await Promise.all(shardsOf(3).map((shard) => sandbox.run(['push-rule', 'get', '--group', 'acme', '--recursive', '--shard', shard, '--rate-limit', '20/1', '--concurrency', '8', '-o', 'json'])));
    expect(parts.flatMap((part) => part.json<unknown[]>())).toHaveLength(42);
    expect(parts[0].stderr).toContain("rate limit: 6.67 requests per 1 s, this shard's share of 20");
    const times = sandbox.faults.log.map((entry) => Date.parse(entry.at)).filter((at) => at >= since).sort((a, b) => a - b);
    expect(times.length).toBeGreaterThanOrEqual(42);
    // 42 push rules and the lists at 20 a second for the whole job: no second holds many more.
    const busiest = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 1000).length));
    // Unpaced, all of them arrive within a fraction of a second; paced, a second holds the budget, the three lists
    // (sent before the pacing starts) and what a busy machine may bunch together.
    expect(busiest).toBeLessThanOrEqual(30);
  });
});
