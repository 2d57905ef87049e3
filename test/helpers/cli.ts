import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/main.js';
import type { RoleName } from '../../src/api/resource.js';
import { findGroup, Role } from '../../src/sandbox/auth.js';
import { members, users } from '../../src/sandbox/model.js';
import { addToken, addUser } from '../../src/sandbox/seed.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON. */
  json<T = any>(): T;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Text for stdin. */
  input?: string;
  /** Pretend stdin/stdout/stderr are a terminal. */
  tty?: boolean;
  /** With tty: the terminal's width (default 120). */
  columns?: number;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** Resolves when the run is to be interrupted (Ctrl-C: SIGINT). */
  interrupted?: Promise<'SIGINT' | 'SIGTERM'>;
}

class Capture extends Writable {
  text = '';
  isTTY: boolean;
  columns = 120;
  constructor(tty: boolean) {
    super();
    this.isTTY = tty;
  }
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

export function tempDir(prefix = 'forgectl-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes `text` to a file named `name` in `dir` (a fresh temporary folder unless given) and returns its path. */
export function tempFile(text: string, name = 'desired.yaml', dir = tempDir()): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Runs the real entry point in-process (main(argv, deps)) with captured streams. */
export async function run(argv: string[], options: RunOptions = {}): Promise<RunResult> {
  const stdout = new Capture(Boolean(options.tty));
  const stderr = new Capture(Boolean(options.tty));
  if (options.columns) stdout.columns = stderr.columns = options.columns;
  const stdin = Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]) as Readable & { isTTY?: boolean };
  stdin.isTTY = Boolean(options.tty);
  const code = await main(argv, { env: { ...options.env }, stdin, stdout, stderr, now: options.now, sleep: options.sleep, interrupted: options.interrupted });
  return {
    code,
    stdout: stdout.text,
    stderr: stderr.text,
    json: () => JSON.parse(stdout.text),
  };
}

export interface TestSandbox extends Sandbox {
  /** Environment for a CLI run against this sandbox as root, with a fresh config folder. */
  env(extra?: Record<string, string | undefined>): Record<string, string | undefined>;
  /** Runs the CLI in-process against this sandbox (root's token unless env overrides it). */
  run(argv: string[], options?: RunOptions): Promise<RunResult>;
  /** The requests the sandbox received since the last clearRequests(). */
  requests(): Array<{ method: string; path: string; status: number | 'dropped' }>;
  clearRequests(): void;
  /** Injects a fault (see src/sandbox/faults.ts). */
  fault(fault: Record<string, unknown>): void;
  /** A raw API request (path below /api/v4), as root unless a token is given; JSON bodies are parsed. */
  call(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; headers: Headers; text: string; body: any }>;
  /** The token of a user who has exactly this role in group acme (and so in its projects); made on first use. */
  tokenWithRole(role: RoleName): string;
  /** A POST as root that must answer 201 (the test fails with the answer's text otherwise): the record made. */
  create(path: string, body: Record<string, unknown>): Promise<{ id: number }>;
  /** A new personal access token of the user with this id. */
  tokenOf(userId: number, name: string): string;
}

/** A sandbox on 127.0.0.1:0 for one test file; close it in afterAll. */
export async function startTestSandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
  const sandbox = await startSandbox({ log: () => undefined, ...options });
  const configDir = tempDir();
  const env = (extra: Record<string, string | undefined> = {}) => ({
    FORGECTL_CONFIG_DIR: configDir,
    FORGECTL_URL: sandbox.rootUrl,
    FORGECTL_TOKEN: sandbox.adminToken,
    ...extra,
  });
  const call = async (method: string, path: string, body?: unknown, token = sandbox.adminToken) => {
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const json = text && response.headers.get('content-type')?.includes('json');
    // headers and text are not enumerable, so tests can compare the result with toEqual({ status, body }).
    return Object.defineProperties({ status: response.status, body: json ? JSON.parse(text) : undefined }, {
      headers: { value: response.headers, enumerable: false },
      text: { value: text, enumerable: false },
    }) as { status: number; headers: Headers; text: string; body: any };
  };
  return Object.assign(sandbox, {
    env,
    run: (argv: string[], runOptions: RunOptions = {}) => run(argv, { ...runOptions, env: env(runOptions.env) }),
    requests: () => sandbox.faults.log.map(({ method, path, status }) => ({ method, path, status })),
    clearRequests: () => void (sandbox.faults.log.length = 0),
    fault: (fault: Record<string, unknown>) => void sandbox.faults.add(fault),
    tokenWithRole: (role: RoleName) => {
      const username = `${role}-of-acme`;
      const existing = sandbox.db.table<{ name: string; token: string }>('tokens').find((t) => t.name === `${username}-token`);
      if (existing) return existing.token;
      const now = new Date();
      const user = addUser(sandbox.db, { username }, now);
      members(sandbox.db).push({ source_type: 'group', source_id: findGroup(sandbox.db, 'acme').id, user_id: user.id, access_level: Role[role] });
      return addToken(sandbox.db, user, {}, now).token;
    },
    create: async (path: string, body: Record<string, unknown>) => {
      const answer = await call('POST', path, body);
      expect(answer.status, answer.text).toBe(201);
      return answer.body as { id: number };
    },
    tokenOf: (userId: number, name: string) => addToken(sandbox.db, users(sandbox.db).find((u) => u.id === userId)!, { name }, new Date()).token,
    call,
  });
}

