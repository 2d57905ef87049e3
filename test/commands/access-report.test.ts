import { stripVTControlCharacters } from 'node:util';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../helpers/cli.js';
import { members, users } from '../../src/sandbox/model.js';
import { buildCatalogue } from '../../src/commands/mcp/catalogue.js';
import { ToolServer } from '../../src/commands/mcp/server.js';
import { commands, manifest } from '../../src/commands/manifest.js';
import { execute } from '../../src/main.js';
import { made } from '../helpers/offboarding.js';

/**
 * access report over real HTTP against the sandbox: priya is a Guest of acme, a Developer of the project of a
 * subgroup (acme/platform/infra), and a Maintainer of sec (until 2099-12-31), which ops/tools is shared with as
 * Reporter (until 2099-06-30) and group ops as Developer.
 */
const sandbox = useTestSandbox();
const id = (username: string): number => users(sandbox.db).find((u) => u.username === username)!.id;
type Row = { place: string; place_type: string; user: string; role: string; access_level: number; via: string; source: string; shared_via: string | null; link_role: string | null; member_role: string; expires_at: string | null; created_by: string | null; effective: boolean; findings: string[] };

beforeAll(async () => {
  const group = async (name: string, parent?: number) => (await sandbox.call('POST', '/groups', { name, path: name.toLowerCase(), ...(parent ? { parent_id: parent } : {}) })).body.id as number;
  const project = async (name: string, namespace: number) => expect((await sandbox.call('POST', '/projects', { name, path: name, namespace_id: namespace })).status).toBe(201);
  const acme = (await sandbox.call('GET', '/groups/acme')).body.id as number;
  const platform = await group('Platform', acme);
  await project('infra', platform);
  const sec = await group('Sec');
  const ops = await group('Ops');
  await project('tools', ops);
  expect((await sandbox.call('POST', `/groups/${sec}/members`, { user_id: id('priya'), access_level: 40, expires_at: '2099-12-31' })).status).toBe(201);
  expect((await sandbox.call('POST', '/projects/acme%2Fplatform%2Finfra/members', { user_id: id('priya'), access_level: 30 })).status).toBe(201);
  expect((await sandbox.call('POST', '/projects/ops%2Ftools/share', { group_id: sec, group_access: 20, expires_at: '2099-06-30' })).status).toBe(201);
  expect((await sandbox.call('POST', `/groups/${ops}/share`, { group_id: sec, group_access: 30 })).status).toBe(201);
});

const rowsOf = async (args: string[]): Promise<Row[]> => {
  const result = await sandbox.run(['access', 'report', ...args, '-o', 'json']);
  expect(result.code, result.stderr).toBe(0);
  return result.json() as Row[];
};
const brief = (row: Row): string => `${row.place} ${row.role} ${row.via} ${row.source}${row.shared_via ? ` via ${row.shared_via}` : ''}${row.expires_at ? ` until ${row.expires_at}` : ''}${row.effective ? '' : ' (not effective)'}`;

