/**
 * What a user sees of the installed forgectl on a terminal and in pipes (narrow tables, colour, help, messages):
 * packed and installed as the README says, run as processes on this Node against a `forgectl sandbox` process.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { installFromCheckout, runProcess, startSandboxProcess, type ProcessResult } from './package.js';
import { needs, ptyRunner } from '../helpers/system.js';

const pty = ptyRunner();
let bin = '';
let remove = () => undefined as void;
let configDir = '';
let sandbox: { url: string; token: string; process: ReturnType<typeof spawn> } | undefined;

/** The environment of a user's shell: forgectl and this Node on PATH, nothing else of ours. */
const baseEnv = (): NodeJS.ProcessEnv => ({ PATH: `${dirname(process.execPath)}:${bin}:/usr/bin:/bin`, HOME: configDir, LANG: 'C.UTF-8' });
const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...baseEnv(), FORGECTL_CONFIG_DIR: configDir, FORGECTL_URL: sandbox!.url, FORGECTL_TOKEN: sandbox!.token, ...extra });
const forgectl = (args: string[], extra: NodeJS.ProcessEnv = {}): Promise<ProcessResult> => runProcess('forgectl', args, { env: env(extra), timeoutMs: 30_000 });
/** A shell line on a pseudo-terminal `columns` wide; stdout and stderr both arrive in stdout, lines end in \r\n. */
const onTerminal = async (line: string, columns = 100, extra: NodeJS.ProcessEnv = {}): Promise<ProcessResult> => {
  const [command, args] = pty!(`stty cols ${columns} rows 40 2>/dev/null; ${line}`);
  const result = await runProcess(command, args, { env: { ...env(extra), TERM: 'xterm-256color' }, timeoutMs: 30_000 });
  return { ...result, stdout: result.stdout.replace(/\r/g, '') };
};
/** Display width of a terminal line: colour codes take none. */
// eslint-disable-next-line no-control-regex
const visible = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');
const terminalCase = (name: string, test: () => Promise<void>) =>
  it(name, async (context) => {
    needs(context, 'pty');
    await test();
  }, 60_000);

beforeAll(async () => {
  ({ bin, remove } = await installFromCheckout());
  configDir = tempDir('forgectl-e2e-home-');
  sandbox = await startSandboxProcess(['--fleet', '14'], baseEnv());
}, 240_000);
afterAll(() => {
  sandbox?.process.kill('SIGTERM');
  if (configDir) rmSync(configDir, { recursive: true, force: true });
  remove();
});

