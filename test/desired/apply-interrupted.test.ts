/**
 * `apply --failed-to FILE` interrupted (Ctrl-C) half-way: the built forgectl, as a separate process, gets SIGINT while
 * the instance holds back its answer to the first change; what was left (that change, in flight, and those never
 * started) is written to FILE, and a run with --projects-file FILE finishes it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT, startBin, tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const description = (path: string) => sandbox.db.table<{ path_with_namespace: string; description: string }>('projects').find((p) => p.path_with_namespace === path)!.description;

describe.skipIf(!BUILT)('apply --failed-to interrupted by Ctrl-C', () => {
  it('writes what was left as a projects file (exit 130), and --projects-file with it finishes the run', async () => {
    const dir = tempDir();
    const desired = join(dir, 'desired.yaml');
    const left = join(dir, 'left.txt');
    writeFileSync(desired, 'version: 1\nprojects:\n  acme/api:\n    settings: {description: interrupted-api}\n  acme/web:\n    settings: {description: interrupted-web}\n');
    sandbox.fault({ method: 'PUT', path: '/projects/acme%2Fapi$', answer_latency_ms: 60_000, times: 1 });
    const { child, stderr, exited } = startBin(['apply', '-f', desired, '--yes', '--concurrency', '1', '--failed-to', left], sandbox.env());
    await until(() => description('acme/api') === 'interrupted-api');
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr()).toContain(`what is left is in ${left}: run it again with --projects-file ${left}`);
    expect(readFileSync(left, 'utf8').split('\n').filter((line) => line && !line.startsWith('#'))).toEqual(['acme/api', 'acme/web']);
    expect(description('acme/web')).not.toBe('interrupted-web');

    sandbox.faults.clear();
    const rerun = await sandbox.run(['apply', '-f', desired, '--yes', '--projects-file', left]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(description('acme/web')).toBe('interrupted-web');
    expect((await sandbox.run(['plan', '-f', desired])).code).toBe(0);
  }, 60_000);
});

describe.skipIf(!BUILT)('plan --failed-to interrupted by Ctrl-C', () => {
  it('writes what it did not compare and what could not be read (exit 130), to plan again with --projects-file', async () => {
    const dir = tempDir();
    const desired = join(dir, 'desired.yaml');
    const left = join(dir, 'left.txt');
    writeFileSync(desired, 'version: 1\nprojects:\n  acme/api:\n    push_rule: {max_file_size: 31}\n  acme/web:\n    push_rule: {max_file_size: 31}\n');
    // acme/api's push rule may not be read; acme/web's answer is held back until the plan is interrupted.
    sandbox.fault({ path: '^/projects/acme(%2F|/)api/push_rule$', status: 403, times: 1 });
    sandbox.fault({ path: '^/projects/acme(%2F|/)web/push_rule$', answer_latency_ms: 60_000, times: 1 });
    const { child, stderr, exited } = startBin(['plan', '-f', desired, '--concurrency', '1', '--failed-to', left], sandbox.env());
    await until(() => sandbox.faults.list().length === 0);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr()).toContain('done: 1 of 2 projects (project acme/api)\n  in flight: 1 (project acme/web)');
    expect(stderr()).toContain(`what is left is in ${left}: run it again with --projects-file ${left}`);
    expect(readFileSync(left, 'utf8').split('\n').filter((line) => line && !line.startsWith('#')).sort()).toEqual(['acme/api', 'acme/web']);

    sandbox.faults.clear();
    // Interrupted before it knows the projects and groups, it has no list of what is left: the file is not written.
    const early = join(dir, 'early.txt');
    sandbox.fault({ path: '^/projects/acme(%2F|/)api$', answer_latency_ms: 60_000, times: 1 });
    const before = startBin(['plan', '-f', desired, '--concurrency', '1', '--failed-to', early], sandbox.env());
    await until(() => sandbox.faults.list().length === 0);
    before.child.kill('SIGINT');
    expect(await before.exited).toBe(130);
    expect(before.stderr()).toBe(`interrupted by SIGINT: stopped part-way\n  nothing was compared yet, so ${early} was not written: run the same command again\n`);
    expect(existsSync(early)).toBe(false);

    sandbox.faults.clear();
    const rerun = await sandbox.run(['plan', '-f', desired, '--projects-file', left, '-o', 'json']);
    expect(rerun.code, rerun.stderr).toBe(9);
    expect(new Set(rerun.json<{ changes: Array<{ path: string }> }>().changes.map((change) => change.path))).toEqual(new Set(['acme/api', 'acme/web']));
  }, 60_000);
});

describe('apply --failed-to interrupted at its question', () => {
  it('lists every project and group with a change: nothing was applied yet', async () => {
    const dir = tempDir();
    const desired = join(dir, 'desired.yaml');
    const left = join(dir, 'left.txt');
    writeFileSync(desired, 'version: 1\nprojects:\n  acme/api:\n    settings: {description: asked-api}\n  acme/web:\n    settings: {description: asked-web}\n');
    let interrupt = (_signal: 'SIGINT') => undefined as void;
    const interrupted = new Promise<'SIGINT'>((resolve) => (interrupt = resolve));
    const running = sandbox.run(['apply', '-f', desired, '--failed-to', left], { tty: true, interrupted });
    // At the question: both projects planned, and no request for a while.
    let seen = 0;
    let quietSince = Date.now();
    await until(() => {
      const count = sandbox.requests().length;
      if (count !== seen) [seen, quietSince] = [count, Date.now()];
      return sandbox.requests().some((request) => request.path.includes('acme%2Fweb')) && Date.now() - quietSince > 500;
    });
    interrupt('SIGINT');
    const result = await running;
    expect(result.code, result.stderr).toBe(130);
    expect(readFileSync(left, 'utf8').split('\n').filter((line) => line && !line.startsWith('#')).sort()).toEqual(['acme/api', 'acme/web']);
    expect(description('acme/api')).not.toBe('asked-api');
  });
});
