/**
 * The single executable (`npm run build:sea`): Node and forgectl in one file, for machines without Node. It is built
 * here for this machine's platform by scripts/sea.mjs — once for what goes into it (kept in
 * node_modules/.cache/forgectl-sea under the hash of the bundle, the bin and the build script) —, installed from an
 * otherwise empty folder by the README's lines, and run with no Node on PATH against a sandbox it starts itself: the
 * part of the installed-package tier (installed.test.ts) that is not about npm. Where it cannot be built (no
 * registry, a platform without Node's binaries) every case is skipped with the reason. The Dockerfile and the
 * README's CI job are read and run as far as this machine can (it has no container engine).
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { manifest } from '../../src/commands/manifest.js';
import { runBin, tempDir } from '../helpers/cli.js';
import { startSecretService } from '../helpers/keyring.js';
import { needs, SECRET_SERVICE, type ProgramName } from '../helpers/system.js';
import { readmeBlocks } from './examples.js';
import { loginAtDesk, ROOT, runProcess, startSandboxProcess, type ProcessResult } from './package.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const PLATFORM = `${process.platform}-${process.arch}`;
const EXECUTABLE = `forgectl-${PLATFORM}`;
const CACHE = join(ROOT, 'node_modules', '.cache', 'forgectl-sea');

/** The README's lines that install the downloaded executable. */
const installLines = readmeBlocks().find((block) => block.source.startsWith('README: Or download one file'))!.lines;

/**
 * The folder holding this platform's executable and its SHA256SUMS, built by scripts/sea.mjs unless a build of the
 * same code is cached (older builds are removed: each is over 100 MB); or why it cannot be built here. The code is
 * the bundle, the bin and the build script: not the source maps (they name the build's temporary folder), nor
 * dist/package.json, whose build id hashes them.
 */
