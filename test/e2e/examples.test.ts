/**
 * The README's shell examples and every command's `--help` examples, run as written by the installed forgectl
 * against a sandbox with the demo seed (acme/api, alice, merge request 1 …). The lines of one block run in order
 * in one bash, as a user would type them in one terminal, in a folder holding the files they name. An example that
 * cannot run here is listed with its reason in NOT_RUN (./examples.ts) and reported as skipped with that reason;
 * one that ends with another exit on purpose is listed in EXIT. `https://git.example.com` stands for the user's
 * instance: it is the sandbox's URL here.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../src/sandbox/routes/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../helpers/cli.js';
import { startReceiver } from '../helpers/receiver.js';
import { missingPrograms, needs, type ProgramName } from '../helpers/system.js';
import { docBlocks, docTexts, exampleKey, EXIT, helpBlocks, NOT_RUN, readmeBlocks, SETUP, type ExampleBlock } from './examples.js';
import { installFromCheckout, npmEnv, ROOT, runProcess } from './package.js';

let bin = '';
let installed: Awaited<ReturnType<typeof installFromCheckout>>;
beforeAll(async () => {
  installed = await installFromCheckout();
  bin = installed.bin;
}, 240_000);
afterAll(() => installed?.remove());

const blocks: ExampleBlock[] = [...docBlocks(), ...(await helpBlocks())];
const INSTANCE = 'https://git.example.com';
/** The webhook receiver of the examples: a loopback server here (the sandbox delivers only to loopback). */
const RECEIVER = 'https://ci.example.com/hook';
/** A license key as the sandbox takes it. */
const LICENSE = `${Buffer.from(JSON.stringify({ plan: 'ultimate', licensee: { Name: 'Ops', Email: 'ops@example.com', Company: 'Acme' }, starts_at: '2020-01-01', expires_at: '2099-12-31', user_limit: 100 })).toString('base64')}\n`;

/** Writes the files the examples name into the working folder and HOME. */
function writeFixtures(work: string, home: string, vars: Record<string, string>): void {
  const files: Record<string, string | Buffer> = {
    'hook.json': JSON.stringify({ url: 'https://ci.example.com/hook', push_events: true }),
    'notes.md': 'Deployed to staging.\n',
    'review.md': 'Reviewed.\n',
    'key.txt': 'bugzilla-api-key\n',
    'deploy.pub': 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFgrWUVS92aTH7L9CyzOEGGVlhcKMxiHM94X5TZUM2WK release@ci\n',
    'token.txt': 'validation-service-token\n',
    'bamboo.pw': 'bamboo-password\n',
    'release.keystore': Buffer.from([0xfe, 0xed, 0xfe, 0xed, 0, 1, 2, 3]),
    'k': `${vars.FORGECTL_SANDBOX_ALERT_KEY}\n`,
    'prometheus.key': `${vars.FORGECTL_SANDBOX_PROMETHEUS_KEY}\n`,
    'company.gitlab-license': LICENSE,
    'company.license': LICENSE,
    'src/app.rb': 'puts "app"\n',
    'alert.json': JSON.stringify({ title: 'disk full', fingerprint: 'disk-db1' }),
    'services.txt': 'acme/api\nacme/web\n',
    'desired.yaml': 'version: 1\nprojects:\n  acme/api:\n    push_rule: {max_file_size: 20}\n',
    'intro.md': '# Intro\n',
    'README.md': '# api\n\nThe api of Acme.\n',
    'app.yml': 'name: api\n',
    'config/app.yml': 'name: api\n',
    'build/app.js': 'console.log("app");\n',
    'site/index.md': '# Docs\n',
    'site/guide.md': '# Guide\n',
    'notes/checklist.md': '- [ ] deploy\n',
    'notes/rollback.md': 'roll back\n',
    'checklist.md': '- [ ] deploy\n',
    'rollback.md': 'roll back\n',
    'new.md': 'new steps\n',
    'scripts/probe.sh': '#!/bin/sh\necho ok\n',
    'api.key': 'api-key-value\n',
    'hook.secret': 'hook-secret-value\n',
    'kubeconfig.yml': 'apiVersion: v1\nkind: Config\n',
    'runners.graphql': 'query($status: CiRunnerStatus) {\n  runners(status: $status) { nodes { id description upgradeStatus } }\n}\n',
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), content);
  }
  mkdirSync(join(home, '.ssh'), { recursive: true });
  const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDQKf1mDC9bj1YFBwg/q7vePm8xr2xn2S/NAqCuzgXgS alice@laptop';
  writeFileSync(join(home, '.ssh', 'id_ed25519.pub'), `${key}\n`);
  writeFileSync(join(home, '.alert-key'), `${vars.FORGECTL_SANDBOX_ALERT_KEY}\n`, { mode: 0o600 });
  // A checkout of the submodule the examples update acme/api's vendor/common to.
  const git = (...args: string[]) => execFileSync('git', args, { cwd: join(work, 'vendor', 'common'), stdio: 'ignore', env: { PATH: process.env.PATH, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@example.com', HOME: home } });
  mkdirSync(join(work, 'vendor', 'common'), { recursive: true });
  if (!missingPrograms('git')) {
    git('init', '-q');
    git('commit', '-q', '--allow-empty', '-m', 'common');
  }
}

/** Profiles of the examples (`-p bot`, `-p prod` …), all for the sandbox; `bot` holds a group access token of acme. */
async function writeConfig(home: string, sandbox: Sandbox): Promise<{ projectBot: string }> {
  const expires_at = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
  const newToken = async (parent: string) => {
    const response = await fetch(`${sandbox.url}/${parent}/access_tokens`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': sandbox.adminToken, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bot', scopes: ['api', 'self_rotate'], access_level: 40, expires_at }),
    });
    return ((await response.json()) as { token: string }).token;
  };
  const bot = await newToken('groups/acme');
  const profile = (token: string) => ({ url: sandbox.rootUrl, token });
  const config = {
    current: 'sandbox',
    profiles: { sandbox: profile(sandbox.adminToken), prod: profile(sandbox.adminToken), admin: profile(sandbox.adminToken), ci: profile(sandbox.adminToken), 'old-staging': profile(sandbox.adminToken), bot: profile(bot) },
  };
  mkdirSync(join(home, '.config', 'forgectl'), { recursive: true, mode: 0o700 });
  writeFileSync(join(home, '.config', 'forgectl', 'config.json'), JSON.stringify(config), { mode: 0o600 });
  return { projectBot: await newToken('projects/acme%2Fapi') };
}