describe('access report --user', () => {
  it('lists every group and project the user reaches, and how: direct, inherited, shared through a link, capped', async () => {
    const rows = await rowsOf(['--user', 'priya']);
    expect(rows.map(brief)).toEqual([
      'acme guest direct acme',
      'acme/api maintainer direct acme/api',
      'acme/api guest inherited acme (not effective)',
      'acme/platform guest inherited acme',
      'acme/platform/infra developer direct acme/platform/infra',
      'acme/platform/infra guest inherited acme (not effective)',
      'acme/web guest inherited acme',
      // sec was shared with ops as Developer: priya, a Maintainer of sec, is a Developer there and in its projects.
      'ops developer shared sec via ops until 2099-12-31',
      'ops/tools developer shared sec via ops until 2099-12-31',
      // ops/tools itself was shared with sec as Reporter, until 2099-06-30.
      'ops/tools reporter shared sec via ops/tools until 2099-06-30 (not effective)',
      'sec maintainer direct sec until 2099-12-31',
    ]);
    const viaLink = rows.find((row) => row.shared_via === 'ops/tools')!;
    expect(viaLink).toMatchObject({ member_role: 'maintainer', link_role: 'reporter', created_by: 'root', place_type: 'project', user: 'priya' });
  });

  it('agrees with what the service answers for each place (/members/all)', async () => {
    for (const row of (await rowsOf(['--user', 'priya'])).filter((r) => r.effective)) {
      const path = `/${row.place_type}s/${encodeURIComponent(row.place)}/members/all/${id('priya')}`;
      expect((await sandbox.call('GET', path)).body.access_level, row.place).toBe(row.access_level);
    }
  });

  it('refuses a --fields its rows do not have before the first request, not after reading everything', async () => {
    sandbox.clearRequests();
    const refused = await sandbox.run(['access', 'report', '--user', 'priya', '--fields', 'place,nope']);
    expect(refused).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^error: unknown field: nope \(did you mean role\?\)\nhint: /) });
    expect(sandbox.requests()).toEqual([]);
    // The service's records may hold more than a declaration lists: a read of them is checked against what it sent.
    const list = await sandbox.run(['members', 'list', '--group', 'acme', '--fields', 'username,nope']);
    expect(list).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^error: unknown field: nope/) });
    expect(sandbox.requests().length).toBeGreaterThan(0);
    expect(await sandbox.run(['access', 'report', '--user', 'priya', '--fields', 'place,role', '-o', 'csv'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^place,role\r\n/) });
    // A column a list computes (who may create matching tags, in words) is one of its records' fields.
    expect(await sandbox.run(['protected-tags', 'list', '--project', 'acme/api', '--fields', 'name,allowed_to_create', '-o', 'csv'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^name,allowed_to_create\r\n/) });
  });

  it('is for administrators: exit 4 with what to do instead', async () => {
    const result = await sandbox.run(['access', 'report', '--user', 'priya'], { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('maintainer') } });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('the memberships of a user are for administrators');
    expect(result.stderr).toContain('hint: ');
  });
});

