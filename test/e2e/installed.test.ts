/**
 * The end-to-end tier: the package as users get it (packed and installed the way the README says), run as real
 * processes on each Node version it promises, against a `forgectl sandbox` process. In-process tests cannot see
 * bundling, stream, signal or terminal bugs; these can.
 */
import { spawn, spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { isBuiltin } from 'node:module';
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Ajv } from 'ajv';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifest } from '../../src/commands/manifest.js';
import { codeCacheFiles, tempDir, v8FlagsPreload } from '../helpers/cli.js';
import { departingUser, leftOf, OFFBOARDED, type SandboxApi } from '../helpers/offboarding.js';
import { startSecretService } from '../helpers/keyring.js';
import { startHostileFront } from '../helpers/hostile-front.js';
import { needs, type ProgramName, ptyRunner, SECRET_SERVICE } from '../helpers/system.js';
import { installFromCheckout, loginAtDesk, NODE_VERSIONS, nodeFolder, ROOT, runProcess, startSandboxProcess, type ProcessResult } from './package.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const pty = ptyRunner();

let bin = '';
let remove = () => undefined as void;
beforeAll(async () => {
  ({ bin, remove } = await installFromCheckout());
}, 240_000);
// The copy of the checkout and the installation are tens of megabytes: not left behind in the temporary folder.
afterAll(() => remove());

/** Up to `limit` at a time, in order of the results. */
async function inBatches<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += limit) results.push(...(await Promise.all(items.slice(i, i + limit).map(work))));
  return results;
}

/** Display width of a terminal line: colour codes take none. */
// eslint-disable-next-line no-control-regex
const visibleLength = (line: string) => [...line.replace(/\x1b\[[0-9;]*m/g, '')].length;

/** Every file below a folder, as paths relative to it. */
const filesBelow = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => relative(dir, join(entry.parentPath, entry.name)));

it('installs only what the bundle cannot contain (packages it leaves external, such as native bindings), and no source maps', () => {
  const installed = join(bin, '..', 'lib', 'node_modules', 'forgectl');
  const manifestOfPackage = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  // The packages the build left as imports instead of bundling them (Node's own modules aside).
  const meta = JSON.parse(readFileSync(join(ROOT, 'dist', 'meta.json'), 'utf8')) as { outputs: Record<string, { imports: Array<{ path: string; external?: boolean }> }> };
  const external = new Set(
    Object.values(meta.outputs)
      .flatMap((output) => output.imports)
      .filter((imported) => imported.external && !imported.path.startsWith('node:') && !isBuiltin(imported.path))
      .map((imported) => imported.path.split('/').slice(0, imported.path.startsWith('@') ? 2 : 1).join('/')),
  );
  expect(Object.keys(manifestOfPackage.dependencies ?? {}).sort()).toEqual([...external].sort());
  if (external.size === 0) expect(existsSync(join(installed, 'node_modules'))).toBe(false);
  expect(filesBelow(installed).filter((file) => file.endsWith('.map'))).toEqual([]);
  // An installer pays for every file it writes (npm about 6 ms each): the chunks and the help texts come joined
  // into a file each, so the package is a score of files besides its man pages, not the 600 it would be.
  expect(filesBelow(installed).filter((file) => !file.startsWith('node_modules') && !file.startsWith('dist/man/')).length).toBeLessThan(30);
});

it('the completion script the package ships asks the installed forgectl, which answers from its own commands', (context) => {
  needs(context, 'bash');
  const script = join(bin, '..', 'lib', 'node_modules', 'forgectl', 'completions', 'forgectl.bash');
  const complete = (words: string[]) =>
    spawnSync('bash', ['-c', `source "${script}"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _forgectl; echo "\${COMPREPLY[@]}"`], { encoding: 'utf8', env: { PATH: `${bin}:${process.env.PATH}`, HOME: tempDir(), FORGECTL_CONFIG_DIR: tempDir() } }).stdout.trim();
  expect(complete(['forgectl', 'tokens', 'ro'])).toBe('rotate');
  expect(complete(['forgectl', 'variables', 'set', '--type', ''])).toBe('env_var file');
  expect(complete(['forgectl', 'completion', ''])).toBe('bash zsh fish');
  expect(complete(['forgectl', 'profile', 'set', 'default_'])).toBe('default_group default_project');
});

it('man forgectl and man forgectl-GROUP show the manual after npm install -g, from the prefix\'s share/man', (context) => {
  needs(context, 'man');
  const manPath = join(bin, '..', 'share', 'man');
  const pkgMan = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { man: string[] }).man;
  const man = (...args: string[]) => spawnSync('man', ['-M', manPath, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, LANG: 'C.UTF-8', MANWIDTH: '80', HOME: tempDir() } });
  const main = man('forgectl');
  expect(main.status, main.stderr).toBe(0);
  expect(main.stdout).toMatch(/^FORGECTL\(1\)/);
  for (const text of ['forgectl - Administer the software-delivery platform', 'GLOBAL OPTIONS', 'EXIT STATUS', 'rotated but could not be saved', 'forgectl-tokens(1)']) expect(main.stdout).toContain(text);
  const tokens = man('forgectl-tokens');
  expect(tokens.status, tokens.stderr).toBe(0);
  expect(tokens.stdout).toContain('forgectl tokens rotate [options] <id>');
  expect(tokens.stdout).toContain('--save-to-profile [name]');
  // Every page package.json names is where man finds it.
  const found = man('-w', ...pkgMan.map((file) => file.replace(/^.*\/|\.1$/g, '')));
  expect(found.status, found.stderr).toBe(0);
  expect(found.stdout.trim().split('\n')).toHaveLength(pkgMan.length);
});