interface LineResult {
  line: string;
  code: number | undefined;
  stdout: string;
  stderr: string;
}

/** Runs the lines in one bash (each line's output and exit recorded apart); stdin is not a terminal. */
async function runBlock(lines: string[], work: string, env: NodeJS.ProcessEnv): Promise<LineResult[]> {
  const results = join(work, '..', `results-${Math.random().toString(36).slice(2)}`);
  mkdirSync(results);
  const script = lines.map((line, i) => `{ ${line}\n} >'${results}/${i}.out' 2>'${results}/${i}.err' </dev/null; echo $? >'${results}/${i}.rc'`).join('\n');
  await new Promise<void>((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: work, env, stdio: 'ignore', detached: true });
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  const read = (name: string) => (existsSync(join(results, name)) ? readFileSync(join(results, name), 'utf8') : '');
  return lines.map((line, i) => ({ line, code: read(`${i}.rc`) ? Number(read(`${i}.rc`)) : undefined, stdout: read(`${i}.out`), stderr: read(`${i}.err`) }));
}

/** A user's shell against a fresh sandbox: the working folder with the examples' files, HOME with their profiles. */
interface Session {
  sandbox: Sandbox;
  work: string;
  home: string;
  env: NodeJS.ProcessEnv;
  /** Runs lines in one bash in the working folder (https://git.example.com and the receiver's URL as above). */
  run(lines: string[]): Promise<LineResult[]>;
  close(): Promise<void>;
}