describe('access report --group and --project', () => {
  it('gives the matrix of a group tree, each user\'s effective level in each place as the service answers it', async () => {
    const rows = await rowsOf(['--group', 'acme', '--recursive', '--concurrency', '8']);
    const places = [...new Set(rows.map((row) => `${row.place_type} ${row.place}`))];
    expect(places).toEqual(['group acme', 'project acme/api', 'group acme/platform', 'project acme/platform/infra', 'project acme/web']);
    for (const place of places) {
      const [type, path] = place.split(' ');
      const all = (await sandbox.call('GET', `/${type}s/${encodeURIComponent(path)}/members/all?per_page=100`)).body as Array<{ username: string; access_level: number }>;
      const effective = rows.filter((row) => `${row.place_type} ${row.place}` === place && row.effective);
      expect(Object.fromEntries(effective.map((row) => [row.user, row.access_level])), place).toEqual(Object.fromEntries(all.map((m) => [m.username, m.access_level])));
    }
  });

  it('reads each list once, however many places it gives access to', async () => {
    sandbox.clearRequests();
    await rowsOf(['--group', 'acme', '--recursive', '--concurrency', '4']);
    const paths = sandbox.requests().map((r) => `${r.method} ${r.path}`);
    expect(paths.length).toBe(new Set(paths).size);
    expect(paths.filter((p) => p.includes('/groups/1/members')).length).toBe(1);
  });

  it('writes each place\'s rows as soon as it is read: a later place that fails leaves the earlier ones printed', async () => {
    const web = (await sandbox.call('GET', '/projects/acme%2Fweb')).body.id as number;
    sandbox.fault({ path: `/projects/${web}/members$`, status: 500, times: 1 });
    const result = await sandbox.run(['access', 'report', '--group', 'acme', '--recursive', '-o', 'ndjson', '--retries', '0']);
    sandbox.faults.clear();
    expect(result.code).toBe(8);
    const places = new Set(result.stdout.trim().split('\n').map((line) => (JSON.parse(line) as Row).place));
    expect([...places]).toEqual(['acme', 'acme/api', 'acme/platform', 'acme/platform/infra']);
    expect(result.stderr).toMatch(/^error: .*500/m);
  });

  it('keeps to --rate-limit: the requests start evenly spaced within the budget', async () => {
    sandbox.faults.log.length = 0;
    const result = await sandbox.run(['access', 'report', '--project', 'acme/api', '--rate-limit', '20/1', '--concurrency', '8']);
    expect(result.code, result.stderr).toBe(0);
    const starts = sandbox.faults.log.map((entry) => Date.parse((entry as unknown as { at: string }).at));
    expect(starts.length).toBeGreaterThan(5);
    // 20 a second: starts 50 ms apart, so n requests span at least (n - 1) × 50 ms (the log's times jitter by a few).
    expect(starts.at(-1)! - starts[0]).toBeGreaterThanOrEqual((starts.length - 1) * 50 - 40);
  });

  it('shows the members of a project shared with a group, capped by the link', async () => {
    const rows = await rowsOf(['--project', 'ops/tools']);
    expect(rows.filter((row) => row.user === 'priya').map(brief)).toEqual([
      'ops/tools developer shared sec via ops until 2099-12-31',
      'ops/tools reporter shared sec via ops/tools until 2099-06-30 (not effective)',
    ]);
  });

  it('--fail-on exits 9 when a row meets a condition, and names them', async () => {
    const owner = await sandbox.run(['access', 'report', '--project', 'acme/api', '--fail-on', 'owner']);
    expect(owner.code).toBe(9);
    expect(owner.stderr).toMatch(/attention: owner in 1 row \(/);
    expect(owner.stdout).toMatch(/^acme\/api\tproject\troot\towner\tinherited\tacme\t.*owner,no-expiry$/m);
    const none = await sandbox.run(['access', 'report', '--project', 'acme/web', '--fail-on', 'expired,external']);
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('none is expired, external');
    const csv = await sandbox.run(['access', 'report', '--project', 'acme/web', '-o', 'csv']);
    expect(csv.stdout.split(/\r?\n/)[0]).toBe('place,place_type,user,role,via,source,shared_via,expires_at,created_by,effective,findings');
  });

  it('--fail-on inactive finds a blocked user who is still a member (an offboarding left unfinished); user_state says it', async () => {
    const lingering = await made(sandbox, '/users', { username: 'lingering', name: 'Lingering', email: 'lingering@example.com', password: 'long-enough-pw-1' });
    await made(sandbox, '/projects/acme%2Fweb/members', { user_id: lingering.id, access_level: 30 });
    const before = await sandbox.run(['access', 'report', '--project', 'acme/web', '--fail-on', 'inactive']);
    expect([before.code, before.stderr]).toEqual([0, expect.stringContaining('none is inactive')]);
    expect((await sandbox.call('POST', `/users/${lingering.id}/block`)).status).toBe(201);
    const after = await sandbox.run(['access', 'report', '--project', 'acme/web', '--fail-on', 'inactive', '-o', 'json']);
    expect(after.code, after.stderr).toBe(9);
    const rows = after.json() as Array<Row & { user_state: string }>;
    expect(rows.filter((row) => row.findings.includes('inactive')).map((row) => `${row.user} ${row.user_state}`)).toEqual(['lingering blocked']);
    expect(rows.find((row) => row.user === 'root')?.user_state).toBe('active');
  });

  it('at an 80-column terminal, which leaves the findings column out, the attention line names the --fields that show it', async () => {
    const tty = { tty: true, columns: 80 };
    const owner = await sandbox.run(['access', 'report', '--group', 'acme', '--fail-on', 'owner'], tty);
    expect(owner.code).toBe(9);
    expect(stripVTControlCharacters(owner.stdout).split('\n')[0]).not.toContain('findings');
    const fields = /--fields (\S+)\s+shows\s+them\s+at\s+any\s+width/.exec(owner.stderr)?.[1];
    expect(fields, owner.stderr).toBe('place,user,role,findings');
    const shown = await sandbox.run(['access', 'report', '--group', 'acme', '--fail-on', 'owner', '--fields', fields!], tty);
    expect(shown.code).toBe(9);
    const lines = stripVTControlCharacters(shown.stdout).trimEnd().split('\n');
    expect(lines[0].split(/\s+/)).toEqual(['place', 'user', 'role', 'findings']);
    expect(lines.find((line) => /\broot\b/.test(line))).toMatch(/owner,no-expiry$/);
  });

  it('does not pass --fail-on external it could not check: the service tells administrators only who is external', async () => {
    const maintainer = { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('maintainer') } };
    const rows = await sandbox.run(['access', 'report', '--project', 'acme/web', '-o', 'json'], maintainer);
    expect(rows.code, rows.stderr).toBe(0);
    // Not said is not "no": the rows of the others leave it open (the caller's own record says it).
    const said = (rows.json() as Array<{ user: string; external: boolean | null }>).filter((row) => row.user !== 'maintainer-of-acme');
    expect(new Set(said.map((row) => row.external))).toEqual(new Set([null]));
    const gate = await sandbox.run(['access', 'report', '--project', 'acme/web', '--fail-on', 'expired,external'], maintainer);
    expect(gate.code).toBe(4);
    expect(gate.stdout).toMatch(/^acme\/web\tproject\t/m);
    expect(gate.stderr).not.toContain('none is');
    expect(gate.stderr).toMatch(/^error: --fail-on external was not checked: the service tells administrators only whether a user is external/m);
    expect(gate.stderr).toMatch(/^hint: run it with an administrator's token/m);
    // What it can check still gates: owner needs no administrator.
    expect((await sandbox.run(['access', 'report', '--project', 'acme/web', '--fail-on', 'owner'], maintainer)).code).toBe(9);
  });

  it('names a group shared here that the token cannot read, reports the rest, and exits 9: an incomplete audit does not pass', async () => {
    const maintainer = sandbox.tokenWithRole('maintainer');
    const vault = await made(sandbox, '/groups', { name: 'Vault', path: 'vault' });
    const app = await made(sandbox, '/projects', { name: 'app', path: 'app', namespace_id: vault.id });
    const hidden = await made(sandbox, '/groups', { name: 'Hidden', path: 'hidden' });
    await made(sandbox, `/groups/${vault.id}/members`, { user_id: id('maintainer-of-acme'), access_level: 40 });
    await made(sandbox, `/projects/${app.id}/share`, { group_id: hidden.id, group_access: 30 });
    const result = await sandbox.run(['access', 'report', '--project', 'vault/app', '-o', 'json'], { env: { FORGECTL_TOKEN: maintainer } });
    expect(result.code, result.stderr).toBe(9);
    expect((result.json() as Row[]).map((row) => `${row.user} ${row.via}`)).toEqual(['maintainer-of-acme inherited', 'root inherited']);
    expect(result.stderr).toContain('attention: 2 ways in for 2 users to 1 group or project; not counted: the members of hidden, shared here but hidden from this token\n');
    // An administrator reads the group: the share's members are there, and nothing is missing.
    const admin = await sandbox.run(['access', 'report', '--project', 'vault/app', '-o', 'json']);
    expect(admin.code, admin.stderr).toBe(0);
    expect((admin.json() as Row[]).filter((row) => row.via === 'shared').map((row) => `${row.user} ${row.source}`)).toEqual(['root hidden']);
  });

  it('works for a member of the project only, who reads its groups but not their members', async () => {
    const developer = await made(sandbox, '/users', { username: 'web-only', name: 'Web Only', email: 'web-only@example.com', password: 'long-enough-pw-1' });
    await made(sandbox, '/projects/acme%2Fweb/members', { user_id: developer.id, access_level: 30 });
    const token = (await sandbox.call('POST', `/users/${developer.id}/personal_access_tokens`, { name: 'report', scopes: ['read_api'] })).body.token as string;
    const result = await sandbox.run(['access', 'report', '--project', 'acme/web', '-o', 'json'], { env: { FORGECTL_TOKEN: token } });
    // The project's own members are reported; acme's are not listed to them, which an incomplete audit says (exit 9).
    expect(result.code, result.stderr).toBe(9);
    const rows = result.json() as Row[];
    expect(rows.map((row) => `${row.user} ${row.via} ${row.source}`)).toEqual(expect.arrayContaining(['web-only direct acme/web', 'omar direct acme/web']));
    expect(rows.filter((row) => row.via !== 'direct')).toEqual([]);
    expect(result.stderr).toMatch(/^attention: \d+ ways? in for \d+ users? to 1 group or project; not counted: the members of acme, which this token may not list\n/);
  });

  it('refuses what does not go together before sending anything (exit 2)', async () => {
    sandbox.clearRequests();
    for (const args of [[], ['--user', 'priya', '--group', 'acme'], ['--project', 'acme/api', '--recursive'], ['--group', 'acme', '--fail-on', 'owner,stale'], ['--user', 'priya', '--as-desired'], ['--group', 'acme', '--as-desired', '-o', 'csv']]) {
      const result = await sandbox.run(['access', 'report', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^error: /);
    }
    expect(sandbox.requests()).toEqual([]);
  });

  it('--help describes --rate-limit for this run, without the shards it does not have', async () => {
    const help = await sandbox.run(['access', 'report', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('--rate-limit <n[/seconds]> send at most n requests per period (default 60 s) for the whole run');
    expect(help.stdout).not.toMatch(/shard/i);
  });

  it('names a user that does not exist as users get does: not found (exit 5), and reads nothing else', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['access', 'report', '--user', 'nobody-at-all']);
    expect(result.code).toBe(5);
    expect(result.stderr).toBe('error: no user named "nobody-at-all"\nhint: check the name with: forgectl users list --search NAME\n');
    expect(sandbox.requests().filter((r) => !r.path.startsWith('/api/v4/users'))).toEqual([]);
  });
});

describe('access report with nothing to report', () => {
  const NOTHING = 'no way in: no membership, direct, inherited or shared';
  beforeAll(async () => {
    await made(sandbox, '/users', { username: 'nowhere', name: 'Nowhere', email: 'nowhere@example.com', password: 'long-enough-pw-1' });
    // A group with no member left (its creator, an administrator since deleted, was its only one).
    const empty = (await sandbox.call('POST', '/groups', { name: 'Empty', path: 'empty' })).body.id as number;
    const rows = members(sandbox.db);
    rows.splice(0, rows.length, ...rows.filter((m) => !(m.source_type === 'group' && m.source_id === empty)));
  });

  it.each([
    ['a user with no membership anywhere', ['--user', 'nowhere']],
    ['a group with no members', ['--group', 'empty']],
    ['a group tree with no members', ['--group', 'empty', '--recursive']],
  ])('%s: one line saying so in every format, exit 0, as the other audits that find nothing', async (_, target) => {
    const report = (extra: string[], tty = false) => sandbox.run(['access', 'report', ...target, ...extra], { tty });
    // On a terminal that line is the whole answer: no "no results" beside it.
    for (const extra of [[], ['--fail-on', 'expired']]) {
      const shown = await report(extra, true);
      expect([shown.code, shown.stdout, shown.stderr]).toEqual([0, '', `${NOTHING}${extra.length ? '; none is expired' : ''}\n`]);
    }
    const formats: Array<[string[], string]> = [
      [[], ''],
      [['-o', 'json'], '[]\n'],
      [['-o', 'ndjson'], ''],
      [['-o', 'yaml'], '[]\n'],
      [['-o', 'csv'], 'place,place_type,user,role,via,source,shared_via,expires_at,created_by,effective,findings\r\n'],
      [['--jq', '.user'], ''],
    ];
    for (const [extra, stdout] of formats) {
      const result = await report(extra);
      expect([result.code, result.stdout, result.stderr], extra.join(' ')).toEqual([0, stdout, `${NOTHING}\n`]);
    }
    expect((await report(['-o', 'json', '--quiet'])).stderr).toBe('');
  });

  it('is the notice of an agent\'s tool result, beside an empty list', async () => {
    const tools = await buildCatalogue(manifest, { toolsets: ['access'] });
    const server = new ToolServer({ tools, commands, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) });
    for (const target of [{ user: 'nowhere' }, { group: 'empty', recursive: true }]) {
      const answer = await server.call('access_report', target);
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toMatchObject({ result: [], exit_code: 0, notice: NOTHING });
    }
  });
});

describe('access report --as-desired', () => {
  it('is a members file the plan finds no drift in; a change since is drift that apply undoes', async () => {
    const file = join(tempDir(), 'members.yaml');
    const report = await sandbox.run(['access', 'report', '--group', 'acme', '--recursive', '--as-desired']);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('enforce: true');
    // The schema line names the schema of the project it runs in (this checkout) relative to the current folder.
    expect(report.stdout.split('\n')[0]).toBe('# yaml-language-server: $schema=./schema/desired-state.schema.json');
    writeFileSync(file, report.stdout);
    expect((await sandbox.run(['plan', '-f', file])).code).toBe(0);
    expect((await sandbox.run(['members', 'update', 'priya', '--project', 'acme/platform/infra', '--access-level', 'maintainer'])).code).toBe(0);
    expect((await sandbox.run(['members', 'add', 'omar', '--group', 'acme/platform', '--access-level', 'reporter'])).code).toBe(0);
    const drift = await sandbox.run(['plan', '-f', file]);
    expect(drift.code).toBe(9);
    expect(drift.stdout).toContain('~ member priya');
    expect(drift.stdout).toContain('- member omar');
    expect((await sandbox.run(['apply', '-f', file, '--yes'])).code).toBe(0);
    expect((await sandbox.run(['plan', '-f', file])).code).toBe(0);
    const infra = (await sandbox.call('GET', `/projects/acme%2Fplatform%2Finfra/members/${id('priya')}`)).body;
    expect(infra.access_level).toBe(30);
  });
});

describe('a membership on its expiry day', () => {
  it('is gone, as the service removes it at the start of that day: the sandbox neither honours nor lists it, nor does the report', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const ops = (await sandbox.call('GET', '/groups/ops')).body.id as number;
    expect((await sandbox.call('POST', `/groups/${ops}/members`, { user_id: id('omar'), access_level: 30, expires_at: today })).status).toBe(201);
    try {
      // The membership gives omar nothing any more: the private group is not there for him.
      expect((await sandbox.call('GET', `/groups/${ops}`, undefined, sandbox.tokenOf(id('omar'), 'expiry-day'))).status).toBe(404);
      expect((await sandbox.call('GET', `/groups/${ops}/members/${id('omar')}`)).status).toBe(404);
      const report = await sandbox.run(['access', 'report', '--group', 'ops', '--fail-on', 'expired', '-o', 'json']);
      expect(report.code, report.stderr).toBe(0);
      expect((report.json() as Row[]).filter((r) => r.user === 'omar' && r.place === 'ops')).toEqual([]);
    } finally {
      await sandbox.call('DELETE', `/groups/${ops}/members/${id('omar')}`);
    }
  });
});
