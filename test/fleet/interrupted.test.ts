/**
 * A fleet command with --failed-to interrupted by Ctrl-C: the built forgectl, as a separate process, gets SIGINT
 * while the instance holds back its answer to one project; the projects that did not succeed (that one, in flight,
 * and those never started) are written to the file, and --projects-file with it finishes the run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT, startBin, tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox({ fleet: 4 });

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const PROJECTS = ['acme/api', 'acme/web', 'acme/team-01/squad-1/svc-001', 'acme/team-01/squad-1/svc-002'];

/** The projects whose push rule has the size limit the run sets. */
function limited(): string[] {
  const ids = new Set(sandbox.db.table<{ project_id: number; max_file_size: number }>('push_rules').filter((rule) => rule.max_file_size === 12).map((rule) => rule.project_id));
  return sandbox.db.table<{ id: number; path_with_namespace: string }>('projects').filter((project) => ids.has(project.id)).map((project) => project.path_with_namespace);
}

describe.skipIf(!BUILT)('a fleet command with --failed-to interrupted by Ctrl-C', () => {
  it('writes the projects that did not succeed as a projects file (exit 130), and --projects-file with it finishes the run', async () => {
    const dir = tempDir();
    const list = join(dir, 'projects.txt');
    const left = join(dir, 'left.txt');
    writeFileSync(list, PROJECTS.join('\n') + '\n');
    // The second project's push rule is read, and its answer held back: the first is done, the others never start.
    sandbox.fault({ path: '^/projects/acme(%2F|/)web/push_rule$', answer_latency_ms: 60_000, times: 1 });
    const args = ['push-rule', 'set', '--projects-file', list, '--max-file-size', '12', '--concurrency', '1', '--yes', '--failed-to', left];
    const { child, stderr, exited } = startBin([...args], sandbox.env());
    await until(() => sandbox.faults.list().length === 0);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr()).toContain(`what is left is in ${left}: run it again with --projects-file ${left}`);
    expect(limited()).toEqual(['acme/api']);
    expect(readFileSync(left, 'utf8')).toBe(`# 3 projects failed or not finished; rerun them with --projects-file ${left}\n${PROJECTS.slice(1).join('\n')}\n`);

    const rerun = await sandbox.run(['push-rule', 'set', '--projects-file', left, '--max-file-size', '12', '--yes']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(limited().sort()).toEqual([...PROJECTS].sort());
  }, 60_000);
});