async function session(): Promise<Session> {
  const sandbox = await startSandbox({ log: () => undefined });
  const receiver = await startReceiver();
  const work = join(tempDir('forgectl-examples-'), 'work');
  const home = join(work, '..', 'home');
  mkdirSync(work);
  mkdirSync(home);
  const extra = sandboxEnv(sandbox);
  writeFixtures(work, home, extra);
  const { projectBot } = await writeConfig(home, sandbox);
  const mr = (await (await fetch(`${sandbox.url}/projects/acme%2Fapi/merge_requests/1`, { headers: { 'PRIVATE-TOKEN': sandbox.adminToken } })).json()) as { diff_refs: Record<string, string> };
  const env: NodeJS.ProcessEnv = {
    PATH: `${dirname(process.execPath)}:${bin}:/usr/bin:/bin`,
    HOME: home,
    LANG: 'C.UTF-8',
    ...extra,
    // What the examples take from the user's environment.
    TOKEN: sandbox.adminToken,
    AUDIT_TOKEN: sandbox.adminToken,
    PROJECT_BOT_TOKEN: projectBot,
    LEAKED_TOKEN: projectBot,
    BASE: mr.diff_refs.base_sha,
    START: mr.diff_refs.start_sha,
    HEAD: mr.diff_refs.head_sha,
    SANDBOX_URL: sandbox.rootUrl,
    PASSWORD: 'mirror-password',
    SECRET: 'hook-secret',
    HOOK_SECRET: 'hook-secret',
    MIRROR_TOKEN: 'mirror-token',
    ASANA_KEY: 'asana-key',
    VALUE: 'value',
    ROOM_ID: 'room-1',
    API_KEY: 'api-key',
    URL: extra.FORGECTL_SANDBOX_ALERT_URL,
    PROM_URL: extra.FORGECTL_SANDBOX_PROMETHEUS_URL,
    FORGECTL_ALERT_KEY: extra.FORGECTL_SANDBOX_ALERT_KEY,
    // Masked and hidden CI/CD variable values (8 or more characters, no whitespace).
    DEPLOY_TOKEN: 'deploy-token-value',
    REGISTRY_PASSWORD: 'registry-password-1',
    DOCKER_AUTH_CONFIG: '{"auths":{}}',
  };
  return {
    sandbox,
    work,
    home,
    env,
    run: (lines) => runBlock(lines.map((line) => line.replaceAll(RECEIVER, `${receiver.url}/hook`).replaceAll(INSTANCE, sandbox.rootUrl)), work, env),
    close: async () => {
      await sandbox.close();
      await receiver.close();
      rmSync(join(work, '..'), { recursive: true, force: true });
    },
  };
}

/** The programs besides forgectl and the shell's own that an example runs, which a machine may lack. */
const programsOf = (line: string): ProgramName[] => (['curl', 'git', 'jq'] as const).filter((program) => new RegExp(`(^|[|;&(]\\s*)${program}\\s`).test(line));

describe.concurrent('examples run as written', () => {
  for (const block of blocks) {
    const runnable = block.lines.filter((line) => !(exampleKey(line) in NOT_RUN) && !missingPrograms(...programsOf(line)));
    for (const line of block.lines.filter((l) => exampleKey(l) in NOT_RUN)) it(`${block.source}: ${line}`, (context) => context.skip(NOT_RUN[exampleKey(line)]));
    for (const line of block.lines.filter((l) => !(exampleKey(l) in NOT_RUN) && missingPrograms(...programsOf(l)))) it(`${block.source}: ${line}`, (context) => needs(context, ...programsOf(line)));
    if (!runnable.length) continue;
    it(block.source, async () => {
      const user = await session();
      try {
        const setup = SETUP[block.source] ?? [];
        const results = await user.run([...setup, ...runnable]);
        const failures = results
          .map((result, i) => ({ ...result, line: i < setup.length ? `(setup) ${setup[i]}` : runnable[i - setup.length] }))
          .map((result) => ({ ...result, expected: (EXIT[`${block.source}: ${exampleKey(result.line)}`] ?? EXIT[exampleKey(result.line)])?.code ?? 0 }))
          .filter((result) => result.code !== result.expected)
          .map((r) => `${r.line}\n    exit ${r.code ?? 'none (did not finish)'}, expected ${r.expected}\n    ${r.stderr.trim().split('\n').slice(0, 4).join('\n    ')}`);
        expect(failures, block.source).toEqual([]);
      } finally {
        await user.close();
      }
    }, 150_000);
  }

  it('an example that starts something in the background stops it again (a reader who runs the block is left with nothing running)', () => {
    const runs = NOT_RUN;
    for (const block of blocks) {
      const lines = block.lines.filter((line) => !runs[exampleKey(line)] && !runs[`${block.source}: ${exampleKey(line)}`]);
      const detached = lines.findIndex((line) => line.includes('sandbox --print-env --detach'));
      if (detached >= 0) expect(lines.slice(detached + 1).some((line) => /^kill .*\$FORGECTL_SANDBOX_PID/.test(line)), block.source).toBe(true);
      for (const [i, line] of lines.entries()) {
        const background = /&\s+(\w+)=\$!/.exec(line);
        if (/[^&]&(\s|$)/.test(exampleKey(line)) && !line.includes('--detach')) expect(background, `${block.source}: ${line} (keep its $! to stop it)`).not.toBeNull();
        if (background) expect(lines.slice(i + 1).some((later) => later.startsWith('kill ') && later.includes(`$${background[1]}`)), block.source).toBe(true);
      }
    }
  });

  it('every example listed as not runnable or with another exit still exists', () => {
    const keys = new Set(blocks.flatMap((block) => block.lines.flatMap((line) => [exampleKey(line), `${block.source}: ${exampleKey(line)}`])));
    expect([...Object.keys(NOT_RUN), ...Object.keys(EXIT)].filter((key) => !keys.has(key))).toEqual([]);
    expect(Object.keys(SETUP).filter((source) => !blocks.some((block) => block.source === source))).toEqual([]);
  });
});