describe.each(NODE_VERSIONS)('the installed forgectl on Node %s', (version) => {
  let nodeDir: string | undefined;
  let skipped = '';
  let sandbox: { url: string; token: string; process: ReturnType<typeof spawn> } | undefined;
  let configDir = '';
  /** The environment of a user's shell: forgectl and this Node on PATH, nothing else of ours. */
  const baseEnv = (): NodeJS.ProcessEnv => ({ PATH: `${nodeDir}:${bin}:/usr/bin:/bin`, HOME: configDir, LANG: 'C.UTF-8' });
  const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    ...baseEnv(),
    FORGECTL_CONFIG_DIR: configDir,
    FORGECTL_URL: sandbox!.url,
    FORGECTL_TOKEN: sandbox!.token,
    ...extra,
  });
  const forgectl = (args: string[], extra: NodeJS.ProcessEnv = {}, input?: string): Promise<ProcessResult> =>
    runProcess('forgectl', args, { env: env(extra), input, timeoutMs: 30_000 });
  /** A shell line (bash: pipes, PIPESTATUS, eval) in the user's environment. */
  const shell = (line: string, extra: NodeJS.ProcessEnv = {}): Promise<ProcessResult> => runProcess('bash', ['-c', line], { env: env(extra), timeoutMs: 30_000 });
  /** A shell line on a pseudo-terminal 100 columns wide; stdout and stderr both arrive in stdout. */
  const onTerminal = (line: string, extra: NodeJS.ProcessEnv = {}): Promise<ProcessResult> => {
    const [command, args] = pty!(`stty cols 100 rows 40 2>/dev/null; ${line}`);
    return runProcess(command, args, { env: { ...env(extra), TERM: 'xterm-256color' }, timeoutMs: 30_000 });
  };
  const fault = (body: Record<string, unknown>) => fetch(`${sandbox!.url}/-/sandbox/faults`, { method: 'POST', body: JSON.stringify(body) }).then((r) => expect(r.status).toBe(201));
  const clearFaults = () => fetch(`${sandbox!.url}/-/sandbox/faults`, { method: 'DELETE' });
  const requests = async (): Promise<Array<{ method: string; path: string }>> => (await fetch(`${sandbox!.url}/-/sandbox/requests`)).json() as never;
  const clearRequests = () => fetch(`${sandbox!.url}/-/sandbox/requests`, { method: 'DELETE' });
  /** The sandbox's API as its administrator, for what a case sets up and checks. */
  const rootApi = (): SandboxApi => ({
    call: async (method, path, body) => {
      const response = await fetch(`${sandbox!.url}/api/v4${path}`, { method, headers: { 'PRIVATE-TOKEN': sandbox!.token, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      return Object.assign({ status: response.status, body: text ? JSON.parse(text) : undefined }, { headers: response.headers, text });
    },
  });
  /** A case that needs this Node (skipped, saying why, where it cannot be had), maybe a pseudo-terminal and programs. */
  const live = (name: string, test: () => Promise<void>, options: { timeout?: number; terminal?: boolean; programs?: ProgramName[] } = {}) =>
    it(name, async (context) => {
      if (!nodeDir) return context.skip(skipped);
      if (options.terminal) needs(context, 'pty');
      needs(context, ...(options.programs ?? []));
      await test();
    }, options.timeout ?? 60_000);

  beforeAll(async () => {
    const found = await nodeFolder(version);
    if (!found.dir) {
      // Each case of this version is then skipped with this reason, which the test report shows.
      skipped = `Node ${version} skipped: ${found.reason}`;
      return;
    }
    nodeDir = found.dir;
    configDir = tempDir('forgectl-e2e-home-');
    // The sandbox as users start it, on the same Node: a process on a free loopback port.
    sandbox = await startSandboxProcess(['--users', '250'], baseEnv());
  }, 240_000);
  afterAll(() => {
    sandbox?.process.kill('SIGTERM');
    if (configDir) rmSync(configDir, { recursive: true, force: true });
  });

  live('a CI trial\'s findings: export for an environment, a re-run of protect, a dry run of a large file, FORCE_COLOR in a pipe', async () => {
    const production = await forgectl(['variables', 'export', '--project', 'acme/api', '--environment', 'production']);
    expect(production.code, production.stderr).toBe(0);
    expect(production.stdout).toContain('\nLOG_LEVEL=info\n');
    const tag = `e2e-rerun-${version.split('.')[0]}-*`;
    expect((await forgectl(['protected-tags', 'protect', '--project', 'acme/api', '--name', tag])).code).toBe(0);
    const again = await forgectl(['protected-tags', 'protect', '--project', 'acme/api', '--name', tag]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('is already protected as asked');
    const dir = tempDir();
    writeFileSync(join(dir, 'big.bin'), Buffer.alloc(1024 * 1024, 0xff));
    const dry = await forgectl(['commits', 'create', '--project', 'acme/api', '--branch', 'main', '-m', 'x', '--add', `${join(dir, 'big.bin')}:big.bin`, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('"content": "<1,048,576 bytes, base64>"');
    writeFileSync(join(dir, 'desired.yaml'), 'version: 1\nprojects:\n  acme/web:\n    push_rule: {max_file_size: 33}\n');
    const plan = await shell(`FORCE_COLOR=1 forgectl plan -f ${join(dir, 'desired.yaml')} | cat`);
    expect(plan.stdout).toContain('\u001b[3');
  });

  live('runs on this Node and prints its version', async () => {
    const result = await runProcess('sh', ['-c', 'node --version && forgectl --version && command -v forgectl && forgectl version && forgectl version -o json'], { env: baseEnv() });
    expect(result.stdout.split('\n').slice(0, 4)).toEqual([`v${version}`, `forgectl ${pkg.version}`, join(bin, 'forgectl'), `forgectl ${pkg.version}`]);
    expect(JSON.parse(result.stdout.split('\n').slice(4).join('\n'))).toEqual({ forgectl: pkg.version, node: version });
  });

  live('api /user on this Node: Node\'s own modules load under no V8 flag, undici\'s parser under --liftoff-only, and the second run takes every file from the code cache', async () => {
    const cache = tempDir();
    const extra = { XDG_CACHE_HOME: cache, NODE_OPTIONS: `--require ${v8FlagsPreload()}` };
    // The service records the day's activity at a user's first request (last_activity_on): the two runs compared come after it.
    expect((await forgectl(['api', '/user'])).code).toBe(0);
    const first = await forgectl(['api', '/user'], extra);
    expect(first).toMatchObject({ code: 0, stderr: 'WEBASSEMBLY liftoff-only\n' });
    const written = codeCacheFiles(cache);
    expect(written.size).toBeGreaterThan(3);
    expect(await forgectl(['api', '/user'], extra)).toMatchObject({ code: 0, stdout: first.stdout, stderr: first.stderr });
    expect(codeCacheFiles(cache)).toEqual(written); // accepted, not compiled again
  });

  live('a code cache file that cannot be written (a full disk) leaves no temporary file behind', async () => {
    const cache = tempDir();
    expect((await forgectl(['api', '/version'], { XDG_CACHE_HOME: cache })).code).toBe(0);
    const [folder] = readdirSync(join(cache, 'forgectl', 'code-cache'));
    const dir = join(cache, 'forgectl', 'code-cache', folder);
    // core.js compiled again, and its cache file cannot be replaced: a folder stands where it goes.
    rmSync(join(dir, 'core.js'));
    mkdirSync(join(dir, 'core.js'));
    const again = await forgectl(['api', '/version'], { XDG_CACHE_HOME: cache });
    expect(again.code, again.stderr).toBe(0);
    expect(readdirSync(dir).filter((file) => file.endsWith('.tmp'))).toEqual([]);
  });

  live('protects branches and keeps them as a desired-state file says, the default branch adopted', async () => {
    const dir = tempDir('forgectl-e2e-protected-');
    const file = join(dir, 'web.yaml');
    expect((await shell(`forgectl export --project acme/web > ${file}`)).code).toBe(0);
    // A global install's schema is in no project of the file's: no schema line naming one machine's prefix, on stdout or with -O.
    expect(readFileSync(file, 'utf8')).toMatch(/^# Exported by forgectl from /);
    expect((await forgectl(['export', '--project', 'acme/web', '-O', join(dir, 'web-O.yaml')])).code).toBe(0);
    expect(readFileSync(join(dir, 'web-O.yaml'), 'utf8')).toMatch(/^# Exported by forgectl from /);
    expect((await forgectl(['plan', '-f', file])).code).toBe(0);
    expect((await forgectl(['protected-branches', 'update', 'main', '--project', 'acme/web', '--merge-access-level', 'developer', '--allow-push', 'user:alice'])).code).toBe(0);
    const drift = await forgectl(['plan', '-f', file]);
    expect(drift.code).toBe(9);
    expect(drift.stdout).toContain('  ~ protected branch "main"\n      allowed_to_push: ["maintainer","user:alice"] → ["maintainer"]\n      allowed_to_merge: ["developer"] → ["maintainer"]');
    expect((await forgectl(['apply', '-f', file, '--yes'])).code).toBe(0);
    expect((await forgectl(['plan', '-f', file])).code).toBe(0);
    // Unprotecting asks first: off a terminal without --yes, nothing is sent.
    await clearRequests();
    expect((await forgectl(['protected-branches', 'unprotect', 'main', '--project', 'acme/web'])).code).toBe(2);
    expect((await requests()).filter((r) => r.method === 'DELETE')).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });

  live('reports every way a user reaches groups and projects: a group, a subgroup\'s project, a project shared with a group', async () => {
    const api = (line: string) => shell(`forgectl api ${line}`).then((r) => (expect(r.code, r.stderr).toBe(0), r.stdout.trim()));
    const sub = await api('-X POST /groups -f name=e2e-platform -f path=e2e-platform -F parent_id=1 --jq .id');
    await api(`-X POST /projects -f name=infra -f path=infra -F namespace_id=${sub} --jq .id`);
    const sec = await api('-X POST /groups -f name=e2e-sec -f path=e2e-sec --jq .id');
    const ops = await api('-X POST /groups -f name=e2e-ops -f path=e2e-ops --jq .id');
    await api(`-X POST /projects -f name=tools -f path=tools -F namespace_id=${ops} --jq .id`);
    expect((await forgectl(['members', 'add', 'priya', '--group', 'e2e-sec', '--access-level', 'maintainer'])).code).toBe(0);
    expect((await forgectl(['members', 'add', 'priya', '--project', 'acme/e2e-platform/infra', '--access-level', 'developer'])).code).toBe(0);
    await api(`-X POST /projects/e2e-ops%2Ftools/share -F group_id=${sec} -F group_access=20 -f expires_at=2099-06-30 --jq .id`);
    const report = await forgectl(['access', 'report', '--user', 'priya', '--concurrency', '8', '-o', 'json']);
    expect(report.code, report.stderr).toBe(0);
    const rows = (JSON.parse(report.stdout) as Array<Record<string, unknown>>).map((row) => `${row.place} ${row.role} ${row.via} ${row.source}${row.shared_via ? ` via ${row.shared_via}` : ''}`);
    expect(rows).toEqual(expect.arrayContaining([
      'acme guest direct acme',
      'acme/e2e-platform guest inherited acme',
      'acme/e2e-platform/infra developer direct acme/e2e-platform/infra',
      'e2e-sec maintainer direct e2e-sec',
      'e2e-ops/tools reporter shared e2e-sec via e2e-ops/tools',
    ]));
    const owners = await forgectl(['access', 'report', '--project', 'e2e-ops/tools', '--fail-on', 'owner']);
    expect(owners.code).toBe(9);
    expect(owners.stderr).toMatch(/^attention: owner in \d+ rows? \(/m);
    const dir = tempDir('forgectl-e2e-access-');
    expect((await shell(`forgectl access report --group acme --recursive --as-desired > ${dir}/members.yaml && forgectl plan -f ${dir}/members.yaml`)).code).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  live('writes a record, a list and an empty list in every format (YAML from the bundle too)', async () => {
    const cases: Array<[string[], (r: ProcessResult) => void]> = [
      [['users', 'get', 'alice', '-o', 'json'], (r) => expect(JSON.parse(r.stdout)).toMatchObject({ username: 'alice' })],
      [['users', 'get', 'alice', '-o', 'yaml'], (r) => expect(r.stdout).toMatch(/^id: 2\nusername: alice\n/)],
      [['users', 'get', 'alice', '-o', 'ndjson'], (r) => expect(JSON.parse(r.stdout).username).toBe('alice')],
      [['users', 'get', 'alice', '-o', 'csv', '--fields', 'id,username'], (r) => expect(r.stdout).toBe('id,username\r\n2,alice\r\n')],
      [['users', 'get', 'alice', '--fields', 'username,is_admin'], (r) => expect(r.stdout).toBe('username\talice\nis_admin\tfalse\n')],
      [['users', 'list', '--per-page', '3', '-o', 'json'], (r) => expect(JSON.parse(r.stdout)).toHaveLength(3)],
      [['users', 'list', '--per-page', '3', '-o', 'ndjson'], (r) => expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l))).toHaveLength(3)],
      [['users', 'list', '--per-page', '3', '-o', 'yaml', '--fields', 'username'], (r) => expect(r.stdout).toMatch(/^- username: \S+\n- username: \S+\n- username: \S+\n$/)],
      [['users', 'list', '--per-page', '3', '-o', 'csv', '--fields', 'id,username'], (r) => expect(r.stdout.split('\r\n')).toHaveLength(5)],
      [['users', 'list', '--per-page', '3', '--fields', 'username,state'], (r) => expect(r.stdout).toMatch(/^(\S+\tactive\n){3}$/)],
      [['users', 'list', '--search', 'nobody-by-this-name', '-o', 'json'], (r) => expect(JSON.parse(r.stdout)).toEqual([])],
      [['users', 'list', '--search', 'nobody-by-this-name', '-o', 'yaml'], (r) => expect(r.stdout).toBe('[]\n')],
      [['users', 'list', '--search', 'nobody-by-this-name', '-o', 'ndjson'], (r) => expect(r.stdout).toBe('')],
      [['users', 'list', '--search', 'nobody-by-this-name', '-o', 'csv', '--fields', 'id'], (r) => expect(r.stdout).toBe('id\r\n')],
      [['users', 'list', '--search', 'nobody-by-this-name'], (r) => expect(r.stdout).toBe('')],
      [['api', '/version', '-o', 'yaml'], (r) => expect(r.stdout).toMatch(/^version: /)],
    ];
    const results = await inBatches(cases, 4, ([args]) => forgectl(args));
    results.forEach((result, i) => {
      expect(result.code, `${cases[i][0].join(' ')}: ${result.stderr}`).toBe(0);
      cases[i][1](result);
    });
  });

  live('rotates a bot\'s token into a hidden CI/CD variable and a helper without showing it, then identifies and revokes it', async () => {
    const made = await forgectl(['tokens', 'create', '--group', 'acme', '--name', 'e2e-rotation-bot', '--scopes', 'api', '--access-level', 'maintainer', '--expires-in', '30d', '-o', 'json', '--yes']);
    expect(made.code, made.stderr).toBe(0);
    const dir = tempDir('forgectl-e2e-rotation-');
    const asBot = { ...baseEnv(), FORGECTL_CONFIG_DIR: dir };
    const first = (JSON.parse(made.stdout) as { token: string }).token;
    expect((await runProcess('forgectl', ['auth', 'login', '--profile', 'bot', '--url', sandbox!.url, '--token-stdin'], { env: asBot, input: `${first}\n` })).code).toBe(0);
    const rotated = await runProcess('forgectl', ['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--save-to', 'ci-var:acme/E2E_BOT_TOKEN', '--save-to', `exec:cat > '${join(dir, 'helper.token')}'`, '--save-to-profile', '--yes'], { env: asBot, timeoutMs: 30_000 });
    expect(rotated.code, rotated.stderr).toBe(0);
    const fresh = readFileSync(join(dir, 'helper.token'), 'utf8').trim();
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.bot.token).toBe(fresh);
    expect(rotated.stdout + rotated.stderr).not.toContain(fresh);
    const variable = await forgectl(['api', '/groups/acme/variables/E2E_BOT_TOKEN']);
    expect(JSON.parse(variable.stdout)).toMatchObject({ hidden: true, masked: true, protected: true, value: null });

    const identified = await forgectl(['tokens', 'identify', '-o', 'json'], {}, `${fresh}\n`);
    expect(identified.code, identified.stderr).toBe(0);
    expect(JSON.parse(identified.stdout)).toMatchObject({ type: 'group access token', name: 'e2e-rotation-bot', group: 'acme' });
    const revoked = await forgectl(['tokens', 'identify', '--revoke', '--yes'], {}, `${fresh}\n`);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await forgectl(['api', '/groups/acme'], { FORGECTL_TOKEN: fresh })).code).toBe(4);
  });

  live('rotating its own token into a new CI/CD variable without --save-to-profile saves it to the profile too: no lockout', async () => {
    const made = await forgectl(['tokens', 'create', '--group', 'acme', '--name', `lockbot-${version}`, '--scopes', 'api', '--access-level', 'maintainer', '--expires-in', '30d', '-o', 'json', '--yes']);
    expect(made.code, made.stderr).toBe(0);
    const dir = tempDir('forgectl-e2e-lockbot-');
    const asBot = { ...baseEnv(), FORGECTL_CONFIG_DIR: dir };
    const bot = (args: string[]) => runProcess('forgectl', ['-p', 'lockbot', ...args], { env: asBot, timeoutMs: 30_000 });
    const first = (JSON.parse(made.stdout) as { token: string }).token;
    expect((await runProcess('forgectl', ['auth', 'login', '--profile', 'lockbot', '--url', sandbox!.url, '--token-stdin'], { env: asBot, input: `${first}\n` })).code).toBe(0);
    const key = `LOCK_TOKEN_${version.replace(/\W/g, '_')}`;
    const rotated = await bot(['tokens', 'rotate', 'self', '--group', 'acme', '--expires-in', '30d', '--save-to', `ci-var:acme/${key}`, '--yes']);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stderr).toContain(`saved to profile "lockbot", CI/CD variable ${key} of group acme`);
    const self = await bot(['tokens', 'get', 'self', '--group', 'acme', '-o', 'json']);
    expect(self.code, self.stderr).toBe(0);
    expect((await forgectl(['api', `/groups/acme/variables/${key}`, '--jq', '.value'])).stdout).toBe('null\n');
    // Leaving the profile out with only the hidden variable to hold it is refused before anything is sent.
    const refused = await bot(['tokens', 'rotate', 'self', '--group', 'acme', '--no-save-to-profile', '--save-to', `ci-var:acme/${key}_2`, '--yes']);
    expect(refused.code).toBe(2);
    expect((await bot(['tokens', 'get', 'self', '--group', 'acme'])).code).toBe(0);
  });

  live('in a CI job, a rotation with no save target stops before sending: the new token never reaches the job log', async () => {
    const made = await forgectl(['tokens', 'create', '--group', 'acme', '--name', `cibot-${version}`, '--scopes', 'api', '--access-level', 'maintainer', '--expires-in', '30d', '-o', 'json', '--yes']);
    expect(made.code, made.stderr).toBe(0);
    const { id, token } = JSON.parse(made.stdout) as { id: number; token: string };
    const job = await forgectl(['tokens', 'rotate', String(id), '--group', 'acme', '--yes'], { CI: 'true' });
    expect(job.code, job.stderr).toBe(2);
    expect(job.stdout).toBe('');
    expect(job.stderr).toContain('the new token would be printed into the job log');
    // A crontab line ending in >/dev/null would discard it: refused too, nothing sent.
    const discarded = await shell(`forgectl tokens rotate ${id} --group acme --yes >/dev/null`);
    expect(discarded.code).toBe(2);
    expect(discarded.stderr).toContain('error: stdout is /dev/null, and the new token is shown only this once');
    expect((await forgectl(['api', '/groups/acme'], { FORGECTL_TOKEN: token })).code).toBe(0);
  });

  live('from cron, rotating self with a token_command and no save target stops before sending; saved through a helper, the next run works', async () => {
    const made = await forgectl(['tokens', 'create', '--group', 'acme', '--name', `cmdbot-${version}`, '--scopes', 'api', '--access-level', 'maintainer', '--expires-in', '30d', '-o', 'json', '--yes']);
    expect(made.code, made.stderr).toBe(0);
    const dir = tempDir('forgectl-e2e-cmdbot-');
    const file = join(dir, 'bot.token');
    writeFileSync(file, `${(JSON.parse(made.stdout) as { token: string }).token}\n`, { mode: 0o600 });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'cmd', profiles: { cmd: { url: sandbox!.url, token_command: `cat '${file}'` } } }), { mode: 0o600 });
    const cron = (args: string[]) => runProcess('forgectl', ['tokens', 'rotate', 'self', '--group', 'acme', '--yes', ...args], { env: { ...baseEnv(), FORGECTL_CONFIG_DIR: dir }, timeoutMs: 30_000 });
    const refused = await cron([]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('rotating self revokes the token in use');
    for (let run = 0; run < 2; run++) expect((await cron(['--save-to', `exec:umask 077; cat > '${file}'`])).code).toBe(0);
  });

  live('a cron rotation: a 429 to the rotate request is waited out; after an unknown outcome every message tells the same story', async () => {
    const made = await forgectl(['tokens', 'create', '--group', 'acme', '--name', `cronbot-${version}`, '--scopes', 'api', '--access-level', 'maintainer', '--expires-in', '30d', '-o', 'json', '--yes']);
    expect(made.code, made.stderr).toBe(0);
    const dir = tempDir('forgectl-e2e-cronbot-');
    const asCron = { ...baseEnv(), FORGECTL_CONFIG_DIR: dir };
    const cron = (args: string[]) => runProcess('forgectl', args, { env: asCron, timeoutMs: 30_000 });
    expect((await runProcess('forgectl', ['auth', 'login', '--profile', 'cron', '--url', sandbox!.url, '--token-stdin'], { env: asCron, input: `${(JSON.parse(made.stdout) as { token: string }).token}\n` })).code).toBe(0);
    const rotate = ['-p', 'cron', 'tokens', 'rotate', 'self', '--group', 'acme', '--expires-in', '30d', '--yes'];
    await fault({ method: 'POST', path: 'access_tokens/self/rotate$', status: 429, retry_after: 1 });
    const waited = await cron(rotate);
    expect(waited.code, waited.stderr).toBe(0);
    await fault({ method: 'POST', path: 'access_tokens/self/rotate$', drop: 'after' });
    expect((await cron(rotate)).code).toBe(8);
    const next = await cron(rotate);
    expect(next.code).toBe(4);
    expect(next.stderr).toContain('no recovery file holds a newer token for it. If an earlier rotation ended with exit 8 (outcome unknown), it may have happened and its new value is lost');
    const listed = await cron(['tokens', 'recover', '--list']);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain('a rotation that ended with exit 8, outcome unknown, leaves none: its new token never arrived, and cannot be recovered');
  });

  live('a session bus that accepts and never answers: a keyring profile ends at SIGTERM (143) and fails within seconds otherwise', async () => {
    const dir = tempDir('forgectl-e2e-wedged-');
    const busPath = join(dir, 'bus');
    const bus = createServer((socket) => {
      socket.on('data', () => undefined);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => bus.listen(busPath, resolve));
    try {
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'desk', profiles: { desk: { url: sandbox!.url, token_keyring: `wedged-e2e-${version}` } } }), { mode: 0o600 });
      const desk = { ...baseEnv(), FORGECTL_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: `unix:path=${busPath}` };
      const child = spawn('forgectl', ['users', 'list', '--limit', '1'], { env: desk, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const signalled = Date.now();
      child.kill('SIGTERM');
      expect(await closed).toBe(143);
      expect(Date.now() - signalled).toBeLessThan(2000);
      expect(stderr).toContain('interrupted by SIGTERM');
      const started = Date.now();
      const alone = await runProcess('forgectl', ['users', 'list', '--limit', '1'], { env: desk, timeoutMs: 30_000 });
      expect(alone.code).toBe(3);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(alone.stderr).toContain('no keyring answered within 4s');
    } finally {
      bus.close();
    }
  });

  live('keeps the token in the OS keyring at a terminal: no token in the config file, commands and rotation work', async () => {
    const service = await startSecretService();
    try {
      const dir = tempDir('forgectl-e2e-keyring-');
      // The user's shell at a desktop: the session bus, no FORGECTL_URL / FORGECTL_TOKEN.
      const desk = { ...baseEnv(), FORGECTL_CONFIG_DIR: dir, ...service.env };
      const { token, login } = await loginAtDesk(sandbox!.url, env(), desk, 'keyring-e2e');
      expect(login.stdout).toContain('token saved in the OS keyring');
      const file = readFileSync(join(dir, 'config.json'), 'utf8');
      expect(file).not.toContain(token);
      expect(file).toContain('"token_keyring"');
      const get = await runProcess('forgectl', ['users', 'get', 'alice', '-o', 'json'], { env: desk });
      expect(get.code, get.stderr).toBe(0);
      const rotated = await runProcess('forgectl', ['tokens', 'rotate', 'self', '--personal', '--save-to-profile', '--yes'], { env: desk });
      expect(rotated.code, rotated.stderr).toBe(0);
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(file);
      const status = await runProcess('forgectl', ['auth', 'status', '-o', 'json'], { env: desk });
      expect(JSON.parse(status.stdout)).toMatchObject({ user: 'alice', token_storage: 'keyring' });
      // Under CI=true the file is used, even at a terminal.
      const [ciCommand, ciArgs] = pty!(`printf '%s\\n' ${token} | forgectl -p ci auth login --url ${sandbox!.url} --token-stdin --no-verify`);
      expect((await runProcess(ciCommand, ciArgs, { env: { ...desk, CI: 'true', TERM: 'dumb' }, timeoutMs: 30_000 })).code).toBe(0);
      expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.ci).toMatchObject({ token });
    } finally {
      service.stop();
    }
  }, { terminal: true, programs: SECRET_SERVICE });

  live('prints tables on a terminal fitted to its width, with a header and visible control characters', async () => {
    // A note whose text tries to retitle the window and clear the screen.
    const created = await forgectl(['notes', 'create', '--project', 'acme/api', '--issue', '1', '--body', 'hi \u001b]0;owned\u0007 \u001b[2J bye', '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    const list = await onTerminal('forgectl users list --per-page 20; forgectl notes list --project acme/api --issue 1; forgectl users get alice; forgectl users list --search nobody-by-this-name');
    expect(list.code).toBe(0);
    const lines = list.stdout.replace(/\r/g, '').split('\n').filter(Boolean);
    // eslint-disable-next-line no-control-regex
    expect(lines[0]).toMatch(/^(\x1b\[1m)?id(\x1b\[22m)?\s+(\x1b\[1m)?username/);
    for (const line of lines) expect(visibleLength(line), line).toBeLessThanOrEqual(100);
    expect(list.stdout).not.toMatch(/[│┌─]/);
    expect(list.stdout).toContain('hi \\x1b]0;owned\\x07 \\x1b[2J bye');
    expect(list.stdout).not.toContain('\u001b]0;');
    expect(list.stdout).not.toContain('\u001b[2J');
    expect(list.stdout).toMatch(/username\S*\s+alice/);
    expect(list.stdout).toContain('no results');
    const tsv = await forgectl(['notes', 'list', '--project', 'acme/api', '--issue', '1']);
    expect(tsv.stdout).toContain('hi \\x1b]0;owned\\x07 \\x1b[2J bye');
  }, { terminal: true });

  live('apply never destroys a masked variable it replaces: a missing or unmaskable secret writes nothing, a failed create puts it back', async () => {
    const dir = tempDir('forgectl-e2e-replace-');
    expect((await shell(`printf 'keep-me-secret-1234' | forgectl variables set REPRO_KEY --project acme/web --masked --value-stdin`)).code).toBe(0);
    writeFileSync(join(dir, 'repro.yaml'), 'version: 1\nprojects:\n  acme/web:\n    variables:\n      - {key: REPRO_KEY, value: {env: REPRO_KEY}, masked: true, hidden: true}\n');
    // Read past forgectl, which never prints a masked value off a terminal.
    const variable = async () => (await (await fetch(`${sandbox!.url}/api/v4/projects/acme%2Fweb/variables/REPRO_KEY`, { headers: { 'PRIVATE-TOKEN': sandbox!.token } })).json()) as { value: string | null; hidden: boolean };
    const value = async () => (await variable()).value;
    const plan = await shell(`cd ${dir} && forgectl plan -f repro.yaml`);
    expect(plan.code).toBe(9);
    expect(plan.stdout).toContain('  -/+ variable REPRO_KEY … *   (deleted and created again: hidden is set only when a variable is created)');
    await clearRequests();
    const unset = await shell(`cd ${dir} && forgectl apply -f repro.yaml --yes`);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('the environment variable REPRO_KEY is not set; nothing was applied');
    const unmaskable = await shell(`cd ${dir} && REPRO_KEY="has space" forgectl apply -f repro.yaml --yes`);
    expect(unmaskable.code).toBe(2);
    expect(unmaskable.stderr).toContain('value cannot be masked: it contains whitespace; nothing was applied');
    expect((await requests()).filter((r) => r.method !== 'GET')).toEqual([]);
    expect(await value()).toBe('keep-me-secret-1234');
    await fault({ method: 'POST', path: '/projects/[^/]+/variables$', status: 500 });
    const failed = await shell(`cd ${dir} && REPRO_KEY=new-secret-value-99 forgectl apply -f repro.yaml --yes`);
    expect(failed.code).toBe(9);
    expect(failed.stdout).toContain('was put back as it was');
    expect(await value()).toBe('keep-me-secret-1234');
    expect((await shell(`cd ${dir} && REPRO_KEY=new-secret-value-99 forgectl apply -f repro.yaml --yes`)).code).toBe(0);
    expect((await variable()).hidden).toBe(true);
  });

  live('members and project deletion from the shell: removals ask first, a desired file with enforce names each removal, apply, plan 0', async () => {
    const dir = tempDir('forgectl-e2e-members-');
    expect((await forgectl(['members', 'add', 'user1,user2', '--group', 'acme', '--access-level', 'reporter'])).code).toBe(0);
    await clearRequests();
    const asked = await forgectl(['members', 'remove', 'user2', '--group', 'acme']);
    expect(asked.code).toBe(2);
    expect((await requests()).filter((r) => r.method === 'DELETE')).toEqual([]);
    writeFileSync(join(dir, 'members.yaml'), 'version: 1\ngroups:\n  acme:\n    members:\n      enforce: true\n      keep_bots: true\n      users: {root: owner, alice: maintainer, bob: developer, priya: guest, user1: reporter}\n');
    const plan = await shell(`cd ${dir} && forgectl plan -f members.yaml`);
    expect(plan.code).toBe(9);
    expect(plan.stdout).toContain('  - member user2\n      access_level: "reporter"\n');
    expect(plan.stdout).not.toMatch(/member (group_\d+_bot|service_account)/);
    expect((await shell(`cd ${dir} && forgectl apply -f members.yaml --yes`)).code).toBe(0);
    expect((await shell(`cd ${dir} && forgectl plan -f members.yaml`)).code).toBe(0);
    // A group's removal takes the memberships below it along: the question names them before anything is sent.
    expect((await forgectl(['members', 'add', 'user3', '--project', 'acme/api', '--access-level', 'developer'])).code).toBe(0);
    expect((await forgectl(['members', 'add', 'user3', '--group', 'acme', '--access-level', 'guest'])).code).toBe(0);
    const cascade = await forgectl(['members', 'remove', 'user3', '--group', 'acme']);
    expect(cascade.code).toBe(2);
    expect(cascade.stderr).toContain("It also removes user3's direct memberships of 1 project (acme/api) below it; --skip-subresources keeps them.");
    expect((await forgectl(['members', 'remove', 'user3', '--group', 'acme', '--yes'])).code).toBe(0);
    expect((await forgectl(['members', 'get', 'user3', '--project', 'acme/api'])).code).toBe(5);
    const created = await forgectl(['projects', 'create', '--path', 'e2e-doomed', '--namespace', 'acme']);
    expect(created.code, created.stderr).toBe(0);
    const deleted = await forgectl(['projects', 'delete', 'acme/e2e-doomed', '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stderr).toMatch(/Marked project acme\/e2e-doomed for deletion: it will really be deleted on \d{4}-\d{2}-\d{2}/);
  });

  live('--help of every command in the manifest: exit 0 with an example', async () => {
    const results = await inBatches(manifest, 4, (entry) => forgectl([...entry.path.split(' '), '--help']));
    results.forEach((result, i) => {
      const path = manifest[i].path;
      expect(result.code, `${path} --help: ${result.stderr}`).toBe(0);
      expect(result.stdout, path).toContain(`Usage: forgectl ${path}`);
      const examples = result.stdout.slice(result.stdout.indexOf('\nExamples:\n'));
      expect(examples, path).toMatch(/^\nExamples:\n {2}\$ .*forgectl /);
      for (const word of path.split(' ')) expect(examples, path).toContain(word);
    });
  }, { timeout: 120_000 });

  live('branches and tags: create from a ref, list, and delete only with --yes', async () => {
    const created = await forgectl(['branches', 'create', '--project', 'acme/api', '--branch', 'e2e/1.x', '--ref', 'v1.1.0', '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'e2e/1.x', merged: true });
    const tag = await forgectl(['tags', 'create', '--project', 'acme/api', '--name', 'e2e-1', '--ref', 'e2e/1.x', '--message', 'E2E']);
    expect(tag.code, tag.stderr).toBe(0);
    const listed = await forgectl(['tags', 'list', '--project', 'acme/api', '--fields', 'name,message']);
    expect(listed.stdout).toContain('e2e-1\tE2E\n');
    const refused = await forgectl(['branches', 'delete', 'e2e/1.x', '--project', 'acme/api']);
    expect(refused.code).toBe(2);
    expect((await forgectl(['branches', 'get', 'e2e/1.x', '--project', 'acme/api'])).code).toBe(0);
    for (const args of [['branches', 'delete', 'e2e/1.x'], ['tags', 'delete', 'e2e-1']]) {
      const deleted = await forgectl([...args, '--project', 'acme/api', '--yes']);
      expect(deleted.code, deleted.stderr).toBe(0);
    }
  });

  live('a file variable piped to --value-stdin keeps its final newline, as --value-file does', async () => {
    const key = `E2E_PEM_${version.split('.')[0]}`;
    const set = await shell(`printf 'line1\\nline2\\n' | forgectl variables set ${key} --project acme/web --type file --value-stdin >/dev/null; forgectl variables get ${key} --project acme/web -o json --fields value`);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ value: 'line1\nline2\n' });
  });

  live('delete-merged keeps protected branches; doctor and doctor --fix run on a 0644 or broken config file', async () => {
    const created = await forgectl(['branches', 'create', '--project', 'acme/api', '--branch', 'release/1.2', '--ref', 'main', '-o', 'json']);
    expect(JSON.parse(created.stdout)).toMatchObject({ protected: true, merged: true });
    const deleted = await shell('forgectl branches delete-merged --project acme/api --yes; forgectl branches get release/1.2 --project acme/api --jq .name');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe('release/1.2\n');
    expect(deleted.stderr).toMatch(/kept, protected: (.*, )?release\/1\.2\b/);
    const home = tempDir('forgectl-e2e-doctor-');
    const own = { FORGECTL_CONFIG_DIR: home, FORGECTL_URL: undefined, FORGECTL_TOKEN: undefined };
    expect((await forgectl(['auth', 'login', '--url', sandbox!.url, '--token-stdin'], own, sandbox!.token)).code).toBe(0);
    const fixed = await shell(`chmod 644 ${home}/config.json; forgectl doctor --fix; echo "exit $?"; stat -c %a ${home}/config.json`, own);
    expect(fixed.stdout).toMatch(/^pass\tconfiguration\tfile modes\tfixed: chmod 600 /m);
    expect(fixed.stdout).toMatch(/exit 0\n600\n$/);
    const broken = await shell(`echo '{bad' > ${home}/config.json; forgectl doctor; echo "exit $?"`, own);
    expect(broken.stdout).toContain(`fail\tconfiguration\tprofiles\tconfig ${home}/config.json is not valid JSON\tfix or remove it, then run: forgectl auth login`);
    expect(broken.stdout.trim().split('\n')).toHaveLength(21);
    expect(broken.stdout).toMatch(/exit 3\n$/);
    rmSync(home, { recursive: true, force: true });
  });

  live('users offboard: refused unconfirmed off a terminal, then blocked with nothing left; a second run has nothing to do; one killed after its first removal is finished by the next', async () => {
    const api = rootApi();
    const name = `e2e-leaver-${version.split('.')[0]}`;
    const user = await departingUser(api, name);
    await clearRequests();
    const refused = await forgectl(['users', 'offboard', name]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/error: confirmation needed: Offboard e2e-leaver-\d+: block, 3 memberships removed, 2 tokens revoked, 2 keys deleted\?\nhint: pass --yes to confirm without a terminal\n$/);
    expect((await requests()).filter((r) => r.method !== 'GET')).toEqual([]);
    const done = await forgectl(['users', 'offboard', name, '--yes']);
    expect(done.code, done.stderr).toBe(0);
    expect(await leftOf(api, user.id)).toEqual(OFFBOARDED);
    const again = await forgectl(['users', 'offboard', name, '--yes']);
    expect([again.code, again.stderr]).toEqual([0, expect.stringContaining('nothing to do')]);

    const other = `e2e-killed-${version.split('.')[0]}`;
    const killed = await departingUser(api, other);
    await fault({ method: 'DELETE', path: '/members/\\d+$', answer_latency_ms: 60_000 });
    const child = spawn('forgectl', ['users', 'offboard', other, '--yes'], { env: env(), stdio: 'ignore' });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const deadline = Date.now() + 20_000;
    while ((await leftOf(api, killed.id)).memberships.length !== 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    child.kill('SIGKILL');
    await exited;
    await clearFaults();
    expect((await leftOf(api, killed.id)).memberships).toHaveLength(2);
    const finished = await forgectl(['users', 'offboard', other, '--yes']);
    expect(finished.code, finished.stderr).toBe(0);
    expect(await leftOf(api, killed.id)).toEqual(OFFBOARDED);
  });

  live('a script\'s unset variable deletes nothing: users delete "$U", groups delete $G and projects delete $P with --yes exit 2', async () => {
    const profile = tempDir('forgectl-e2e-defaults-');
    const withDefaults = { FORGECTL_CONFIG_DIR: profile };
    for (const [key, value] of [['url', sandbox!.url], ['default_group', 'acme'], ['default_project', 'acme/api']]) expect((await forgectl(['profile', 'set', key, value], withDefaults)).code).toBe(0);
    await clearRequests();
    const lines = await shell('U=; G=; P=; forgectl users delete "$U" --yes; echo "users $?"; forgectl groups delete $G --yes; echo "groups $?"; forgectl projects delete "$P" --yes; echo "projects $?"', { ...withDefaults, FORGECTL_TOKEN: sandbox!.token });
    expect(lines.stdout).toBe('users 2\ngroups 2\nprojects 2\n');
    expect(lines.stderr).toContain('error: no user given: name the user by username or ID; nothing was sent');
    expect(lines.stderr).toContain("error: missing required argument 'group'");
    expect(lines.stderr).toContain("error: no project given: a deletion takes the project as an argument, never the profile's default_project; nothing was sent");
    expect((await requests()).filter((r) => r.method !== 'GET')).toEqual([]);
    rmSync(profile, { recursive: true, force: true });
  });

  live('users offboard --plan-only at a terminal shows each step once (the table), and refuses the caller\'s own account', async () => {
    const api = rootApi();
    const name = `e2e-planned-${version.split('.')[0]}`;
    await departingUser(api, name);
    const shown = await onTerminal(`forgectl users offboard ${name} --plan-only`);
    expect(shown.code, shown.stdout).toBe(9);
    expect(shown.stdout).toContain(`Offboarding ${name}`);
    expect(shown.stdout.match(/remove-membership/g)).toHaveLength(3);
    const self = await onTerminal('forgectl users ban root --yes');
    expect(self.stdout).toContain("error: you cannot ban yourself: the token in use is root's own");
    expect((await api.call('GET', '/users/1')).body.state).toBe('active');
  }, { terminal: true });

  live('one member\'s failure is an error with its hint; a Developer\'s file deletion on protected main is refused unasked; a private key is refused unsent; masked values read masked; a runner token and a new access token go 0600', async () => {
    const member = await forgectl(['members', 'add', 'alice', '--group', 'acme', '--access-level', 'developer']);
    expect(member.code).toBe(6);
    expect(member.stderr).toMatch(/^error: Member already exists \(POST \/groups\/acme\/members → 409\)\nhint: alice is a member of group acme already, differently: access level maintainer, not developer; change it with: forgectl members update alice --group acme --access-level developer\n$/);
    const asAsked = await forgectl(['members', 'add', 'alice', '--group', 'acme', '--access-level', 'maintainer']);
    expect(asAsked.code, asAsked.stderr).toBe(0);
    expect(asAsked.stderr).toContain('alice (maintainer) is already a member of group acme as asked: nothing sent');
    // A bare 403 says what the command needs, as its help does.
    const bob = (await rootApi().call('POST', '/users/3/personal_access_tokens', { name: 'e2e-bob', scopes: ['api'], expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10) })).body as { token: string };
    const refused = await forgectl(['variables', 'list', '--project', 'acme/api'], { FORGECTL_TOKEN: bob.token });
    expect(refused).toMatchObject({ code: 4, stdout: '', stderr: 'error: 403 Forbidden (GET /projects/acme%2Fapi/variables → 403)\nhint: variables list needs the Maintainer role (administrators for --instance)\n' });
    // A Developer deleting a file on protected main is refused before the question, and nothing is sent.
    await clearRequests();
    const onMain = await forgectl(['files', 'delete', 'README.md', '--branch', 'main', '-m', 'Remove', '--project', 'acme/api'], { FORGECTL_TOKEN: bob.token });
    expect(onMain.code).toBe(4);
    expect(onMain.stderr).toMatch(/^error: branch main of project acme\/api is protected and its protection does not let you push to it; nothing was sent\nhint: /);
    expect((await requests()).filter((r) => !['GET', 'HEAD'].includes(r.method))).toEqual([]);
    const dir = tempDir('forgectl-e2e-keys-');
    const secretBody = 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQ';
    writeFileSync(join(dir, 'deploy'), `-----BEGIN OPENSSH PRIVATE KEY-----\n${secretBody}\n-----END OPENSSH PRIVATE KEY-----\n`);
    await clearRequests();
    const key = await forgectl(['deploy-keys', 'create', '--project', 'acme/web', '--title', 'oops', '--key-file', join(dir, 'deploy'), '--dry-run']);
    expect(key.code).toBe(2);
    expect(key.stdout + key.stderr).not.toContain(secretBody);
    expect((await requests()).filter((r) => r.method !== 'GET')).toEqual([]);
    const masked = await forgectl(['variables', 'get', 'DEPLOY_TOKEN', '--project', 'acme/api', '--scope', 'production', '--fields', 'key,value']);
    expect(masked.stdout).toBe('key\tDEPLOY_TOKEN\nvalue\tmasked\n');
    const runner = await shell(`umask 022; forgectl runners create --group acme --description e2e-runner --output-file ${dir}/runner.token -o json; stat -c %a ${dir}/runner.token`);
    expect(runner.code, runner.stderr).toBe(0);
    expect(runner.stdout).not.toContain('glrt-');
    expect(runner.stdout.trim().split('\n').at(-1)).toBe('600');
    expect(readFileSync(join(dir, 'runner.token'), 'utf8')).toMatch(/^glrt-/);
    const access = await shell(`umask 022; forgectl tokens create --project acme/api --name e2e-file --scopes read_api --expires-in 7d --output-file ${dir}/project.token -o json; stat -c %a ${dir}/project.token`);
    expect(access.code, access.stderr).toBe(0);
    expect(access.stdout).not.toContain('glpat-');
    expect(access.stdout.trim().split('\n').at(-1)).toBe('600');
    expect(readFileSync(join(dir, 'project.token'), 'utf8')).toMatch(/^glpat-/);
    rmSync(dir, { recursive: true, force: true });
  });

  live('commits set-status, statuses and revert --check', async () => {
    const set = await forgectl(['commits', 'set-status', 'main', '--state', 'running', '--name', 'e2e', '--project', 'acme/api']);
    expect(set.code, set.stderr).toBe(0);
    const list = await forgectl(['commits', 'statuses', 'main', '--name', 'e2e', '--fields', 'name,status', '--project', 'acme/api']);
    expect(list.stdout).toBe('e2e\trunning\n');
    expect((await forgectl(['branches', 'create', '--branch', 'e2e-revert', '--ref', 'v1.1.0', '--project', 'acme/api'])).code).toBe(0);
    const check = await forgectl(['commits', 'revert', 'v1.1.0', '--branch', 'e2e-revert', '--check', '--project', 'acme/api']);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stderr).toContain('applies cleanly');
  });

  live('commits create: a push that lands just before the commit is refused by the service (exit 6, naming the file), not undone', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'shared.txt'), 'ours 1\n');
    const sync = () => forgectl(['commits', 'create', '--project', 'acme/api', '--branch', 'main', '-m', 'sync', '--from-dir', dir, '--to', 'e2e-race/']);
    expect((await sync()).code).toBe(0);
    writeFileSync(join(dir, 'shared.txt'), 'ours 2\n');
    // A teammate's push, processed by the sandbox just before the commit request: after every check forgectl makes.
    await fault({ method: 'POST', path: '/repository/commits$', interleave: { method: 'PUT', path: '/projects/acme%2Fapi/repository/files/e2e-race%2Fshared.txt', body: { branch: 'main', commit_message: 'teammate', content: 'theirs\n' } } });
    const refused = await sync();
    expect(refused.code, refused.stderr).toBe(6);
    expect(refused.stderr).toMatch(/^error: branch main moved while this commit was sent \([0-9a-f]{8} → [0-9a-f]{8}\) and the new commits change e2e-race\/shared\.txt\nhint: nothing was committed: run the command again to compare with the branch as it is now\n$/);
    const file = await fetch(`${sandbox!.url}/api/v4/projects/acme%2Fapi/repository/files/e2e-race%2Fshared.txt/raw?ref=main`, { headers: { 'PRIVATE-TOKEN': sandbox!.token } });
    expect(await file.text()).toBe('theirs\n');
    rmSync(dir, { recursive: true, force: true });
  });

  live('deploy-keys: create on one project, enable on another, delete only with --yes', async () => {
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFgrWUVS92aTH7L9CyzOEGGVlhcKMxiHM94X5TZUM2WJ e2e@ci';
    const created = await forgectl(['deploy-keys', 'create', '--project', 'acme/web', '--title', 'e2e', '--key', key, '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    const id = String(JSON.parse(created.stdout).id);
    expect((await forgectl(['deploy-keys', 'enable', id, '--project', 'acme/api'])).code).toBe(0);
    const list = await forgectl(['deploy-keys', 'list', '--project', 'acme/api', '--fields', 'id,title']);
    expect(list.stdout).toContain(`${id}\te2e\n`);
    expect((await forgectl(['deploy-keys', 'delete', id, '--project', 'acme/api'])).code).toBe(2);
    expect((await forgectl(['deploy-keys', 'delete', id, '--project', 'acme/api', '--yes'])).code).toBe(0);
  });

  live('a closed pipe (| head -1) ends a long list quietly with exit 0', async () => {
    for (const line of ['forgectl users list --all --per-page 20 | head -1', 'forgectl api /users --paginate -f per_page=20 -o ndjson | head -1']) {
      const result = await shell(`set -o pipefail; ${line}`);
      expect(result.code, `${line}: ${result.stderr}`).toBe(0);
      expect(result.stdout.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toBe('');
    }
  });

  live('stdout on a full disk (> /dev/full) is a failure that says so, for a list, a record and -o json', async () => {
    for (const line of ['forgectl users list --all --per-page 20 > /dev/full', 'forgectl api /user > /dev/full', 'forgectl users list --all -o json > /dev/full']) {
      const result = await shell(line);
      expect(result.code, `${line}: ${result.stderr}`).toBe(2);
      expect(result.stderr, line).toMatch(/^error: cannot write stdout: no space left on the device\nhint: what stdout holds is incomplete.*; free some space and run the command again\n/);
    }
  });

  live('a long list as NDJSON and JSON, some pages in chunks, over kept-alive connections: the same bytes with --verbose', async () => {
    await fault({ method: 'GET', path: '^/users$', query: '(^|&)page=(3|9|17)(&|$)', chunked: true, times: 12 });
    for (const format of ['ndjson', 'json']) {
      const quiet = await forgectl(['users', 'list', '--all', '--per-page', '10', '-o', format]);
      const verbose = await forgectl(['--verbose', 'users', 'list', '--all', '--per-page', '10', '-o', format]);
      expect([quiet.code, verbose.code], quiet.stderr).toEqual([0, 0]);
      expect(quiet.stdout).toBe(verbose.stdout);
      // Pages are fetched ahead, so the verbose lines of requests interleave: each carries its request's number.
      const sent = verbose.stderr.split('\n').filter((line) => /> GET /.test(line)).map((line) => /^\[(\d+)\] > GET /.exec(line)?.[1]);
      expect(sent.length).toBeGreaterThan(25);
      expect(new Set(sent).size, verbose.stderr.slice(0, 2000)).toBe(sent.length);
      expect(sent).not.toContain(undefined);
      const records = (format === 'json' ? JSON.parse(quiet.stdout) : quiet.stdout.trim().split('\n').map((line) => JSON.parse(line))) as Array<{ id: number }>;
      expect(records.length).toBeGreaterThan(250);
      expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
    }
    await clearFaults();
  });

  live('Ctrl-C (SIGINT) during a long list: exit 130, the JSON array closed, one line on stderr', async () => {
    await fault({ method: 'GET', path: '^/users$', query: '(^|&)page=3(&|$)', latency_ms: 20_000 });
    const child = spawn('forgectl', ['users', 'list', '--all', '--per-page', '20', '-o', 'json'], { env: env() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    while ((stdout.match(/"username"/g) ?? []).length < 40) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    await clearFaults();
    expect(JSON.parse(stdout)).toHaveLength(40);
    expect(stderr).toBe('interrupted by SIGINT: output is incomplete: 40 records written\n');
  });

  live('Ctrl-C (SIGINT) during apply: exit 130 and one block naming the changes done, in flight and never started', async () => {
    const dir = tempDir('forgectl-e2e-interrupt-');
    const desired = join(dir, 'badges.yaml');
    writeFileSync(desired, 'version: 1\nprojects:\n  acme/api:\n    badges:\n      - {name: e2e-one, link_url: "https://ci.example.com/1", image_url: "https://ci.example.com/1.svg"}\n      - {name: e2e-two, link_url: "https://ci.example.com/2", image_url: "https://ci.example.com/2.svg"}\n      - {name: e2e-three, link_url: "https://ci.example.com/3", image_url: "https://ci.example.com/3.svg"}\n');
    await clearRequests();
    // The second create is processed, its answer held back: the signal comes while it is in flight.
    await fault({ method: 'POST', path: 'badges$', answer_latency_ms: 50 });
    await fault({ method: 'POST', path: 'badges$', answer_latency_ms: 20_000 });
    const child = spawn('forgectl', ['apply', '-f', desired, '--yes'], { env: env() });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    while ((await requests()).filter((r) => r.method === 'POST').length < 1 || !stderr.includes('Plan:')) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    await clearFaults();
    expect(stderr.slice(stderr.indexOf('interrupted by'))).toBe([
      'interrupted by SIGINT: POST /projects/acme%2Fapi/badges was sent; whether the server acted on it is unknown',
      '  done: 1 of 3 changes (project acme/api: badge "e2e-one")',
      '  in flight: 1 (project acme/api: badge "e2e-two")',
      '  never started: 1 (project acme/api: badge "e2e-three")',
      '',
    ].join('\n'));
  });

  live('runners reset-token stopped (SIGTERM) while its request is in flight keeps the new token; the next run saves it and does not reset again', async () => {
    const resets = async () => (await requests()).filter((r) => r.method === 'POST' && r.path.endsWith('/runners/4/reset_authentication_token'));
    await clearRequests();
    // The service resets the token at once; its answer is held back, so the signal comes while it is on its way.
    await fault({ method: 'POST', path: 'reset_authentication_token$', answer_latency_ms: 1500 });
    const file = join(tempDir(), 'runner-4.token');
    const child = spawn('forgectl', ['runners', 'reset-token', '4', '--output-file', file, '--yes'], { env: env() });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    while (!(await resets()).length) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    await clearFaults();
    expect(stderr).toMatch(/interrupted \(SIGTERM\) after the token was reset: the new token is in the recovery file \S+runners\/runner-\S+\.json \(mode 0600\)/);
    expect(existsSync(file)).toBe(false);

    await clearRequests();
    const next = await forgectl(['runners', 'reset-token', '4', '--output-file', file, '--yes']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain('finishing it from');
    expect(await resets()).toEqual([]);
    const token = readFileSync(file, 'utf8').trim();
    const verify = await fetch(`${sandbox!.url}/api/v4/runners/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    expect(verify.status).toBe(200);
  });

  live('a page that fails under --all: the JSON array closed, and stderr says how much was written', async () => {
    await fault({ method: 'GET', path: '^/users$', query: '(^|&)page=3(&|$)', status: 500, times: 10 });
    const result = await forgectl(['--retries', '0', 'users', 'list', '--all', '--per-page', '20', '-o', 'json']);
    await clearFaults();
    expect(result.code).toBe(8);
    expect(JSON.parse(result.stdout)).toHaveLength(40);
    expect(result.stderr).toMatch(/^error: 500 Injected fault \(GET \/users → 500\)\n.*\noutput is incomplete: 40 records written\n$/);
  });

  live('a CI job configured only by its environment: no HOME, an unwritable working folder, a CRLF token, an empty one', async () => {
    const ci = (extra: NodeJS.ProcessEnv) => ({ PATH: baseEnv().PATH, CI: 'true', FORGECTL_URL: sandbox!.url, ...extra });
    const cwd = tempDir();
    chmodSync(cwd, 0o555);
    const [noHome, crlf, empty, other] = await Promise.all([
      runProcess('forgectl', ['projects', 'list', '--limit', '1', '--jq', '.path_with_namespace'], { env: ci({ FORGECTL_TOKEN: sandbox!.token }), cwd }),
      // `export FORGECTL_TOKEN=$(cat token.txt)` of a file saved with CRLF: the CR stays in the variable.
      runProcess('forgectl', ['api', '/user', '--jq', '.username'], { env: ci({ HOME: '/nonexistent', FORGECTL_TOKEN: `${sandbox!.token}\r` }) }),
      runProcess('forgectl', ['api', '/user'], { env: ci({ FORGECTL_TOKEN: '' }) }),
      runProcess('forgectl', ['api', '/user'], { env: ci({ GITLAB_TOKEN: sandbox!.token }) }),
    ]);
    expect(noHome.code, noHome.stderr).toBe(0);
    expect(noHome.stdout).toMatch(/^[\w.-]+(\/[\w.-]+)+\n$/); // one project, whichever the tests before made first
    expect(crlf.code, crlf.stderr).toBe(0);
    expect(crlf.stdout).toBe('root\n');
    expect(crlf.stderr).toBe('');
    expect(empty.code).toBe(3);
    expect(empty.stderr).toContain('hint: FORGECTL_TOKEN is set but empty');
    expect(other.code).toBe(3);
    expect(other.stderr).toContain('hint: GITLAB_TOKEN is set, but forgectl reads its token from FORGECTL_TOKEN');
    expect(other.stderr).not.toContain(sandbox!.token);
  });

  live('usage errors exit 2, a missing configuration exits 3, local files and busy ports are named', async () => {
    const port = new URL(sandbox!.url).port;
    const [flag, unconfigured, input, output, busy] = await Promise.all([
      forgectl(['users', 'list', '--no-such-flag']),
      runProcess('forgectl', ['users', 'list'], { env: { ...baseEnv(), FORGECTL_CONFIG_DIR: tempDir() } }),
      forgectl(['api', '/version', '--input', '/nonexistent/body.json', '-X', 'POST']),
      forgectl(['license', 'usage-export', '--output-file', '/nonexistent/dir/usage.csv']),
      forgectl(['sandbox', '--port', port]),
    ]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("unknown option '--no-such-flag'");
    expect(unconfigured.code).toBe(3);
    expect(unconfigured.stderr).toMatch(/^error: no instance configured\nhint: run: forgectl auth login/);
    expect(input.code).toBe(2);
    expect(input.stderr).toBe('error: cannot read /nonexistent/body.json: no such file\n');
    expect(output.code).toBe(2);
    expect(output.stderr).toBe('error: cannot write /nonexistent/dir/usage.csv: no such folder /nonexistent/dir\n');
    expect(busy.code).toBe(2);
    expect(busy.stderr).toContain(`error: cannot listen on 127.0.0.1:${port}: the port is in use`);
  });

  live('api graphql from the shell: --paginate gives the usernames of users list --all, errors exit with their kind, a query that cannot page is refused', async () => {
    const query = 'query($endCursor: String) { users(first: 100, after: $endCursor) { pageInfo { hasNextPage endCursor } nodes { username } } }';
    const [pages, list, invalid, unpaged] = await Promise.all([
      forgectl(['api', 'graphql', '--paginate', '-f', `query=${query}`, '--jq', '.data.users.nodes[].username']),
      forgectl(['users', 'list', '--all', '--jq', '.username']),
      forgectl(['api', 'graphql', '-f', 'query={ runners { nodes { secret } } }']),
      forgectl(['api', 'graphql', '--paginate', '-f', 'query={ users { pageInfo { hasNextPage endCursor } nodes { username } } }']),
    ]);
    expect(pages.code, pages.stderr).toBe(0);
    expect(pages.stdout.split('\n').length).toBeGreaterThan(250);
    expect(pages.stdout).toBe(list.stdout);
    expect(invalid).toMatchObject({ code: 6, stdout: '', stderr: 'error: Cannot query field "secret" on type "CiRunner". (POST /api/graphql → 200)\n' });
    expect(unpaged.code).toBe(2);
    expect(unpaged.stderr).toContain('requires that the query accepts an $endCursor: String variable');
  });

  live('an HTML page where JSON belongs is exit 8; a body cut off mid-way is retried', async () => {
    await fault({ method: 'GET', path: '^/users/2$', status: 200, body: '<!DOCTYPE html><title>Sign in</title>', headers: { 'Content-Type': 'text/html' } });
    const html = await forgectl(['users', 'get', '2']);
    expect(html.code).toBe(8);
    expect(html.stderr).toMatch(/^error: the server answered 200 with text\/html, not JSON \(GET \/users\/2\)\n/);
    await fault({ method: 'GET', path: '^/users/2$', drop: 'body' });
    const cut = await forgectl(['users', 'get', '2', '-o', 'json']);
    expect(cut.code, cut.stderr).toBe(0);
    expect(JSON.parse(cut.stdout).username).toBe('alice');
    await clearFaults();
  });

  live('hostile answers through a raw-socket front: refused framing and an empty 200 exit 8 with nothing printed; a rotated token behind bare-LF headers reaches the recovery file', async () => {
    const front = await startHostileFront(sandbox!.url);
    try {
      const viaFront = { FORGECTL_URL: front.url };
      for (const hostility of ['bare LF line ends', 'two different Content-Length values', 'a NUL in a header value', 'an empty body'] as const) {
        front.damage({ method: 'GET', path: /^\/users$/, hostility, times: 5 });
        const list = await forgectl(['--retries', '0', 'users', 'list', '--all', '-o', 'json'], viaFront);
        expect(list, hostility).toMatchObject({ code: 8, stdout: '' });
        expect(list.stderr.split('\n').filter((line) => line.startsWith('error:')), list.stderr).toHaveLength(1);
      }
      const expires = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
      const made = await fetch(`${sandbox!.url}/api/v4/users/1/personal_access_tokens`, { method: 'POST', headers: { 'PRIVATE-TOKEN': sandbox!.token, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: `e2e-hostile-${version}`, scopes: ['api'], expires_at: expires }) });
      const old = ((await made.json()) as { token: string }).token;
      const config = tempDir();
      front.damage({ method: 'POST', path: /\/rotate$/, hostility: 'bare LF line ends' });
      const rotated = await forgectl(['tokens', 'rotate', 'self', '--personal', '--no-save-to-profile', '--output-file', join(config, 'new.token'), '--yes'], { ...viaFront, FORGECTL_CONFIG_DIR: config, FORGECTL_TOKEN: old });
      expect(rotated.code, rotated.stderr).toBe(8);
      expect(rotated.stdout + rotated.stderr).not.toContain('glpat-');
      const kept = readdirSync(join(config, 'recovery')).map((file) => readFileSync(join(config, 'recovery', file), 'utf8')).join('\n').match(/glpat-[\w-]+/)?.[0];
      expect(kept).toBeDefined();
      const works = await fetch(`${sandbox!.url}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': kept! } });
      expect(works.status).toBe(200);
      // 20 KiB of headers (a chain of proxies) on the rotate answer: read, the new token saved and working.
      const next = tempDir();
      front.damage({ method: 'POST', path: /\/rotate$/, hostility: '20 KiB of headers' });
      const large = await forgectl(['tokens', 'rotate', 'self', '--personal', '--no-save-to-profile', '--output-file', join(next, 'new.token'), '--yes'], { ...viaFront, FORGECTL_CONFIG_DIR: next, FORGECTL_TOKEN: kept! });
      expect(large.code, large.stderr).toBe(0);
      const saved = readFileSync(join(next, 'new.token'), 'utf8').trim();
      expect((await fetch(`${sandbox!.url}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': saved } })).status).toBe(200);
    } finally {
      await front.close();
    }
  });

  live('--jq, --template and --fields give the data as it is, or fail saying why: never wrong data with exit 0', async () => {
    // An HTML page under --jq or --template: exit 8, nothing printed.
    await fault({ method: 'GET', path: '^/users/2$', status: 200, body: '<!DOCTYPE html><title>Sign in</title>', headers: { 'Content-Type': 'text/html' }, times: 2 });
    for (const shaping of [['--jq', '.id'], ['--template', '{{ id }}']]) {
      const html = await forgectl(['api', '/users/2', ...shaping]);
      expect(html, shaping.join(' ')).toMatchObject({ code: 8, stdout: '' });
      expect(html.stderr).toMatch(/^error: the server answered 200 with text\/html, not JSON \(GET \/users\/2\)\n/);
    }
    // A null answer, and numbers as written, reach jq.
    await fault({ method: 'GET', path: '^/answer$', status: 200, body: '[null, 100000000000000000001, 1.0]', headers: { 'Content-Type': 'application/json' } });
    expect(await forgectl(['api', '/answer', '--jq', '.'])).toMatchObject({ code: 0, stdout: 'null\n100000000000000000001\n1.0\n' });
    await clearFaults();
    // A line separator in a description stays as it is with --fields (-o json).
    const description = 'line1\u2028line2\u2029end';
    expect((await forgectl(['api', '-X', 'PUT', '/projects/acme%2Fweb', '-f', `description=${description}`])).code).toBe(0);
    const listed = await forgectl(['projects', 'list', '--group', 'acme', '--fields', 'path,description', '-o', 'json']);
    expect((JSON.parse(listed.stdout) as Array<{ path: string; description: string }>).find((p) => p.path === 'web')?.description).toBe(description);
    // A template naming what the records do not have, or written in Go's language: exit 2, saying so.
    expect(await forgectl(['users', 'list', '--template', '{{ nosuchfield }}'])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('undefined variable: nosuchfield') });
    expect(await forgectl(['users', 'list', '--template', '{{range .}}{{.username}}{{end}}'])).toMatchObject({ code: 2, stderr: expect.stringContaining('is Go template syntax, not Liquid') });
    // An error of the expression while it runs is bad input: exit 2, nothing of the failing value printed.
    expect(await forgectl(['tags', 'list', '--project', 'acme/api', '--slurp', '--jq', '.name'])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^error: --jq: Cannot index array with string "name"\nhint: /) });
    // An unknown --fields of a read is refused before the first request.
    await clearRequests();
    expect(await forgectl(['access', 'report', '--user', 'root', '--fields', 'place,nope'])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^error: unknown field: nope/) });
    expect(await requests()).toEqual([]);
    // jq out of memory: one line, exit 1.
    const memory = await forgectl(['api', '/version', '--jq', 'def f: [f]; f']);
    expect(memory).toMatchObject({ code: 1, stdout: '', stderr: 'error: --jq: jq ran out of memory (it has 2 GB)\nhint: the expression builds a value too large, or recurses without end\n' });
  });

  live('path parameters . and .. stay one encoded segment', async () => {
    await clearRequests();
    const result = await forgectl(['badges', 'list', '--project', '..']);
    expect(result.code).toBe(5);
    expect((await requests()).map((r) => r.path.replace(/\?.*/, ''))).toEqual(['/api/v4/projects/%2E%2E/badges']);
  });

  live('audit events, approval state, and a plan that names who changed a drifted object', async () => {
    const badge = await forgectl(['badges', 'create', '--project', 'acme/web', '--name', 'e2e-audit', '--link-url', 'https://ci.example.com/web', '--image-url', 'https://ci.example.com/web.svg', '-o', 'json']);
    expect(badge.code, badge.stderr).toBe(0);
    const desired = join(configDir, 'audit-desired.yaml');
    writeFileSync(desired, 'version: 1\nprojects:\n  acme/web:\n    badges:\n      - {name: e2e-audit, link_url: "https://ci.example.com/web", image_url: "https://ci.example.com/web.svg"}\n');
    expect((await forgectl(['plan', '-f', desired])).code).toBe(0);
    // alice, with a token of her own, changes the badge by hand.
    const token = await forgectl(['api', '-X', 'POST', '/users/2/personal_access_tokens', '--input', '-', '-o', 'json'], {}, JSON.stringify({ name: 'audit-e2e', scopes: ['api'] }));
    const alice = { FORGECTL_TOKEN: (JSON.parse(token.stdout) as { token: string }).token };
    expect((await forgectl(['badges', 'update', String((JSON.parse(badge.stdout) as { id: number }).id), '--project', 'acme/web', '--link-url', 'https://ci.example.com/by-hand'], alice)).code).toBe(0);
    const events = await forgectl(['audit-events', 'list', '--project', 'acme/web', '--author', 'alice', '--since', '1h']);
    expect(events.code, events.stderr).toBe(0);
    expect(events.stdout).toMatch(/^\d+\t\S+\tAlice Maintainer\tchanged link_url: https:\/\/ci\.example\.com\/web → https:\/\/ci\.example\.com\/by-hand\tBadge e2e-audit\n$/);
    const drift = await forgectl(['plan', '-f', desired]);
    expect(drift.code).toBe(9);
    expect(drift.stdout).toMatch(/ {2}~ badge "e2e-audit" {3}\(changed by alice \d{4}-\d\d-\d\d \d\d:\d\d\)\n {6}link_url: "https:\/\/ci\.example\.com\/by-hand" → "https:\/\/ci\.example\.com\/web"\n/);
    expect((await forgectl(['apply', '-f', desired, '--yes'])).code).toBe(0);
    expect((await forgectl(['plan', '-f', desired])).code).toBe(0);
    const state = await forgectl(['approvals', 'state', '--project', 'acme/api', '--mr', '1']);
    expect(state.code, state.stderr).toBe(0);
    expect(state.stdout).toMatch(/^Maintainers\tregular\t1\t[^\t]*\t(true|false)\tfalse\n$/);
  });

  live('a profile\'s token goes only to its instance; loopback is never reached through a proxy', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'sandbox', profiles: { sandbox: { url: sandbox!.url, token: sandbox!.token } } }), { mode: 0o600 });
    await clearRequests();
    const other = await forgectl(['--server', 'http://127.0.0.2:9', 'users', 'list'], { FORGECTL_CONFIG_DIR: dir, FORGECTL_URL: undefined, FORGECTL_TOKEN: undefined });
    expect(other.code).toBe(3);
    expect(other.stderr).toContain('no token for http://127.0.0.2:9');
    // A proxy that does not exist: loopback requests do not go near it.
    const proxied = await forgectl(['users', 'get', 'alice', '-o', 'json'], { FORGECTL_CONFIG_DIR: dir, FORGECTL_URL: undefined, FORGECTL_TOKEN: undefined, HTTP_PROXY: 'http://127.0.0.1:1', HTTPS_PROXY: 'http://127.0.0.1:1' });
    expect(proxied.code, proxied.stderr).toBe(0);
  });

  live('the README\'s sandbox line returns at once and leaves a sandbox to use and to stop', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const start = readme.split('\n').find((line) => line.startsWith('eval "$(forgectl sandbox --print-env --detach)"'))!.replace(/\s+#.*$/, '');
    const stop = readme.split('\n').find((line) => line.startsWith('kill $FORGECTL_SANDBOX_PID'))!.replace(/\s+#.*$/, '');
    const result = await runProcess('bash', ['-c', `set -e; ${start}; forgectl users get alice --fields username; ${stop}`], { env: { ...baseEnv(), FORGECTL_CONFIG_DIR: tempDir() }, timeoutMs: 20_000 });
    expect(result.signal).toBeNull();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('username\talice\n');
    expect(result.stderr).toMatch(/forgectl sandbox runs in the background \(process \d+\); stop it with: kill \d+/);
    // The note of a sandbox serving in the foreground is not this one's.
    expect(result.stderr).not.toContain('foreground');
  });

  live('sandbox --state: a stop (SIGTERM) leaves the file even when nothing changed, 0600, and the next run loads it', async () => {
    const state = join(tempDir(), 'state.json');
    const start = `eval "$(forgectl sandbox --print-env --detach --state '${state}')"; echo "$FORGECTL_TOKEN"`;
    const stop = 'kill $FORGECTL_SANDBOX_PID; while kill -0 $FORGECTL_SANDBOX_PID 2>/dev/null; do sleep 0.1; done';
    const result = await runProcess('bash', ['-c', `set -e; ${start}; rm '${state}'; ${stop}; stat -c %a '${state}'; ${start}; ${stop}`], { env: { ...baseEnv(), FORGECTL_CONFIG_DIR: tempDir() }, timeoutMs: 30_000 });
    expect(result.code, result.stderr).toBe(0);
    const [first, mode, second] = result.stdout.trim().split('\n');
    expect(mode).toBe('600');
    expect(second).toBe(first);
  });

  /** An MCP client connected to `forgectl mcp serve ARGS` (this installed forgectl, on this Node) over stdio. */
  const mcpClient = async (args: string[] = [], extra: NodeJS.ProcessEnv = {}, cwd?: string) => {
    const client = new McpClient({ name: 'forgectl-e2e', version: '1' });
    const stderr: string[] = [];
    const transport = new StdioClientTransport({ command: 'forgectl', args: ['mcp', 'serve', ...args], env: env(extra) as Record<string, string>, stderr: 'pipe', cwd });
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    await client.connect(transport);
    return { client, stderr };
  };
  type ToolResult = { isError?: boolean; structuredContent?: { result?: unknown; exit_code?: number; digest?: string; next_cursor?: string; count?: number }; content: Array<{ type: string; text: string }> };
  const textOf = (result: ToolResult) => result.content.map((item) => item.text).join('\n');

  live('mcp serve over stdio: typed read-only tools whose results are what -o json prints, and errors that say what went wrong', async () => {
    const { client, stderr } = await mcpClient();
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(20);
      expect(tools.length).toBeLessThanOrEqual(40);
      const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true });
      ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/).addFormat('date-time', /./);
      for (const tool of tools) {
        // Every schema compiles as JSON Schema; nothing offered by default writes.
        expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
        expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      }
      expect(tools.find((tool) => tool.name === 'api')!.inputSchema.properties!.method).toMatchObject({ enum: ['GET'] });
      const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
      // A list, a get and api with a GET: the same records as the command line's -o json.
      const list = await call('projects_list', { per_page: 1 });
      const cliList = JSON.parse((await forgectl(['projects', 'list', '--per-page', '1', '--page', '1', '-o', 'json'])).stdout);
      expect(list.structuredContent?.result).toEqual(cliList);
      expect(list.structuredContent).toMatchObject({ count: 1, exit_code: 0 });
      const next = await call('projects_list', { per_page: 1, cursor: list.structuredContent!.next_cursor });
      expect(next.structuredContent?.result).toEqual(JSON.parse((await forgectl(['projects', 'list', '--per-page', '1', '--page', '2', '-o', 'json'])).stdout));
      const got = await call('projects_get', { project: 'acme/api' });
      expect(got.structuredContent?.result).toEqual(JSON.parse((await forgectl(['projects', 'get', 'acme/api', '-o', 'json'])).stdout));
      const user = await call('api', { path: '/user' });
      expect(user.structuredContent?.result).toMatchObject({ username: 'root' });
      // A group's runner registration token reaches no agent, by the group's tool or by api.
      for (const [tool, args] of [['groups_get', { group: 'acme' }], ['api', { path: '/groups/acme' }]] as const) {
        const group = await call(tool, args);
        expect(group.structuredContent?.result, tool).toMatchObject({ full_path: 'acme', runners_token: null });
      }
      // A 404, bad input, and a write through the read-only api tool: tool errors with the exit code's meaning.
      const missing = await call('projects_get', { project: 'acme/no-such-project' });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toMatch(/404 Project Not Found[\s\S]*exit 5: not found/);
      const bad = await call('projects_list', { per_page: 500 });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toMatch(/per_page must be at most 100[\s\S]*exit 2: bad input/);
      const write = await call('api', { path: '/projects/1', method: 'DELETE' });
      expect(write.isError).toBe(true);
      expect(textOf(write)).toContain('method must be one of GET');
      // The token never appears in a result, a log line or an error.
      expect(JSON.stringify([list, next, got, user, missing, bad, write]) + stderr.join('')).not.toContain(sandbox!.token);
    } finally {
      await client.close();
    }
  });

  live('mcp serve --allow-write desired-state: plan returns a digest, apply takes it, a stale or unknown plan is refused', async () => {
    // The server reads desired-state files only below the folder it was started in.
    const dir = tempDir();
    const { client } = await mcpClient(['--allow-write', 'desired-state'], {}, dir);
    try {
      const { tools } = await client.listTools();
      expect(tools.find((tool) => tool.name === 'apply')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
      const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
      const file = join(dir, 'desired.yaml');
      writeFileSync(file, `version: 1\nprojects:\n  acme/web:\n    push_rule: {max_file_size: ${40 + NODE_VERSIONS.indexOf(version)}}\n`);
      const planned = await call('plan', { file });
      expect(planned.isError, textOf(planned)).toBeFalsy();
      expect(planned.structuredContent).toMatchObject({ exit_code: 9 });
      const digest = planned.structuredContent!.digest!;
      expect(digest).toMatch(/^[0-9a-f]{64}$/);
      const unknown = await call('apply', { digest: 'f'.repeat(64) });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toMatch(/no plan with digest/);
      const unconfirmed = await call('apply', { digest });
      expect(unconfirmed.isError).toBe(true);
      expect(textOf(unconfirmed)).toMatch(/confirmation needed: Apply 1 change[\s\S]*call it again with confirm: true/);
      const applied = await call('apply', { digest, confirm: true });
      expect(applied.isError, textOf(applied)).toBeFalsy();
      expect((await call('plan', { file })).structuredContent).toMatchObject({ exit_code: 0 });
      // A plan whose object changed after it was made is refused, as apply -f PLAN refuses it.
      writeFileSync(file, `version: 1\nprojects:\n  acme/web:\n    push_rule: {max_file_size: 77}\n`);
      const stale = (await call('plan', { file })).structuredContent!.digest!;
      expect((await forgectl(['push-rule', 'set', '--project', 'acme/web', '--max-file-size', '78', '--yes'])).code).toBe(0);
      const refused = await call('apply', { digest: stale, confirm: true });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/changed since the plan was made|stale|plan again/i);
    } finally {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  live('mcp serve --http: the streamable HTTP transport on loopback, with the secret it prints, and no other host name', async () => {
    const child = spawn('forgectl', ['mcp', 'serve', '--http', '127.0.0.1:0'], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const [url, secret] = await new Promise<[string, string]>((resolve, reject) => {
        let err = '';
        child.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString();
          const match = /listening on (\S+)\nclients send the header: Authorization: Bearer (\S+)\n/.exec(err);
          if (match) resolve([match[1], match[2]]);
        });
        child.on('exit', (code) => reject(new Error(`mcp serve exited with ${code}: ${err}`)));
      });
      expect(stdout).toBe('');
      const client = new McpClient({ name: 'forgectl-e2e', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }));
      const { tools } = await client.listTools();
      expect(tools.every((tool) => tool.annotations?.readOnlyHint)).toBe(true);
      const got = (await client.callTool({ name: 'users_list', arguments: {} })) as ToolResult;
      expect(got.isError).toBeTruthy(); // users are the admin toolset's: not listed by default
      const project = (await client.callTool({ name: 'projects_get', arguments: { project: 'acme/api' } })) as ToolResult;
      expect(project.structuredContent?.result).toMatchObject({ path_with_namespace: 'acme/api' });
      await client.close();
      // Without the secret: 401; DNS rebinding (another host name) and a web page's request (another origin, or null): 403.
      const status = (headers: Record<string, string>) =>
        new Promise<number | undefined>((resolve, reject) => {
          const request = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (response) => {
            response.resume();
            resolve(response.statusCode);
          });
          request.on('error', reject);
          request.end('{}');
        });
      expect(await status({})).toBe(401);
      expect(await status({ authorization: 'Bearer guessed' })).toBe(401);
      const authorization = `Bearer ${secret}`;
      expect(await status({ host: 'evil.example', authorization })).toBe(403);
      expect(await status({ origin: 'https://evil.example', authorization })).toBe(403);
      expect(await status({ origin: 'null', authorization })).toBe(403);
    } finally {
      child.kill('SIGTERM');
    }
  });

  live('mcp serve: no tool input becomes an option (a path of --server=URL sends nothing to URL)', async () => {
    const { startReceiver } = await import('../helpers/receiver.js');
    const evil = await startReceiver();
    const { client } = await mcpClient();
    try {
      const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
      const tree = await call('repo_tree', { project: 'acme/api', path: `--server=${evil.url}` });
      const base = await call('repo_merge_base', { project: 'acme/api', refs: [`--server=${evil.url}`, 'main', 'main'] });
      const profile = await call('repo_tree', { project: 'acme/api', path: '--profile=other' });
      expect([tree, base, profile].map((result) => textOf(result))).not.toContain(evil.url);
      expect(evil.received).toEqual([]);
    } finally {
      await client.close();
      await evil.close();
    }
  });

  live('mcp serve: a line that is no JSON-RPC message is answered with its error; a webhook URL\'s password never reaches the agent', async () => {
    const lines = ['{not json', '{"jsonrpc":"2.0","id":7}'];
    const served = await forgectl(['mcp', 'serve'], {}, `${lines.join('\n')}\n`);
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: unknown; error: { code: number } }).map(({ id, error }) => [id, error.code])).toEqual([[null, -32700], [7, -32600]]);
    const hook = await forgectl(['api', '-X', 'POST', '/projects/acme%2Fweb/hooks', '-f', 'url=https://e2e:pw-7d2e@hooks.example.com/x', '--jq', '.id']);
    expect(hook.code, hook.stderr).toBe(0);
    const { client } = await mcpClient();
    try {
      const got = (await client.callTool({ name: 'hooks_get', arguments: { project: 'acme/web', id: hook.stdout.trim() } })) as ToolResult;
      expect(textOf(got)).toContain('hooks.example.com');
      expect(textOf(got)).not.toContain('pw-7d2e');
    } finally {
      await client.close();
      await forgectl(['api', '-X', 'DELETE', `/projects/acme%2Fweb/hooks/${hook.stdout.trim()}`, '--yes']);
    }
  });

  live('variables: a masked value from stdin is stored and never printed off a terminal; --show-values shows it at one', async () => {
    const secret = 'e2e-masked-value-7c1f';
    expect((await forgectl(['variables', 'set', 'E2E_TOKEN', '--project', 'acme/web', '--masked', '--value', secret])).code).toBe(2);
    const set = await forgectl(['variables', 'set', 'E2E_TOKEN', '--project', 'acme/web', '--masked', '--protected', '--value-stdin'], {}, `${secret}\n`);
    expect(set.code).toBe(0);
    expect(set.stderr).toContain('Created variable E2E_TOKEN (scope *) of project acme/web (masked)');
    const piped = await shell('forgectl variables list --project acme/web --show-values -o json | cat');
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain('"key": "E2E_TOKEN"');
    expect(piped.stdout + piped.stderr).not.toContain(secret);
    expect(piped.stderr).toContain('--show-values shows masked values only at a terminal');
    if (pty) expect((await onTerminal('forgectl variables get E2E_TOKEN --project acme/web --show-values')).stdout).toContain(secret);
    expect((await forgectl(['variables', 'delete', 'E2E_TOKEN', '--project', 'acme/web'])).code).toBe(2);
    expect((await forgectl(['variables', 'delete', 'E2E_TOKEN', '--project', 'acme/web', '--yes'])).code).toBe(0);
    // A protected file variable (a kubeconfig: not maskable) is named by its size in the question, never by its value.
    const kubeconfig = 'apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: e2e-LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n';
    expect((await forgectl(['variables', 'set', 'E2E_KUBECONFIG', '--project', 'acme/web', '--type', 'file', '--protected', '--value-stdin'], {}, kubeconfig)).code).toBe(0);
    const asked = await forgectl(['variables', 'delete', 'E2E_KUBECONFIG', '--project', 'acme/web']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(/Delete variable E2E_KUBECONFIG \(scope \*\) \[file, protected, \d+ characters\] of project acme\/web\?/);
    expect(asked.stderr).not.toContain('apiVersion');
    // So is its change in a plan: neither the live value nor the file's.
    const desired = join(tempDir(), 'kube.yaml');
    writeFileSync(desired, 'version: 1\nprojects:\n  acme/web:\n    variables:\n      - {key: E2E_KUBECONFIG, value: "apiVersion: v1\\nclusters: []\\n", variable_type: file, protected: true}\n');
    const plan = await forgectl(['plan', '-f', desired]);
    expect(plan.code, plan.stderr).toBe(9);
    expect(plan.stdout).toMatch(/~ variable E2E_KUBECONFIG … \*\n {6}value changed \(\d+ characters → 28 characters\)\n/);
    expect(plan.stdout + plan.stderr).not.toContain('apiVersion');
    expect((await forgectl(['variables', 'delete', 'E2E_KUBECONFIG', '--project', 'acme/web', '--yes'])).code).toBe(0);
  });

  live('--projects-file from the shell: a variable and a deploy token in every project listed, tokens to 0600 files only, deletion asked', async () => {
    const work = tempDir('forgectl-e2e-fleet-');
    const set = await shell(`cd '${work}' && printf 'acme/api\\nacme/web\\n' > services.txt && printf 'acme/web\\n' | forgectl variables set E2E_FLEET --projects-file - --value on && forgectl variables set E2E_FLEET --projects-file services.txt --value on`);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^acme\/api\tok\tE2E_FLEET\t/m);
    expect(set.stderr).toContain('acme/web: E2E_FLEET (scope *) of project acme/web is already as asked: nothing sent');
    const refused = await shell(`cd '${work}' && forgectl deploy-tokens create --projects-file services.txt --name e2e-pull --scopes read_registry`);
    expect(refused.code).toBe(2);
    const created = await shell(`cd '${work}' && forgectl deploy-tokens create --projects-file services.txt --name e2e-pull --scopes read_registry --output-dir tokens -o json && stat -c '%a %n' tokens/acme/api.token tokens/acme/web.token >&2`);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain('600 tokens/acme/api.token\n600 tokens/acme/web.token');
    for (const project of ['api', 'web']) expect(created.stdout).not.toContain(readFileSync(join(work, 'tokens', 'acme', `${project}.token`), 'utf8').trim());
    const asked = await shell(`cd '${work}' && forgectl variables delete E2E_FLEET --projects-file services.txt < /dev/null`);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(/confirmation needed: Delete variable E2E_FLEET .* and run the same command in 1 more project/);
    expect((await forgectl(['variables', 'get', 'E2E_FLEET', '--project', 'acme/web'])).code).toBe(0);
    const deleted = await shell(`cd '${work}' && forgectl variables delete E2E_FLEET --projects-file services.txt --yes && forgectl deploy-tokens revoke --name e2e-pull --projects-file services.txt --yes`);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await forgectl(['variables', 'get', 'E2E_FLEET', '--project', 'acme/web'])).code).toBe(5);
    rmSync(work, { recursive: true, force: true });
  });

  live('a migrant\'s CI job: apply --dry-run masks an integration\'s webhook from the environment, a fleet\'s 404 names the list, a saved plan that could not read a project exits 9', async () => {
    const work = tempDir('forgectl-e2e-migrant-');
    const webhook = 'https://chat.example.com/hooks/e2e-migrant-8d2f';
    writeFileSync(join(work, 'chat.yaml'), 'version: 1\ngroups:\n  acme:\n    integrations:\n      slack: {webhook: {env: CHAT_WEBHOOK}, channel: "#ci"}\n');
    const dry = await shell(`cd '${work}' && forgectl apply -f chat.yaml --dry-run`, { CI: 'true', CHAT_WEBHOOK: webhook });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('"webhook": "[REDACTED]"');
    expect(dry.stdout + dry.stderr).not.toContain(webhook);
    const missing = await shell(`cd '${work}' && printf 'acme/api\\nacme/web\\n' > services.txt && forgectl hooks get 77 --projects-file services.txt --continue-on-error`);
    expect(missing.code).toBe(9);
    expect(missing.stderr).toContain('hint: 2 projects answered 404 Not Found: forgectl hooks list --projects-file services.txt lists their webhooks\n');
    writeFileSync(join(work, 'rule.yaml'), 'version: 1\nprojects:\n  acme/api:\n    push_rule: {max_file_size: 31}\n  acme/web:\n    push_rule: {max_file_size: 31}\n');
    await fault({ method: 'GET', path: 'acme%2Fweb/push_rule$', status: 500, times: 10 });
    const planned = await shell(`cd '${work}' && forgectl plan -f rule.yaml --out plan.json --retries 0 > /dev/null`, { CI: 'true' });
    await clearFaults();
    expect(planned.code).toBe(9);
    const applied = await shell(`cd '${work}' && forgectl apply -f plan.json --yes --failed-to left.txt`, { CI: 'true' });
    expect(applied.code).toBe(9);
    expect(applied.stderr).toContain('not applied: the plan could not read project acme/web');
    expect(readFileSync(join(work, 'left.txt'), 'utf8')).toMatch(/^acme\/web$/m);
    rmSync(work, { recursive: true, force: true });
  });
});