describe('the installed forgectl on a terminal', () => {
  terminalCase('NO_COLOR turns colour off only when it holds something (NO_COLOR= leaves it on)', async () => {
    const bold = '\u001b[1m';
    expect((await onTerminal('forgectl users get alice')).stdout).toContain(bold);
    expect((await onTerminal('NO_COLOR= forgectl users get alice')).stdout).toContain(bold);
    expect((await onTerminal('NO_COLOR=1 forgectl users get alice')).stdout).not.toContain(bold);
    expect((await onTerminal('forgectl --no-color users get alice')).stdout).not.toContain(bold);
  });

  terminalCase('a table 60 columns wide keeps the path of every project whole and names the columns it left out', async () => {
    const result = await onTerminal('forgectl projects list --per-page 20', 60);
    expect(result.code).toBe(0);
    // The table's lines (stderr's notices arrive in the same stream, broken at the terminal's width).
    const lines = visible(result.stdout).split('\n').filter((line) => /^(id|\d+) /.test(line));
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(60);
    const rows = lines.slice(1);
    expect(rows).toHaveLength(16);
    for (const row of rows) expect(row).toMatch(/^\d+\s+acme\/(api|web|team-0\d\/squad-\d\/svc-0\d\d)\s/);
    expect(result.stdout).not.toMatch(/acme\/team…|\d{4}-\d\d-\d…/);
    // Headers stay whole ("defau…" would name nothing): the columns that do not fit are left out instead.
    expect(lines[0].split(/\s+/)).toEqual(['id', 'path_with_namespace', 'visibility', 'archived']);
    expect(result.stdout).toContain('columns left out to fit the terminal: default_branch,\nlast_activity_at (--fields picks them)');
    // Wide enough, nothing is left out or cut.
    const wide = await onTerminal('forgectl projects list --per-page 20', 160);
    expect(wide.stdout).not.toContain('…');
    expect(wide.stdout).not.toContain('left out');
  });

  terminalCase('variables list 80 columns wide keeps every header whole, leaving out the columns that say least', async () => {
    const result = await onTerminal('forgectl variables list --project acme/api', 80);
    expect(result.code).toBe(0);
    const header = visible(result.stdout).split('\n').find((line) => line.startsWith('key '));
    expect(header?.split(/\s+/)).toEqual(['key', 'environment_scope', 'variable_type', 'protected', 'masked', 'value']);
    expect(result.stdout).toContain('columns left out to fit the terminal: hidden, raw (--fields picks them)');
  });

  terminalCase('an error on a terminal 40 columns wide breaks between words, indented under its text; a pipe gets one line', async () => {
    const message = 'error: whose access? give --user USER, --group GROUP [--recursive] or --project PROJECT';
    const [shown, piped] = await Promise.all([onTerminal('forgectl access report', 40), forgectl(['access', 'report'])]);
    expect([shown.code, piped.code]).toEqual([2, 2]);
    expect(shown.stdout).toBe([
      'error: whose access? give --user USER,',
      '       --group GROUP [--recursive] or',
      '       --project PROJECT',
      '',
    ].join('\n'));
    expect(piped.stderr).toBe(`${message}\n`);
  });

  terminalCase('audits at 80 columns keep their point: every fix whole, dates never cut (records where a table cannot)', async () => {
    const [tokens, runners] = await Promise.all([
      onTerminal('forgectl tokens audit --group acme --expiring-within 400d', 80),
      onTerminal('forgectl runners audit --instance --stale 30d', 80),
    ]);
    expect(tokens.code).toBe(9);
    expect(runners.code).toBe(9);
    // The rotation command and the expiry take more than a line's room beside the token's name: record by record.
    const audited = visible(tokens.stdout);
    expect(audited.match(/^fix +forgectl tokens rotate \d+ --(group acme|personal) --expires-in 90d --output-file token-\d+\.token --yes$/gm)?.length).toBeGreaterThanOrEqual(2);
    expect(audited).toMatch(/^expires_at +\d{4}-\d\d-\d\d$/m);
    expect(audited).not.toContain('left out');
    // Runners fit as a table: the name, the date of last contact and the fix whole on every row.
    const rows = visible(runners.stdout).split('\n').filter((line) => /^\d+ +\d+ /.test(line));
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const row of rows) {
      expect([...row].length, row).toBeLessThanOrEqual(80);
      expect(row).toMatch(/ (\d{4}-\d\d-\d\d|never) +forgectl runners delete \d+$/);
    }
    expect(runners.stdout).toMatch(/ shared-docker-2 /);
  });

  terminalCase('a secret typed at a prompt shows nothing per character (not even its length)', async () => {
    const secret = 'typed-at-the-prompt-4711';
    // Typed a moment later, as a user does (keys typed ahead of the prompt, the terminal itself would echo; stty
    // -echo stands for the prompt taking them as they come).
    const [command, args] = pty!('stty cols 100 rows 40 -echo 2>/dev/null; forgectl variables set TYPED_SECRET --project acme/api --masked --value-stdin');
    const typist = `(sleep 1; printf '%s\\r' "$SECRET") | "$0" "$@"`;
    const typed = await runProcess('bash', ['-c', typist, command, ...args], { env: { ...env(), TERM: 'xterm-256color', SECRET: secret }, timeoutMs: 30_000 });
    expect(typed.code).toBe(0);
    expect(visible(typed.stdout)).toContain('[input is masked]');
    expect(typed.stdout).not.toMatch(/\*{2,}/);
    expect(typed.stdout).not.toContain(secret);
    const stored = await fetch(`${sandbox!.url}/api/v4/projects/acme%2Fapi/variables/TYPED_SECRET`, { headers: { 'PRIVATE-TOKEN': sandbox!.token } });
    expect(((await stored.json()) as { value: string }).value).toBe(secret);
  });

  terminalCase('service-accounts delete asks at a terminal, naming the tokens that die with the account: No keeps it, Yes deletes it', async () => {
    const api = async (method: string, path: string, body?: unknown) => (await fetch(`${sandbox!.url}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': sandbox!.token, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })).json() as Promise<{ id: number; username: string }>;
    const account = await api('POST', '/service_accounts', { username: 'svc-terminal' });
    const token = await api('POST', `/users/${account.id}/personal_access_tokens`, { name: 'nightly', scopes: ['api'] });
    const [command, args] = pty!('stty cols 400 rows 40 2>/dev/null; forgectl service-accounts delete svc-terminal --instance');
    const answer = (key: string) => runProcess('bash', ['-c', `(sleep 2; printf '${key}\\r') | "$0" "$@"`, command, ...args], { env: { ...env(), TERM: 'xterm-256color' }, timeoutMs: 30_000 });
    const exists = async () => ((await api('GET', '/service_accounts?per_page=100')) as unknown as Array<{ id: number }>).some((a) => a.id === account.id);

    const kept = await answer('n');
    expect(visible(kept.stdout)).toContain(`Delete service account svc-terminal (id ${account.id}) of the instance? Its active token stops working: token "nightly" (id ${token.id}`);
    expect(kept.code).toBe(2);
    expect(await exists()).toBe(true);
    const deleted = await answer('y');
    expect(deleted.code, deleted.stdout).toBe(0);
    expect(visible(deleted.stdout)).toContain(`Deleted service account svc-terminal (id ${account.id}) of the instance; revoked with it: token "nightly"`);
    expect(await exists()).toBe(false);
  });

  terminalCase('api -X DELETE asks at a terminal naming the method and path (No keeps it, Yes deletes it); a pipe needs --yes', async () => {
    const badges = `${sandbox!.url}/api/v4/projects/acme%2Fapi/badges`;
    const made = (await (await fetch(badges, { method: 'POST', headers: { 'PRIVATE-TOKEN': sandbox!.token, 'content-type': 'application/json' }, body: JSON.stringify({ link_url: 'https://ci.example.com', image_url: 'https://ci.example.com/b.svg' }) })).json()) as { id: number };
    const path = `/projects/acme%2Fapi/badges/${made.id}`;
    const exists = async () => (await fetch(`${sandbox!.url}/api/v4${path}`, { headers: { 'PRIVATE-TOKEN': sandbox!.token } })).status === 200;
    const piped = await forgectl(['api', '-X', 'DELETE', path]);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toBe(`error: confirmation needed: Send DELETE ${path} to ${new URL(sandbox!.url).host}?\nhint: pass --yes to confirm without a terminal\n`);
    const [command, args] = pty!(`stty cols 200 rows 40 2>/dev/null; forgectl api -X DELETE ${path}`);
    const answer = (key: string) => runProcess('bash', ['-c', `(sleep 2; printf '${key}\\r') | "$0" "$@"`, command, ...args], { env: { ...env(), TERM: 'xterm-256color' }, timeoutMs: 30_000 });
    const kept = await answer('n');
    expect(visible(kept.stdout)).toContain(`Send DELETE ${path} to ${new URL(sandbox!.url).host}?`);
    expect(kept.code).toBe(2);
    expect(await exists()).toBe(true);
    const deleted = await answer('y');
    expect(deleted.code, deleted.stdout).toBe(0);
    expect(await exists()).toBe(false);
  });

  terminalCase('auth logout asks at a terminal, naming where the token is kept and that it stays valid (No keeps it, Yes removes it); a pipe needs --yes', async () => {
    const home = tempDir('forgectl-e2e-logout-');
    const file = `${home}/config.json`;
    writeFileSync(file, JSON.stringify({ current: 'laptop', profiles: { laptop: { url: sandbox!.url, token: sandbox!.token } } }), { mode: 0o600 });
    const own = { FORGECTL_CONFIG_DIR: home };
    const held = () => readFileSync(file, 'utf8').includes(sandbox!.token);
    const question = `Remove the token of profile "laptop" from the config file ${file}? forgectl keeps no other copy of it, and it stays valid on ${sandbox!.url} until it is revoked`;
    const piped = await forgectl(['auth', 'logout'], own);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain(`error: confirmation needed: ${question}`);
    expect(held()).toBe(true);
    const [command, args] = pty!('stty cols 400 rows 40 2>/dev/null; forgectl auth logout');
    const answer = (key: string) => runProcess('bash', ['-c', `(sleep 2; printf '${key}\\r') | "$0" "$@"`, command, ...args], { env: { ...env(own), TERM: 'xterm-256color' }, timeoutMs: 30_000 });
    const kept = await answer('n');
    expect(visible(kept.stdout)).toContain(question);
    expect(kept.code).toBe(2);
    expect(held()).toBe(true);
    const removed = await answer('y');
    expect(removed.code, removed.stdout).toBe(0);
    expect(visible(removed.stdout)).toContain('Removed the credentials of profile "laptop"');
    expect(held()).toBe(false);
  });

  terminalCase('api graphql asks before a mutation at a terminal, naming its fields (No keeps the runner, Yes deletes it); a pipe needs --yes', async () => {
    const graphql = async (query: string) => (await (await fetch(`${sandbox!.url}/api/graphql`, { method: 'POST', headers: { 'PRIVATE-TOKEN': sandbox!.token, 'content-type': 'application/json' }, body: JSON.stringify({ query }) })).json()) as { data: { runners: { nodes: Array<{ id: string }> } } };
    const runners = async () => (await graphql('{ runners { nodes { id } } }')).data.runners.nodes.map((node) => node.id);
    const id = (await runners())[0];
    const file = `${tempDir('forgectl-e2e-graphql-')}/delete.graphql`;
    writeFileSync(file, 'mutation($ids: [CiRunnerID!]) { bulkRunnerDelete(input: {ids: $ids}) { deletedIds errors } }\n');
    const host = new URL(sandbox!.url).host;
    const piped = await forgectl(['api', 'graphql', '-F', `query=@${file}`, '-f', `ids[]=${id}`]);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toBe(`error: confirmation needed: Send the GraphQL mutation bulkRunnerDelete to ${host}?\nhint: pass --yes to confirm without a terminal\n`);
    const [command, args] = pty!(`stty cols 200 rows 40 2>/dev/null; forgectl api graphql -F query=@${file} -f 'ids[]=${id}'`);
    const answer = (key: string) => runProcess('bash', ['-c', `(sleep 2; printf '${key}\\r') | "$0" "$@"`, command, ...args], { env: { ...env(), TERM: 'xterm-256color' }, timeoutMs: 30_000 });
    const kept = await answer('n');
    expect(visible(kept.stdout)).toContain(`Send the GraphQL mutation bulkRunnerDelete to ${host}?`);
    expect(kept.code).toBe(2);
    expect(await runners()).toContain(id);
    const deleted = await answer('y');
    expect(deleted.code, deleted.stdout).toBe(0);
    expect(await runners()).not.toContain(id);
  });

  it('fleet selection in a pipe: the records a later page shows, a hint at --recursive, sets in globs', async () => {
    const [page, flat, set] = await Promise.all([
      forgectl(['projects', 'list', '--per-page', '5', '--page', '2']),
      forgectl(['badges', 'list', '--group', 'acme/team-01', '--match', 'acme/team-01/**']),
      forgectl(['push-rule', 'get', '--group', 'acme', '--recursive', '--match', 'acme/**/svc-01[34]', '--fields', 'project']),
    ]);
    expect(page.stdout.trim().split('\n')).toHaveLength(5);
    expect(page.stderr).toBe('showing 6–10 of 16 — use --all or --limit\n');
    expect(flat.code).toBe(0);
    expect(flat.stderr).toBe('no projects selected: only the projects of acme/team-01 itself were looked at; --recursive adds those of its subgroups\n');
    expect(set.stdout).toBe('acme/team-01/squad-2/svc-013\nacme/team-01/squad-2/svc-014\n');
  });

  it('network failures in words: https against a plain HTTP port, a refused connection, the attempts a timeout took', async () => {
    const port = new URL(sandbox!.url).port;
    const [tls, refused] = await Promise.all([
      forgectl(['--server', `https://127.0.0.1:${port}`, 'users', 'get', 'alice']),
      forgectl(['--server', 'http://127.0.0.1:1', '--retries', '1', 'users', 'get', 'alice']),
    ]);
    expect(tls.code).toBe(8);
    expect(tls.stderr).toBe(`error: 127.0.0.1:${port} does not answer in TLS: the URL says https://, the server speaks plain HTTP\nhint: check the URL's scheme and port (forgectl profile show): http:// for a server without TLS\n`);
    expect(refused.code).toBe(8);
    expect(refused.stderr).toMatch(/^error: connection refused by 127\.0\.0\.1:1 \(2 attempts in \d+ s; --retries sets how many\)\nhint: nothing listens at 127\.0\.0\.1:1/);
  });

  terminalCase('a list with escapes, numbers in a longer form and a key twice prints the same records to a terminal as to a pipe', async () => {
    const page = '[{"id":1,"username":"ren\\u00e9","name":"Ren\\u00e9 \\u0026 co","score":1.0,"big":1e400,"neg":-0,"id2":5,"id2":6}]';
    const serve = async () => {
      const fault = { method: 'GET', path: '^/users$', status: 200, body: page, headers: { 'Content-Type': 'application/json' } };
      expect((await fetch(`${sandbox!.url}/-/sandbox/faults`, { method: 'POST', body: JSON.stringify(fault) })).status).toBe(201);
    };
    for (const format of ['ndjson', 'json']) {
      await serve();
      const piped = await forgectl(['users', 'list', '-o', format]);
      await serve();
      const shown = await onTerminal(`forgectl users list -o ${format}`);
      expect([piped.code, shown.code]).toEqual([0, 0]);
      expect(shown.stdout).toBe(piped.stdout);
      const [record] = format === 'json' ? JSON.parse(piped.stdout) : [JSON.parse(piped.stdout)];
      expect(record).toEqual({ id: 1, username: 'rené', name: 'René & co', score: 1, big: null, neg: 0, id2: 6 });
      expect(piped.stdout).toContain('"René & co"');
    }
  });

  terminalCase('help on a terminal is wrapped to its width; to a pipe, to 80 columns (the text printed without the bundle)', async () => {
    const [wide, piped] = await Promise.all([onTerminal('forgectl tokens rotate --help', 150), forgectl(['tokens', 'rotate', '--help'])]);
    const lines = (text: string) => text.trimEnd().split('\n');
    expect(piped.code).toBe(0);
    // The options' descriptions: wrapped for 80 columns in the pipe, on fewer lines on the wide terminal.
    const options = (text: string) => lines(text).filter((line) => /^ {2}(-|\s{10})/.test(line));
    expect(options(visible(wide.stdout)).length).toBeLessThan(options(piped.stdout).length);
    expect(Math.max(...options(visible(wide.stdout)).map((line) => line.length))).toBeGreaterThan(80);
    expect(visible(wide.stdout).replace(/\s+/g, ' ')).toBe(piped.stdout.replace(/\s+/g, ' '));
  });

  it('help and typos: commands before a pointer to the global options, sections, no --page on repo tree, did-you-mean', async () => {
    const [group, root, tree, typo, bare] = await Promise.all([
      forgectl(['tokens', '--help']),
      forgectl(['--help']),
      forgectl(['repo', 'tree', '--help']),
      forgectl(['project', 'list']),
      forgectl(['projects', 'get']),
    ]);
    expect(group.stdout.indexOf('\nCommands:\n')).toBeGreaterThan(0);
    expect(group.stdout).not.toContain('Global Options:');
    expect(group.stdout).toContain('forgectl --help lists them.');
    expect(root.stdout).toMatch(/\nTokens:\n {2}tokens .*\n(?: {3,}.*\n)* {2}service-accounts .*\n(?: {3,}.*\n)*\nProjects and groups:\n {2}projects /);
    expect(tree.stdout).not.toContain('--page <n>');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe('error: unknown command "project"\nhint: did you mean: forgectl projects list?\n');
    expect(bare.stderr).toContain('hint: pass the project as an argument (forgectl projects get ID|PATH)');
  });

  terminalCase('plan, apply and fleet commands show progress on a terminal, cleared before the output; the summary comes after the table; pipes get none', async () => {
    const dir = tempDir('forgectl-e2e-progress-');
    const desired = `${dir}/badges.yaml`;
    writeFileSync(desired, 'version: 1\ntarget: acme/team-01/**\nprojects:\n  "*":\n    badges:\n      - {name: progress, link_url: "https://ci.example.com/%{project_path}", image_url: "https://ci.example.com/b.svg"}\n');
    // Slow enough that the spinner moves.
    const slow = (path: string) => fetch(`${sandbox!.url}/-/sandbox/faults`, { method: 'POST', body: JSON.stringify({ path, latency_ms: 120, times: 200 }) });
    await slow('/badges$');
    // Spinner frames end with a clear of their line; what the spinner drew last is cleared before the output.
    const afterLastFrame = (text: string, frame: RegExp) => text.slice([...text.matchAll(frame)].pop()!.index);
    const plan = await onTerminal(`forgectl plan -f ${desired}`);
    expect(plan.code).toBe(9);
    expect(plan.stdout).toMatch(/planning 0\/14 projects…/);
    expect(plan.stdout).toMatch(/planning ([1-9]|1[0-4])\/14 projects…/);
    const planTail = afterLastFrame(plan.stdout, /planning \d+\/14 projects…/g);
     
    expect(planTail.indexOf('\x1b[2K')).toBeLessThan(planTail.indexOf('project acme/team-01/'));
    expect(plan.stdout).toContain('Plan: 14 to create in 14 of 14 projects.');

    const applied = await onTerminal(`forgectl apply -f ${desired} --yes`);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/applying \d+\/14 changes…/);
    const applyTail = afterLastFrame(applied.stdout, /applying \d+\/14 changes…/g);
     
    expect(applyTail.indexOf('\x1b[2K')).toBeLessThan(applyTail.indexOf('target'));
    // eslint-disable-next-line no-control-regex
    const screenText = (text: string) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    expect(screenText(applied.stdout).trimEnd().split('\n').pop()).toBe('Applied: 14 done.');

    const listed = await onTerminal('forgectl badges list --group acme/team-01 --recursive');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/badges list \d+\/14 projects…/);
    const lines = screenText(listed.stdout).trimEnd().split('\n');
    expect(lines.pop()).toMatch(/^14 projects: 14 ok in [\d.]+ s at concurrency 4$/);
    // At 80 columns the badges' own columns give way; the project that names each row stays whole.
    expect(lines.pop()).toMatch(/^columns left out to fit the terminal: .+ \(--fields picks them\)$/);
    expect(lines.pop()).toMatch(/^acme\/team-01\/\S+ +ok /);
    await fetch(`${sandbox!.url}/-/sandbox/faults`, { method: 'DELETE' });

    const piped = await Promise.all([forgectl(['plan', '-f', desired]), forgectl(['badges', 'list', '--group', 'acme/team-01', '--recursive'])]);
    for (const run of piped) expect(run.stderr).not.toMatch(/planning|badges list \d|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    rmSync(dir, { recursive: true, force: true });
  });

  terminalCase('access report shows its progress on a terminal\'s stderr, cleared before the table; a pipe gets none', async () => {
    await fetch(`${sandbox!.url}/-/sandbox/faults`, { method: 'POST', body: JSON.stringify({ path: '/members$', latency_ms: 60, times: 200 }) });
    const shown = await onTerminal('forgectl access report --group acme/team-01 --recursive --concurrency 4');
    await fetch(`${sandbox!.url}/-/sandbox/faults`, { method: 'DELETE' });
    expect(shown.code).toBe(0);
    const frames = [...shown.stdout.matchAll(/reading (\d+)\/(\d+) groups and projects…/g)];
    expect(frames.length).toBeGreaterThan(1);
    expect(Number(frames.at(-1)![1])).toBeGreaterThan(0);
    // The last frame is cleared before the summary and the table.
    const tail = shown.stdout.slice(frames.at(-1)!.index);
    expect(tail.indexOf('\x1b[0K')).toBeLessThan(tail.indexOf('place'));
    const piped = await forgectl(['access', 'report', '--group', 'acme/team-01', '--recursive']);
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toMatch(/reading|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    // stderr on the terminal, stdout into a pager's pipe: the frames would land in the pager's screen, so none.
    await fetch(`${sandbox!.url}/-/sandbox/faults`, { method: 'POST', body: JSON.stringify({ path: '/members$', latency_ms: 60, times: 200 }) });
    const paged = await onTerminal('forgectl access report --group acme/team-01 --recursive --concurrency 4 | cat > /dev/null');
    await fetch(`${sandbox!.url}/-/sandbox/faults`, { method: 'DELETE' });
    expect(paged.code).toBe(0);
    expect(paged.stdout).not.toMatch(/reading|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
  });

  terminalCase('Ctrl-C while the progress turns: exit 130 with the line saying what was left undone, the cursor shown again', async () => {
    await fetch(`${sandbox!.url}/-/sandbox/faults`, { method: 'POST', body: JSON.stringify({ path: '/members$', latency_ms: 3000, times: 50 }) });
    const stopped = await onTerminal('timeout --preserve-status -s INT 2 forgectl access report --group acme/team-01 --recursive; echo "exit $?"');
    await fetch(`${sandbox!.url}/-/sandbox/faults`, { method: 'DELETE' });
    expect(stopped.stdout).toMatch(/reading 0\/\d+ groups and projects…/);
    expect(stopped.stdout).toContain('interrupted by SIGINT: the command did not finish\n');
    expect(stopped.stdout).toContain('exit 130');
    expect(stopped.stdout.lastIndexOf('\x1b[?25h')).toBeGreaterThan(stopped.stdout.lastIndexOf('\x1b[?25l'));
  });
});