/** One line as the user types it; its exit, stdout and stderr. */
async function one(user: Session, line: string): Promise<LineResult> {
  return (await user.run([line]))[0];
}

describe.concurrent('what the issue found, run as users run it', () => {
  const withSession = (name: string, test: (user: Session) => Promise<void>, timeout = 60_000) =>
    it(name, async () => {
      const user = await session();
      try {
        await test(user);
      } finally {
        await user.close();
      }
    }, timeout);
  const branchFiles = async (user: Session, ref = 'main') => {
    const response = await fetch(`${user.sandbox.url}/projects/acme%2Fapi/repository/tree?ref=${ref}&recursive=true&per_page=100`, { headers: { 'PRIVATE-TOKEN': user.sandbox.adminToken } });
    return ((await response.json()) as Array<{ path: string; type: string }>).filter((e) => e.type === 'blob').map((e) => e.path).sort();
  };

  withSession('the README\'s completion lines work in a fresh home (the folders they write to made first)', async (user) => {
    const lines = readmeBlocks().flatMap((block) => block.lines).filter((line) => /forgectl completion (bash|zsh|fish) >/.test(line));
    expect(lines).toHaveLength(3);
    expect(existsSync(join(user.home, '.zfunc'))).toBe(false);
    const results = await user.run(lines);
    expect(results.map((result) => `${result.line}: ${result.code} ${result.stderr}`)).toEqual(lines.map((line) => `${line}: 0 `));
    expect(readFileSync(join(user.home, '.local/share/bash-completion/completions/forgectl'), 'utf8')).toMatch(/^# bash completion for forgectl/);
    expect(readFileSync(join(user.home, '.zfunc/_forgectl'), 'utf8')).toMatch(/^#compdef forgectl/);
    expect(readFileSync(join(user.home, '.config/fish/completions/forgectl.fish'), 'utf8')).toMatch(/^# fish completion for forgectl/);
  });

  withSession('the examples of `completion --help` install the scripts in a fresh home, as the README does', async (user) => {
    const lines = (await helpBlocks()).filter((block) => block.source === 'forgectl completion --help').flatMap((block) => block.lines).filter((line) => /forgectl completion (bash|zsh|fish) >/.test(line));
    expect(lines).toHaveLength(3);
    const results = await user.run(lines);
    expect(results.map((result) => `${result.line}: ${result.code} ${result.stderr}`)).toEqual(lines.map((line) => `${line}: 0 `));
    expect(readFileSync(join(user.home, '.local/share/bash-completion/completions/forgectl'), 'utf8')).toMatch(/^# bash completion for forgectl/);
    expect(readFileSync(join(user.home, '.zfunc/_forgectl'), 'utf8')).toMatch(/^#compdef forgectl/);
    expect(readFileSync(join(user.home, '.config/fish/completions/forgectl.fish'), 'utf8')).toMatch(/^# fish completion for forgectl/);
  });

  withSession('the README\'s cron line runs where ~/.local/state does not exist yet, and logs privately', async (user) => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const cron = /```cron\n([\s\S]*?)```/.exec(readme)![1].split('\n').find((line) => line.includes('tokens rotate self'))!;
    const command = cron.split(/\s+/).slice(5).join(' ');
    // cron runs the line with /bin/sh; `mail` here writes what it would send into HOME.
    const mailBin = join(user.home, 'bin');
    mkdirSync(mailBin);
    writeFileSync(join(mailBin, 'mail'), '#!/bin/sh\ncat >> "$HOME/mail.txt"\n', { mode: 0o755 });
    const before = JSON.parse(readFileSync(join(user.home, '.config/forgectl/config.json'), 'utf8')).profiles.bot.token;
    const result = await runProcess('/bin/sh', ['-c', command], { env: { ...user.env, PATH: `${mailBin}:${user.env.PATH}` }, cwd: user.home });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(user.home, 'mail.txt')), 'mail was sent').toBe(false);
    const log = join(user.home, '.local/state/forgectl-rotate.log');
    expect(statSync(log).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(user.home, '.config/forgectl/config.json'), 'utf8')).profiles.bot.token).not.toBe(before);
  });

  it('the CI jobs of the README and the guides install forgectl from the packed tarball (never npx) and run', async () => {
    const jobs = docTexts().flatMap((text) => [...text.matchAll(/```yaml\n([\s\S]*?)```/g)]).map((m) => m[1]).filter((text) => /^\s+script:/m.test(text) && !/parallel:/.test(text) && !/^\s+image: \S*forgectl/m.test(text));
    // The sharded pipeline (parallel jobs) runs in test/fleet/pipeline.test.ts, with the variables CI sets; the job in
    // the single executable's image, in test/e2e/sea.test.ts.
    const scripts = jobs.flatMap((text) => text.split(/\n(?=\S)/).filter((job) => job.includes('script:')).map((job) => [...job.matchAll(/^\s+- (.*)$/gm)].map((m) => m[1].replace(/\s+#\s.*$/, ''))));
    expect(scripts.length).toBeGreaterThanOrEqual(3);
    for (const script of scripts) {
      expect(script.join('\n')).not.toContain('npx');
      const first = script.findIndex((line) => line.startsWith('forgectl '));
      expect(script.slice(0, first).some((line) => /^npm install -g \.\/\S+\.tgz$/.test(line)), script.join('\n')).toBe(true);
    }
    // Each job in a fresh container: its own global folder, the tarball where the job expects it.
    const user = await session();
    try {
      for (const script of scripts) {
        const prefix = tempDir('forgectl-ci-prefix-');
        const env = { ...user.env, ...npmEnv(), npm_config_prefix: prefix, PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`, FORGECTL_URL: user.sandbox.rootUrl, FORGECTL_TOKEN: user.sandbox.adminToken };
        for (const line of script) {
          const tarball = /^npm install -g (\.\/\S+\.tgz)$/.exec(line)?.[1];
          if (tarball) {
            mkdirSync(dirname(join(user.work, tarball)), { recursive: true });
            copyFileSync(installed.tarball, join(user.work, tarball));
          }
          const result = await runProcess('/bin/sh', ['-c', line], { env, cwd: user.work, timeoutMs: 180_000 });
          // exit 9 is what these jobs are for: drift (plan) and tokens that expire soon (audit) fail them.
          expect([0, 9], `${line}: ${result.stderr}`).toContain(result.code);
        }
        rmSync(prefix, { recursive: true, force: true });
      }
      expect(existsSync(join(user.work, 'plan.json'))).toBe(true);
    } finally {
      await user.close();
    }
  }, 400_000);

  withSession('commits create --from-dir --prune and snippets update --sync preview their deletions and ask', async (user) => {
    const files = await branchFiles(user);
    const refused = await one(user, 'forgectl commits create --project acme/api --branch main -m sync --from-dir ./site --prune');
    expect(refused.code).toBe(2);
    for (const path of files) expect(refused.stderr).toContain(`delete ${path}`);
    expect(refused.stderr).toContain(`confirmation needed: Delete ${files.length} files on branch main of project acme/api (--prune)?`);
    expect(await branchFiles(user)).toEqual(files);
    const confirmed = await one(user, 'forgectl commits create --project acme/api --branch main -m sync --from-dir ./site --to docs --prune --yes');
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(confirmed.stderr).toContain('delete docs/deploy.md');
    expect((await branchFiles(user)).filter((p) => p.startsWith('docs/'))).toEqual(['docs/guide.md', 'docs/index.md']);
    // The snippet has checklist.md and rollback.md; a folder with checklist.md only deletes rollback.md.
    const sync = await one(user, 'mkdir -p only && cp checklist.md only/ && forgectl snippets update 1 --project acme/api --sync ./only/');
    expect(sync.code).toBe(2);
    expect(sync.stderr).toContain('delete rollback.md');
    expect(sync.stderr).toContain('confirmation needed: Delete 1 file of snippet 1 of project acme/api (--sync)?');
    expect((await one(user, 'forgectl snippets update 1 --project acme/api --sync ./only/ --yes')).code).toBe(0);
  });

  withSession('--fields takes a path that is null in the newest record, and still refuses an unknown one', async (user) => {
    const jobs = await one(user, 'forgectl api /projects/acme%2Fapi/jobs --fields id,artifacts_file.size -o ndjson');
    expect(jobs.code, jobs.stderr).toBe(0);
    const rows = jobs.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: number; artifacts_file: { size: number | null } });
    expect(rows[0].artifacts_file.size).toBeNull();
    expect(rows.some((row) => typeof row.artifacts_file.size === 'number')).toBe(true);
    const commit = await one(user, 'forgectl commits get main --project acme/api --fields id,last_pipeline.id');
    expect(commit.code, commit.stderr).toBe(0);
    const unknown = await one(user, 'forgectl api /projects/acme%2Fapi/jobs --fields id,no_such_field');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown field: no_such_field');
  });

  withSession('a download from a project that does not exist says so', async (user) => {
    const result = await one(user, 'forgectl artifacts download --project 999 --ref master --job-name test -O a.zip');
    expect(result.code).toBe(5);
    expect(result.stderr).toBe('error: 404 Project Not Found (GET /projects/999/pipelines → 404)\nhint: forgectl projects list lists the projects you can see\n');
  });

  withSession('files blame reads the default branch and takes git\'s -L forms; a range past the end is refused', async (user) => {
    const [whole, start, offset, past] = await user.run([
      'forgectl files blame README.md --project acme/api',
      'forgectl files blame README.md -L 5 --project acme/api',
      'forgectl files blame README.md -L 2,+2 --project acme/api -o json',
      'forgectl files blame README.md -L 100,200 --project acme/api',
    ]);
    expect(whole.code, whole.stderr).toBe(0);
    const length = whole.stdout.trim().split('\n').length;
    expect(start.code, start.stderr).toBe(0);
    expect(start.stdout.trim().split('\n').map((line) => Number(line.split('\t')[0]))).toEqual(Array.from({ length: length - 4 }, (_, i) => i + 5));
    expect((JSON.parse(offset.stdout) as Array<{ line: number }>).map((row) => row.line)).toEqual([2, 3]);
    expect(past.code).toBe(2);
    expect(past.stderr).toBe(`error: -L 100,200: README.md has ${length} lines at main\n`);
  });

  withSession('a change the target already has is "nothing to change", exit 0, for a submodule as for a file', async (user) => {
    const [submodule, file] = await user.run([
      'forgectl submodules update vendor/common --sha 3f4e5a1b2c3d4e5f60718293a4b5c6d7e8f90123 --branch main --project acme/api',
      'forgectl files raw README.md --project acme/api > same.md && forgectl files put README.md --branch main -m same --content-file same.md --project acme/api',
    ]);
    expect(submodule.code, submodule.stderr).toBe(0);
    expect(submodule.stderr).toBe('nothing to change: submodule vendor/common on main already points to 3f4e5a1b\n');
    expect(file.code, file.stderr).toBe(0);
    expect(file.stderr).toContain('nothing to commit');
  });

  withSession('a commit to a missing branch hints at --start-branch; --from-dir honours .gitignore and --exclude; links as --symlinks says', async (user) => {
    const missing = await one(user, 'forgectl commits create --project acme/api --branch nope -m x --add app.yml');
    expect(missing.code).toBe(6);
    expect(missing.stderr).toContain('hint: branch nope does not exist: to create it, give the branch to start it from (--start-branch BRANCH or --start-sha SHA)');
    const [prepare, link, skip, follow] = await user.run([
      'mkdir -p tree/build tree/logs && echo "build/" > tree/.gitignore && echo a > tree/a.md && echo b > tree/build/out.js && echo l > tree/logs/x.log && ln -s a.md tree/link.md',
      'forgectl commits create --project acme/api --branch main -m tree --from-dir ./tree --to tree',
      'forgectl commits create --project acme/api --branch main -m tree --from-dir ./tree --to tree --exclude "*.log" --symlinks skip',
      'forgectl commits create --project acme/api --branch main -m tree --from-dir ./tree --to tree --exclude "*.log" --symlinks follow',
    ]);
    expect(prepare.code).toBe(0);
    expect(link.code).toBe(2);
    expect(link.stderr).toContain('tree/link.md is a symbolic link; nothing was sent');
    expect(link.stderr).toContain('--symlinks skip');
    expect(skip.code, skip.stderr).toBe(0);
    expect(skip.stderr).toContain('left out tree/link.md: a symbolic link');
    expect(follow.code, follow.stderr).toBe(0);
    expect((await branchFiles(user)).filter((p) => p.startsWith('tree/'))).toEqual(['tree/.gitignore', 'tree/a.md', 'tree/link.md']);
  });
});