async function executableFolder(): Promise<{ folder?: string; reason?: string }> {
  const hash = createHash('sha256');
  const dist = join(ROOT, 'dist');
  const files = readdirSync(dist, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  const code = files.map((entry) => relative(dist, join(entry.parentPath, entry.name))).filter((name) => !/^sea\/|\.map$|^meta\.json$|^package\.json$/.test(name));
  for (const file of code.sort()) hash.update(file).update(readFileSync(join(dist, file)));
  for (const file of ['bin/forgectl.cjs', 'scripts/sea.mjs', 'scripts/elf-strip.mjs', 'package-lock.json']) hash.update(readFileSync(join(ROOT, file)));
  const name = `test-${hash.digest('hex').slice(0, 16)}`;
  const folder = join(CACHE, name);
  if (existsSync(join(folder, 'SHA256SUMS'))) return { folder };
  const partial = `${folder}.${process.pid}`;
  const started = Date.now();
  const built = await runProcess(process.execPath, [join(ROOT, 'scripts', 'sea.mjs'), '--platform', PLATFORM, '--out', partial], { env: process.env, timeoutMs: 300_000 });
  if (built.code === 3) return { reason: built.stderr.trim().replace(/^error: /, '') };
  if (built.code !== 0) throw new Error(`scripts/sea.mjs failed (exit ${built.code}):\n${built.stdout}${built.stderr}`);
  process.stderr.write(`single executable built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  renameSync(partial, folder);
  for (const old of readdirSync(CACHE).filter((entry) => entry.startsWith('test-') && entry !== name)) rmSync(join(CACHE, old), { recursive: true, force: true });
  return { folder };
}

/**
 * A folder of the programs the cases' shells use, and no Node: PATH is this folder (and where the README installs
 * forgectl), so nothing can fall back on a Node of the machine.
 */
function toolsWithoutNode(): string {
  const tools = tempDir('forgectl-sea-tools-');
  for (const tool of ['sh', 'bash', 'env', 'sha256sum', 'install', 'cat', 'cp', 'mkdir', 'rm', 'kill', 'sleep', 'stty', 'script', 'python3']) {
    const path = execFileSync('sh', ['-c', `command -v ${tool} || true`]).toString().trim();
    if (path) symlinkSync(path, join(tools, tool));
  }
  return tools;
}

let skipped = '';
let built = '';
let downloads = '';
let home = '';
let tools = '';
let installLog: ProcessResult | undefined;
let sandbox: Awaited<ReturnType<typeof startSandboxProcess>> | undefined;

/** The environment of a user's shell: HOME, and PATH with the installed forgectl and no Node. */
const userEnv = (): NodeJS.ProcessEnv => ({ PATH: `${join(home, '.local', 'bin')}:${tools}`, HOME: home, LANG: 'C.UTF-8' });
const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...userEnv(), FORGECTL_CONFIG_DIR: join(home, 'config'), FORGECTL_URL: sandbox!.url, FORGECTL_TOKEN: sandbox!.token, ...extra });
const forgectl = (args: string[], extra: NodeJS.ProcessEnv = {}, input?: string) => runProcess('forgectl', args, { env: env(extra), input });
const shell = (line: string, options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) => runProcess('bash', ['-c', line], { env: options.env ?? env(), cwd: options.cwd });
const requests = async (): Promise<Array<{ method: string; path: string }>> => (await fetch(`${sandbox!.url}/-/sandbox/requests`)).json() as never;
const clearRequests = () => fetch(`${sandbox!.url}/-/sandbox/requests`, { method: 'DELETE' });

/** A case that needs the executable (skipped, with the reason, where it cannot be built), and maybe programs. */
const live = (name: string, test: () => Promise<void>, programs: ProgramName[] = []) =>
  it(name, async (context) => {
    if (!built) return context.skip(skipped);
    needs(context, ...programs);
    await test();
  }, 60_000);

beforeAll(async () => {
  const found = await executableFolder();
  if (!found.folder) {
    skipped = `the single executable cannot be built here: ${found.reason}`;
    return;
  }
  built = join(found.folder, EXECUTABLE);
  // What a user downloads: the executable and the checksum file, in a folder of their own.
  downloads = tempDir('forgectl-sea-downloads-');
  for (const file of [EXECUTABLE, 'SHA256SUMS']) copyFileSync(join(found.folder, file), join(downloads, file));
  home = tempDir('forgectl-sea-home-');
  tools = toolsWithoutNode();
  installLog = await shell(['set -e', ...installLines.map((line) => line.replace(/forgectl-linux-x64/g, EXECUTABLE))].join('\n'), { env: userEnv(), cwd: downloads });
  if (installLog.code !== 0) throw new Error(`the README's install lines failed: ${installLog.stdout}${installLog.stderr}`);
  // The sandbox as users start it: by the installed executable.
  sandbox = await startSandboxProcess(['--users', '30'], userEnv());
}, 360_000);
afterAll(() => {
  sandbox?.process.kill('SIGTERM');
  for (const dir of [downloads, home, tools]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the single executable', () => {
  live('is one file of at most 130 MB, checked against SHA256SUMS and installed by the README\'s lines, and runs with no Node anywhere', async () => {
    expect(statSync(built).size).toBeLessThanOrEqual(130_000_000);
    expect(installLog!.stdout).toContain(`${EXECUTABLE}: OK\n`);
    expect(installLog!.stdout).toContain(`forgectl ${pkg.version}\n`);
    const which = await shell('command -v forgectl; command -v node || echo "no node"', { env: userEnv() });
    expect(which.stdout).toBe(`${join(home, '.local', 'bin', 'forgectl')}\nno node\n`);
    // With no environment at all, from the folder it was downloaded to.
    const bare = await runProcess(join(tools, 'env'), ['-i', `./${EXECUTABLE}`, '--version'], { env: {}, cwd: downloads });
    expect([bare.code, bare.stdout, bare.stderr]).toEqual([0, `forgectl ${pkg.version}\n`, '']);
    // A damaged download fails the README's check.
    const damaged = tempDir('forgectl-sea-damaged-');
    const bytes = readFileSync(built);
    bytes[bytes.length >> 1] ^= 0xff;
    writeFileSync(join(damaged, EXECUTABLE), bytes);
    copyFileSync(join(downloads, 'SHA256SUMS'), join(damaged, 'SHA256SUMS'));
    const check = await shell(installLines[0], { env: userEnv(), cwd: damaged });
    expect(check.code).not.toBe(0);
    expect(check.stdout).toContain(`${EXECUTABLE}: FAILED`);
    rmSync(damaged, { recursive: true, force: true });
  });

  live('starts its own sandbox and lists its users with --jq, and as JSON and YAML', async () => {
    const jq = await forgectl(['users', 'list', '--per-page', '5', '--jq', '.username']);
    expect(jq.code, jq.stderr).toBe(0);
    expect(jq.stdout.trim().split('\n')).toHaveLength(5);
    const json = await forgectl(['users', 'list', '--search', 'alice', '-o', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject([{ username: 'alice' }]);
    const yaml = await forgectl(['users', 'get', 'alice', '-o', 'yaml']);
    expect(yaml.stdout).toMatch(/^id: 2\nusername: alice\n/);
    const wrong = await forgectl(['users', 'list', '--jq', '.[']);
    expect(wrong.code).toBe(2);
  });

  live('the README\'s sandbox line starts the executable again in the background, and the sandbox answers', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const start = readme.split('\n').find((line) => line.startsWith('eval "$(forgectl sandbox --print-env --detach)"'))!.replace(/\s+#.*$/, '');
    const stop = readme.split('\n').find((line) => line.startsWith('kill $FORGECTL_SANDBOX_PID'))!.replace(/\s+#.*$/, '');
    const result = await shell(`set -e; ${start}; forgectl users get alice --fields username; ${stop}`, { env: { ...userEnv(), FORGECTL_CONFIG_DIR: join(home, 'detached') } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('username\talice\n');
  });

  live('prints the help texts and the completion scripts the package prints', async () => {
    for (const args of [['--help'], ['users', 'list', '--help'], ['help', 'exit-codes'], ['completion', 'bash'], ['completion', 'zsh'], ['completion', 'fish']]) {
      const [own, npm] = await Promise.all([forgectl(args), runBin(args)]);
      expect(own.code, args.join(' ')).toBe(0);
      expect(own.stdout.length, args.join(' ')).toBeGreaterThan(500);
      expect(own.stdout === npm.stdout, args.join(' ')).toBe(true);
    }
  });

  live('downloads job artifacts: the bytes the service serves', async () => {
    const dir = tempDir('forgectl-sea-download-');
    const result = await shell(`cd '${dir}' && forgectl artifacts download --project acme/api --ref main --job-name build -O build.zip`);
    expect(result.code, result.stderr).toBe(0);
    const served = await fetch(`${sandbox!.url}/api/v4/projects/acme%2Fapi/jobs/artifacts/main/download?job=build`, { headers: { 'PRIVATE-TOKEN': sandbox!.token } });
    expect(served.status).toBe(200);
    expect(readFileSync(join(dir, 'build.zip')).equals(Buffer.from(await served.arrayBuffer()))).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });

  live('rotates a token from cron; killed while saving it, the token waits in the recovery file and the next run saves it', async () => {
    const tokenStatus = (value: string) => fetch(`${sandbox!.url}/api/v4/groups/acme/access_tokens/self`, { headers: { 'PRIVATE-TOKEN': value } }).then((r) => r.status);
    const made = await forgectl(['tokens', 'create', '--group', 'acme', '--name', 'sea-cron-bot', '--scopes', 'api', '--access-level', 'maintainer', '--expires-in', '30d', '-o', 'json', '--yes']);
    expect(made.code, made.stderr).toBe(0);
    const first = (JSON.parse(made.stdout) as { token: string }).token;
    const dir = tempDir('forgectl-sea-bot-');
    const bot = { ...userEnv(), FORGECTL_CONFIG_DIR: dir };
    expect((await runProcess('forgectl', ['auth', 'login', '--profile', 'bot', '--url', sandbox!.url, '--token-stdin'], { env: bot, input: `${first}\n` })).code).toBe(0);
    const profileToken = () => (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: { bot: { token: string } } }).profiles.bot.token;
    const rotate = ['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--save-to-profile', '--yes'];
    // The config lock held by a live process (this one) makes the save wait: the run is killed while it waits.
    const lock = join(dir, 'config.lock');
    writeFileSync(lock, `${process.pid}\n`);
    const child = spawn('forgectl', rotate, { env: bot, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const recovery = join(dir, 'recovery');
    const filled = () => existsSync(recovery) && readdirSync(recovery).some((name) => name.endsWith('.json') && statSync(join(recovery, name)).size > 0);
    for (let i = 0; i < 1500 && !filled(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(filled()).toBe(true);
    child.kill('SIGKILL');
    await exited;
    rmSync(lock);
    const [file] = readdirSync(recovery).filter((name) => name.endsWith('.json'));
    const recovered = (JSON.parse(readFileSync(join(recovery, file), 'utf8')) as { token: { token: string } }).token.token;
    expect([await tokenStatus(first), await tokenStatus(recovered), profileToken()]).toEqual([401, 200, first]);
    await clearRequests();
    const next = await runProcess('forgectl', rotate, { env: bot });
    expect(next.code, next.stderr).toBe(0);
    expect((await requests()).filter((r) => r.method === 'POST' && r.path.endsWith('/rotate'))).toEqual([]);
    expect(profileToken()).toBe(recovered);
    expect(readdirSync(recovery)).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });

  live('keeps the token in the OS keyring with the native module it carries', async () => {
    const service = await startSecretService();
    const dir = tempDir('forgectl-sea-keyring-');
    try {
      const desk = { ...userEnv(), FORGECTL_CONFIG_DIR: dir, ...service.env };
      const { token, login } = await loginAtDesk(sandbox!.url, env(), desk, 'sea-keyring');
      expect(login.stdout).toContain('token saved in the OS keyring');
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain(token);
      const status = await runProcess('forgectl', ['auth', 'status', '-o', 'json'], { env: desk });
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ user: 'alice', token_storage: 'keyring' });
    } finally {
      service.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, [...SECRET_SERVICE, 'pty']);

  live('runs the README\'s CI job as written: the image\'s executable, the instance in FORGECTL_URL', async () => {
    const job = ciJob();
    const work = tempDir('forgectl-sea-ci-');
    // The job's checkout holds a desired-state file; the runner sets the CI/CD variables, then the job's own.
    expect((await shell(`forgectl export --project acme/web > '${join(work, 'desired.yaml')}'`)).code).toBe(0);
    const runner = { ...userEnv(), CI: 'true', CI_SERVER_URL: sandbox!.url, FORGECTL_TOKEN: sandbox!.token, FORGECTL_CONFIG_DIR: join(work, '.config') };
    const variables = Object.fromEntries(Object.entries(job.variables).map(([key, value]) => [key, value.replace(/^\$(\w+)$/, (_, name: string) => (runner as Record<string, string>)[name])]));
    const result = await shell(['set -e', ...job.script].join('\n'), { env: { ...runner, ...variables }, cwd: work });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`forgectl ${pkg.version}\nNo changes: the file matches 1 project.\n`);
    rmSync(work, { recursive: true, force: true });
  });
});

/** The README's CI job (its one ```yaml block of the install section): image, variables, script. */
function ciJob(): { image: string; variables: Record<string, string>; script: string[] } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('\n## ', readme.indexOf('## Install') + 1));
  const jobs = parseYaml(/```yaml\n([\s\S]*?)```/.exec(install)![1]) as Record<string, { image: string; variables: Record<string, string>; script: string[] }>;
  expect(Object.keys(jobs)).toHaveLength(1);
  return Object.values(jobs)[0];
}

/** The Dockerfile's instructions, each with its arguments (continued lines joined, comments left out). */
function dockerfile(): Array<{ instruction: string; args: string }> {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  return text
    .split('\n')
    .filter((line) => line.trim() && !line.trim().startsWith('#'))
    .map((line) => {
      const [instruction, ...rest] = line.trim().split(/\s+/);
      return { instruction, args: rest.join(' ') };
    });
}

describe('the container image recipe (read: no container engine runs here)', () => {
  it('is a Dockerfile of known instructions: the executables build:sea writes, on a slim base, with CA certificates, run as a user that is not root', () => {
    const lines = dockerfile();
    expect(lines.every((line) => ['ARG', 'FROM', 'COPY', 'RUN', 'ENV', 'USER', 'WORKDIR', 'CMD'].includes(line.instruction)), JSON.stringify(lines)).toBe(true);
    const stages = lines.filter((line) => line.instruction === 'FROM').map((line) => line.args);
    const final = stages.at(-1)!;
    expect(final).toMatch(/^(debian:[\w.-]+-slim|gcr\.io\/distroless\/[\w.-]+:[\w.-]+)$/);
    // One stage per platform build:sea makes, each copying that platform's executable, chosen by BuildKit's TARGETARCH.
    const copies = lines.filter((line) => line.instruction === 'COPY' && line.args.startsWith('dist/sea/')).map((line) => line.args.split(' ')[0]);
    expect(copies.sort()).toEqual(['dist/sea/forgectl-linux-arm64', 'dist/sea/forgectl-linux-x64']);
    expect(stages).toContain('executable-${TARGETARCH} AS executable');
    const tail = lines.slice(lines.findIndex((line) => line.instruction === 'FROM' && line.args === final));
    expect(tail.find((line) => line.instruction === 'COPY')!.args).toBe('--from=executable --chmod=0755 /forgectl /usr/local/bin/forgectl');
    // What the final stage installs: the CA certificates, nothing else.
    const installs = tail.filter((line) => line.instruction === 'RUN').flatMap((line) => [...line.args.matchAll(/apt-get install ((?:-\S+ )*)([\w.+\- ]+?)(?: &&|$)/g)].map((match) => match[2].trim()));
    expect(installs).toEqual(['ca-certificates']);
    const user = tail.filter((line) => line.instruction === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user!.split(':')[0]);
    expect(tail.some((line) => line.instruction === 'RUN' && line.args.includes(`useradd`) && line.args.endsWith(` ${user}`))).toBe(true);
    expect(lines.some((line) => line.instruction === 'ENTRYPOINT')).toBe(false); // CI jobs run their script in the image's shell
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').filter((line) => line && !line.startsWith('#'));
    expect(ignored).toEqual(['*', '!dist/sea/forgectl-linux-*']);
  });

  it('the README builds the image under the name its CI job uses, from commands that exist', () => {
    const job = ciJob();
    const build = readmeBlocks().flatMap((block) => block.lines).find((line) => line.startsWith('docker buildx build'))!;
    expect(build).toContain(` -t ${job.image} `);
    expect(build).toContain('--platform linux/amd64,linux/arm64');
    const paths = new Set(manifest.map((entry) => entry.path));
    for (const line of job.script.filter((line) => !line.includes('--version'))) {
      const words = line.split(' ').slice(1).filter((word) => /^[a-z-]+$/.test(word));
      expect(words.some((_, i) => paths.has(words.slice(0, i + 1).join(' '))), line).toBe(true);
    }
  });
});