/**
 * The sandbox of one test file: `const sandbox = useTestSandbox();` at the top of the file starts it on
 * 127.0.0.1:0 before the file's tests and closes it after them. Use it inside tests and hooks registered later.
 */
export function useTestSandbox(options: SandboxOptions = {}): TestSandbox {
  const sandbox = {} as TestSandbox;
  beforeAll(async () => {
    Object.assign(sandbox, await startTestSandbox(options));
  });
  afterAll(() => sandbox.close());
  return sandbox;
}

export const BIN = fileURLToPath(new URL('../../bin/forgectl.cjs', import.meta.url));
/** Whether the bundle BIN loads has been built (`npm test` builds first; a bare `vitest run` may not have). */
export const BUILT = existsSync(fileURLToPath(new URL('../../dist/core.js', import.meta.url)));

/**
 * Starts the built CLI as a child process to be interrupted (stdout ignored): its stderr as it comes, and its exit
 * code once it ends.
 */
export function startBin(argv: string[], env: Record<string, string | undefined>): { child: ReturnType<typeof spawn>; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, ...argv], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as NodeJS.ProcessEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

/** Runs the built CLI (bin/forgectl.cjs → dist/) as a child process, without a terminal. */
export function runBin(argv: string[], options: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env } as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, json: () => JSON.parse(stdout) }));
    // A command that reads no stdin may have exited before its input is written (help, version): EPIPE is no failure.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/**
 * A preload (for NODE_OPTIONS=--require) that writes to stderr `UNDER FLAGS node:NAME` for each built-in module first
 * loaded while a V8 flag was set (Node's code cache for its own modules is made under none: such a module is compiled
 * from its source), and `WEBASSEMBLY liftoff-only` (or `other flags`) for each WebAssembly module instantiated, by
 * the flags it was compiled under (the bin's: --liftoff-only, with the tiering that would optimise it later off). V8 stamps compiled code with its flags: v8.cachedDataVersionTag().
 */
export function v8FlagsPreload(): string {
  const file = join(tempDir('forgectl-flags-'), 'flags.cjs');
  writeFileSync(file, `const v8 = require('node:v8');
const plain = v8.cachedDataVersionTag();
v8.setFlagsFromString('--liftoff-only --no-wasm-tier-up --no-wasm-dynamic-tiering');
const liftoff = v8.cachedDataVersionTag();
for (const flag of ['--no-liftoff-only', '--wasm-tier-up', '--wasm-dynamic-tiering']) v8.setFlagsFromString(flag);
if (v8.cachedDataVersionTag() !== plain) throw new Error('the flags did not go back');
const Module = require('node:module');
const load = Module._load;
Module._load = function (id, ...rest) {
  const [before, tag] = [process.moduleLoadList.length, v8.cachedDataVersionTag()];
  const loaded = load.call(this, id, ...rest);
  if (process.moduleLoadList.length > before && tag !== plain) process.stderr.write('UNDER FLAGS ' + id + '\\n');
  return loaded;
};
WebAssembly.Instance = new Proxy(WebAssembly.Instance, {
  construct: (target, args, newTarget) => (process.stderr.write('WEBASSEMBLY ' + (v8.cachedDataVersionTag() === liftoff ? 'liftoff-only' : 'other flags') + '\\n'), Reflect.construct(target, args, newTarget)),
});
`);
  return file;
}

/** The files of the code cache below a cache home (XDG_CACHE_HOME) and when each was written, for one build and Node. */
export function codeCacheFiles(cacheHome: string): Map<string, number> {
  const root = join(cacheHome, 'forgectl', 'code-cache');
  const [folder] = readdirSync(root);
  return new Map(readdirSync(join(root, folder)).map((file) => [file, statSync(join(root, folder, file)).mtimeMs]));
}
