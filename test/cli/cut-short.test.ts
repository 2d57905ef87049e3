import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox({ users: 20 });

/**
 * stdout of a pipe: records what was written; `closeAfter` writes, it goes away as `head -1` does (EPIPE), or fails
 * with another error (`> out.json` on a full disk: ENOSPC).
 */
class Pipe extends Writable {
  text = '';
  writes = 0;
  constructor(
    private readonly closeAfter = Infinity,
    private readonly failure = 'EPIPE',
  ) {
    super();
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.writes++ >= this.closeAfter) return callback(Object.assign(new Error(`write ${this.failure}`), { code: this.failure, syscall: 'write' }));
    this.text += chunk.toString();
    callback();
  }
}

function start(argv: string[], options: { stdout?: Pipe; interrupted?: Promise<'SIGINT' | 'SIGTERM'> } = {}) {
  const stdout = options.stdout ?? new Pipe();
  const stderr = new Pipe();
  const code = main(argv, { env: sandbox.env(), stdin: Readable.from([]), stdout, stderr, interrupted: options.interrupted });
  return { code, stdout, stderr };
}

describe('output cut short', () => {
  it('a list whose page 3 fails under --all: the JSON array is closed and stderr says how much was written', async () => {
    sandbox.fault({ method: 'GET', path: '^/users$', query: '(^|&)page=3(&|$)', status: 500, times: 10 });
    const run = start(['--retries', '0', 'users', 'list', '--all', '--per-page', '5', '-o', 'json']);
    expect(await run.code).toBe(8);
    sandbox.faults.clear();
    expect(JSON.parse(run.stdout.text)).toHaveLength(10);
    expect(run.stderr.text).toBe('error: 500 Injected fault (GET /users → 500)\n{"error":{"status":500,"message":"500 Injected fault","method":"GET","path":"/users","request_id":' + run.stderr.text.split('"request_id":')[1].split('\n')[0] + '\noutput is incomplete: 10 records written\n');
  });

  it('SIGINT during a long list: exit 130, a closed JSON array, and one line saying what was left undone', async () => {
    sandbox.fault({ method: 'GET', path: '^/users$', query: '(^|&)page=3(&|$)', latency_ms: 5000 });
    let interrupt!: (signal: 'SIGINT') => void;
    const interrupted = new Promise<'SIGINT'>((resolve) => (interrupt = resolve));
    const run = start(['users', 'list', '--all', '--per-page', '5', '-o', 'json'], { interrupted });
    // Pages 1 and 2 arrive; page 3 is held back by the fault.
    while ((run.stdout.text.match(/"username"/g) ?? []).length < 10) await new Promise((resolve) => setTimeout(resolve, 10));
    interrupt('SIGINT');
    expect(await run.code).toBe(130);
    sandbox.faults.clear();
    expect(JSON.parse(run.stdout.text)).toHaveLength(10);
    expect(run.stderr.text).toBe('interrupted by SIGINT: output is incomplete: 10 records written\n');
  });

  it('on a terminal, the line saying what was left undone starts afresh (after ^C or a progress bar)', async () => {
    sandbox.fault({ method: 'GET', path: '^/version$', latency_ms: 5000 });
    const stderr = Object.assign(new Pipe(), { isTTY: true });
    const code = main(['api', '/version'], { env: sandbox.env(), stdin: Readable.from([]), stdout: new Pipe(), stderr, interrupted: Promise.resolve('SIGINT') });
    expect(await code).toBe(130);
    sandbox.faults.clear();
    expect(stderr.text).toBe('\ninterrupted by SIGINT: the command did not finish\n');
  });

  it('SIGTERM before anything was written: exit 143 and one line', async () => {
    sandbox.fault({ method: 'GET', path: '^/version$', latency_ms: 5000 });
    const run = start(['api', '/version'], { interrupted: Promise.resolve('SIGTERM') });
    expect(await run.code).toBe(143);
    sandbox.faults.clear();
    expect(run.stdout.text).toBe('');
    expect(run.stderr.text).toBe('interrupted by SIGTERM: the command did not finish\n');
  });

  it('a signal while a change is in flight says which request was sent and that its outcome is unknown', async () => {
    sandbox.fault({ method: 'POST', path: '/badges$', answer_latency_ms: 5000 });
    let interrupt!: (signal: 'SIGINT') => void;
    const interrupted = new Promise<'SIGINT'>((resolve) => (interrupt = resolve));
    const run = start(['api', '-X', 'POST', '/projects/1/badges', '-f', 'link_url=https://x.example.com', '-f', 'image_url=https://x.example.com/b.svg'], { interrupted });
    while (!sandbox.requests().some((r) => r.method === 'POST')) await new Promise((resolve) => setTimeout(resolve, 10));
    interrupt('SIGINT');
    expect(await run.code).toBe(130);
    sandbox.faults.clear();
    expect(run.stderr.text).toBe('interrupted by SIGINT: POST /projects/1/badges was sent; whether the server acted on it is unknown\n');
  });

  it('a change in flight is named beside the rows already written', async () => {
    sandbox.fault({ method: 'POST', path: 'web/badges$', answer_latency_ms: 5000 });
    let interrupt!: (signal: 'SIGINT') => void;
    const interrupted = new Promise<'SIGINT'>((resolve) => (interrupt = resolve));
    const argv = ['badges', 'create', '--group', 'acme', '--concurrency', '2', '--link-url', 'https://x.example.com', '--image-url', 'https://x.example.com/b.svg', '--yes'];
    const run = start(argv, { interrupted });
    while (!run.stdout.text.includes('acme/api')) await new Promise((resolve) => setTimeout(resolve, 10));
    interrupt('SIGINT');
    expect(await run.code).toBe(130);
    sandbox.faults.clear();
    expect(run.stderr.text).toMatch(/^interrupted by SIGINT: output is incomplete: 1 record written; POST \/projects\/acme%2Fweb\/badges was sent; whether the server acted on it is unknown\n/);
  });

  it('several changes in flight are named together', async () => {
    sandbox.clearRequests();
    sandbox.fault({ method: 'POST', path: '/badges$', answer_latency_ms: 5000, times: 2 });
    let interrupt!: (signal: 'SIGINT') => void;
    const interrupted = new Promise<'SIGINT'>((resolve) => (interrupt = resolve));
    const argv = ['badges', 'create', '--group', 'acme', '--concurrency', '2', '--link-url', 'https://x.example.com', '--image-url', 'https://x.example.com/b.svg', '--yes'];
    const run = start(argv, { interrupted });
    while (sandbox.requests().filter((r) => r.method === 'POST').length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    interrupt('SIGINT');
    expect(await run.code).toBe(130);
    sandbox.faults.clear();
    expect(run.stderr.text).toMatch(/^interrupted by SIGINT: POST \/projects\/acme%2F\w+\/badges, POST \/projects\/acme%2F\w+\/badges were sent; whether the server acted on them is unknown\n/);
  });

  it('a reader that goes away (| head -1) ends the run quietly with exit 0', async () => {
    for (const argv of [['users', 'list', '--all', '--per-page', '5'], ['api', '/users', '--paginate', '-o', 'ndjson', '-f', 'per_page=5']]) {
      const run = start(argv, { stdout: new Pipe(1) });
      expect(await run.code, argv.join(' ')).toBe(0);
      expect(run.stdout.text.split('\n').length).toBeGreaterThanOrEqual(2);
      expect(run.stderr.text).toBe('');
    }
  });

  it('stdout that cannot be written (a full disk under > out.json) fails saying so, never exit 0 with a truncated file', async () => {
    for (const [argv, after] of [[['users', 'list', '--all', '--per-page', '5', '-o', 'ndjson'], 1], [['api', '/user'], 0]] as const) {
      const run = start([...argv], { stdout: new Pipe(after, 'ENOSPC') });
      expect(await run.code, argv.join(' ')).toBe(2);
      expect(run.stderr.text).toMatch(/^error: cannot write stdout: no space left on the device\nhint: what stdout holds is incomplete( \(\d+ records? written\))?; free some space and run the command again\n/);
    }
  });

  it('a reader that goes away while apply changes things (| head -1): apply finishes the work, writing nothing more', async () => {
    const desired = join(tempDir(), 'badges.yaml');
    const badges = ['one', 'two', 'three'].map((name) => `      - {name: ${name}, link_url: "https://${name}.example.com", image_url: "https://${name}.example.com/b.svg"}`);
    writeFileSync(desired, ['version: 1', 'projects:', '  acme/api:', '    badges:', ...badges, ''].join('\n'));
    const run = start(['apply', '-f', desired, '--yes', '--concurrency', '1', '-o', 'ndjson'], { stdout: new Pipe(1) });
    expect(await run.code).toBe(0);
    expect(run.stdout.text.trim().split('\n')).toHaveLength(1);
    expect(run.stderr.text).toContain('Applied: 3 done.');
    const plan = start(['plan', '-f', desired]);
    expect(await plan.code).toBe(0);
    expect(plan.stdout.text).toMatch(/^No changes: the file matches 1 project\.\n/);
  });

  it('answering no to a confirmation prints "aborted" (exit 2), without the word error', async () => {
    const target = join(tempDir(), 'keep.env');
    writeFileSync(target, 'keep');
    const stdout = Object.assign(new Pipe(), { isTTY: true });
    const stdin = Object.assign(Readable.from(['n\n']), { isTTY: true });
    const stderr = new Pipe();
    const code = await main(['secure-files', 'download', '1', '--project', 'acme/api', '--output-file', target], { env: sandbox.env(), stdin, stdout, stderr });
    expect(code).toBe(2);
    expect(stderr.text).toMatch(/aborted\n$/);
    expect(stderr.text).not.toMatch(/error/i);
  });
});
