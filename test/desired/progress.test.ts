import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { fleetProjectPath } from '../../src/sandbox/seed.js';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

/**
 * What a long plan, apply or fleet run says while it works and when it is stopped: progress only at a terminal
 * (tested on a pseudo-terminal in test/e2e/terminal.test.ts), nothing in a pipe; the summary after the output;
 * Ctrl-C says which projects or changes were done, in flight and never started; a saved plan with nothing to do
 * says so.
 */

const sandbox = useTestSandbox({ fleet: 6 });
const dir = tempDir();
const fleet = Array.from({ length: 6 }, (_, i) => fleetProjectPath(i + 1));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const BADGES = file('badges.yaml', `version: 1\ntarget: acme/team-01/**\nprojects:\n  "*":\n    badges:\n      - {name: progress, link_url: "https://ci.example.com/%{project_path}", image_url: "https://ci.example.com/b.svg"}\n`);

class Pipe extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

/** Starts a run that Ctrl-C interrupts once `ready` says so. */
async function interruptWhen(argv: string[], ready: () => boolean) {
  let interrupt!: (signal: 'SIGINT') => void;
  const interrupted = new Promise<'SIGINT'>((resolve) => (interrupt = resolve));
  const stdout = new Pipe();
  const stderr = new Pipe();
  const code = main(argv, { env: sandbox.env(), stdin: Readable.from([]), stdout, stderr, interrupted });
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 10));
  interrupt('SIGINT');
  return { code: await code, stdout: stdout.text, stderr: stderr.text };
}

const posted = (project: string) => sandbox.requests().some((r) => r.method === 'POST' && decodeURIComponent(r.path).includes(`${project}/badges`));

describe('progress and interruptions of long runs', () => {
  it('in a pipe: no spinner, and the summary of a fleet run comes after its rows', async () => {
    const plan = await sandbox.run(['plan', '-f', BADGES]);
    expect(plan.code).toBe(9);
    expect(plan.stderr).not.toMatch(/planning|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    const listed = await sandbox.run(['badges', 'list', '--group', 'acme/team-01', '--recursive']);
    expect(listed.stderr).toMatch(/^6 projects: 6 ok in [\d.]+ s at concurrency 4\n$/);
    const quiet = await sandbox.run(['badges', 'list', '--group', 'acme/team-01', '--recursive', '--quiet']);
    expect(quiet.stderr).toBe('');
  });

  it('at a terminal the summary of a fleet run and of apply comes after the table', async () => {
    const screen = Object.assign(new Pipe(), { isTTY: true, columns: 200 });
    const run = (argv: string[]) => main(argv, { env: sandbox.env(), stdin: Object.assign(Readable.from([]), { isTTY: false }), stdout: screen, stderr: screen });
    expect(await run(['badges', 'list', '--group', 'acme/team-01', '--recursive'])).toBe(0);
    const summary = screen.text.search(/6 projects: 6 ok in/);
    expect(summary).toBeGreaterThan(screen.text.lastIndexOf(fleet[5]));
    screen.text = '';
    const oneBadge = file('one-badge.yaml', `version: 1\nprojects:\n  acme/api:\n    badges:\n      - {name: terminal, link_url: "https://ci.example.com/t", image_url: "https://ci.example.com/t.svg"}\n`);
    expect(await run(['apply', '-f', oneBadge, '--yes'])).toBe(0);
    expect(screen.text).toContain('badge "terminal"');
    expect(screen.text.trimEnd().split('\n').pop()).toBe('Applied: 1 done.');
  });

  it('Ctrl-C during apply: exit 130, the changes done, in flight and never started', async () => {
    sandbox.clearRequests();
    sandbox.fault({ method: 'POST', path: `${fleet[2].split('/').pop()}/badges$`, answer_latency_ms: 5000 });
    const run = await interruptWhen(['apply', '-f', BADGES, '--yes', '--concurrency', '1'], () => posted(fleet[2]));
    sandbox.faults.clear();
    expect(run.code).toBe(130);
    const label = (n: number) => `project ${fleet[n]}: badge "progress"`;
    expect(run.stderr.slice(run.stderr.indexOf('interrupted by'))).toBe([
      `interrupted by SIGINT: output is incomplete: 2 records written; POST /projects/${encodeURIComponent(fleet[2])}/badges was sent; whether the server acted on it is unknown`,
      `  done: 2 of 6 changes (${label(0)}, ${label(1)})`,
      `  in flight: 1 (${label(2)})`,
      `  never started: 3 (${label(3)}, ${label(4)}, ${label(5)})`,
      '',
    ].join('\n'));
  });

  it('Ctrl-C during a fleet command: exit 130, the projects done, in flight and never started', async () => {
    // Projects 2 and 3 are slow: with two at a time, 1 is done, 2 and 3 are in flight, 4 to 6 never start.
    for (const n of [1, 2]) sandbox.fault({ method: 'GET', path: `${fleet[n].split('/').pop()}/badges$`, latency_ms: 5000 });
    // (The sandbox logs a request once answered: the run is interrupted after a while instead.)
    const started = Date.now();
    const run = await interruptWhen(['badges', 'list', '--group', 'acme/team-01', '--recursive', '--concurrency', '2'], () => Date.now() - started > 600);
    sandbox.faults.clear();
    expect(run.code).toBe(130);
    const block = run.stderr.slice(run.stderr.indexOf('interrupted by'));
    // The rows of the first project were written (its badges).
    expect(block).toMatch(/^interrupted by SIGINT: output is incomplete: \d+ records? written\n/);
    expect(block.slice(block.indexOf('\n') + 1)).toBe([
      `  done: 1 of 6 projects (${fleet[0]})`,
      `  in flight: 2 (${fleet[1]}, ${fleet[2]})`,
      `  never started: 3 (${fleet[3]}, ${fleet[4]}, ${fleet[5]})`,
      '',
    ].join('\n'));
  });

  it('a saved plan with no changes says there is nothing to do; an empty shard says only that', async () => {
    // What the interrupted apply left undone, done now: the plan then has no changes.
    expect((await sandbox.run(['apply', '-f', BADGES, '--yes'])).code).toBe(0);
    const saved = join(dir, 'empty.json');
    expect((await sandbox.run(['plan', '-f', BADGES, '--out', saved])).code).toBe(0);
    const applied = await sandbox.run(['apply', '-f', saved, '--yes']);
    expect(applied.code).toBe(0);
    expect(applied.stderr).toMatch(/the plan has no changes: nothing to do\n$/);
    expect(applied.stderr).not.toContain('Nothing to compare');
    // A plan with changes in one project, applied by two shards: the other shard says it has nothing to do, once.
    expect((await sandbox.run(['badges', 'delete', '--project', fleet[0], '--yes', ...(await badgeId(fleet[0]))])).code).toBe(0);
    const one = join(dir, 'one.json');
    expect((await sandbox.run(['plan', '-f', BADGES, '--out', one])).code).toBe(9);
    const shards = await Promise.all([1, 2].map((index) => sandbox.run(['apply', '-f', one, '--yes', '--shard', `${index}/2`])));
    const idle = shards.find((shard) => shard.stderr.includes('has nothing to do'))!;
    expect(idle.stderr).not.toContain('Nothing to compare');
    expect(idle.stderr).not.toContain('nothing to do\nthe plan');
  });
});

async function badgeId(project: string): Promise<string[]> {
  const badges = (await sandbox.run(['badges', 'list', '--project', project, '-o', 'json'])).json<Array<{ id: number; name: string }>>();
  return [String(badges.find((badge) => badge.name.startsWith('progress'))!.id)];
}
