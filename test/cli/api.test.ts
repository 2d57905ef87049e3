import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assignField, typedValue } from '../../src/json-fields.js';
import { tempDir, useTestSandbox } from '../helpers/cli.js';
import { users as usersTable } from '../../src/sandbox/model.js';
import { buildCatalogue } from '../../src/commands/mcp/catalogue.js';
import { ToolServer } from '../../src/commands/mcp/server.js';
import { commands, manifest } from '../../src/commands/manifest.js';
import { execute } from '../../src/main.js';

const sandbox = useTestSandbox({ users: 45 });

describe('forgectl api', () => {
  it('prints the JSON body of a GET', async () => {
    const result = await sandbox.run(['api', 'version']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ version: expect.any(String) });
  });

  it('sends -f fields as query parameters on GET (POST is the default with fields, as in gh)', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['api', '-X', 'GET', '/users', '-f', 'username=alice']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject([{ username: 'alice' }]);
    expect(sandbox.requests()[0].path).toBe('/api/v4/users?username=alice');
  });

  it('types -F values: numbers, booleans, null, @file, arrays and nesting', async () => {
    const file = join(tempDir(), 'body.txt');
    writeFileSync(file, 'from a file');
    expect(await typedValue('42', async () => '')).toBe(42);
    expect(await typedValue('true', async () => '')).toBe(true);
    expect(await typedValue('null', async () => '')).toBeNull();
    expect(await typedValue('4x', async () => '')).toBe('4x');
    expect(await typedValue(`@${file}`, async () => '')).toBe('from a file');
    expect(await typedValue('@-', async () => 'stdin text')).toBe('stdin text');
    const target: Record<string, any> = {};
    assignField(target, 'scopes[]', 'api');
    assignField(target, 'scopes[]', 'read_api');
    assignField(target, 'range[start]', 1);
    expect(target).toEqual({ scopes: ['api', 'read_api'], range: { start: 1 } });
  });

  it('prints instead of sending with --dry-run, redacting secrets', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['--dry-run', 'api', '-X', 'PUT', '/application/settings', '-F', 'signup_enabled=false', '-f', 'external_pipeline_validation_service_token=s3cret']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`PUT ${sandbox.rootUrl}/api/v4/application/settings`);
    expect(result.stdout).toContain('"signup_enabled": false');
    expect(result.stdout).toContain('[REDACTED]');
    expect(result.stdout).not.toContain('s3cret');
    expect(sandbox.requests()).toEqual([]);
  });

  it('sends --input from stdin as the body and -H headers', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['api', '-X', 'POST', '/version', '--input', '-', '-H', 'X-Test: yes'], { input: '{"a":1}' });
    expect(result.code).toBe(5); // no POST route: the service's 404 is reported, not hidden
    expect(sandbox.requests()).toHaveLength(1);
  });

  it('shows the status line and headers with -i', async () => {
    const result = await sandbox.run(['api', '-i', '-X', 'GET', '/users', '-f', 'per_page=2']);
    expect(result.stdout).toMatch(/^HTTP 200\n/);
    expect(result.stdout).toMatch(/x-next-page: 2/i);
  });

  it('--paginate gives one JSON array of every page, or NDJSON', async () => {
    sandbox.clearRequests();
    const all = await sandbox.run(['api', '/users', '--paginate', '-f', 'per_page=10']);
    expect(all.code).toBe(0);
    const users = all.json<Array<{ id: number }>>();
    const everyone = usersTable(sandbox.db).length; // root, alice, bob, 45 seeded users and the token bots
    expect(everyone).toBeGreaterThanOrEqual(48);
    expect(users).toHaveLength(everyone);
    expect(new Set(users.map((u) => u.id)).size).toBe(everyone);
    const ndjson = await sandbox.run(['-o', 'ndjson', 'api', '/users', '--paginate']);
    expect(ndjson.stdout.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(users.map((u) => u.id));
  });

  it('--paginate --limit N stops requesting pages once N records came; --per-page (or -f per_page) sizes the pages', async () => {
    const everyone = (await sandbox.run(['api', '/users', '--paginate'])).json<Array<{ id: number }>>();
    const gets = () => sandbox.requests().filter((request) => request.path.startsWith('/api/v4/users?'));
    sandbox.clearRequests();
    const limited = await sandbox.run(['api', '/users', '--paginate', '--limit', '15', '--per-page', '10']);
    expect(limited.code, limited.stderr).toBe(0);
    expect(limited.json()).toEqual(everyone.slice(0, 15));
    expect(gets().map((request) => new URL(request.path, sandbox.rootUrl).searchParams.get('per_page'))).toEqual(['10', '10']);
    sandbox.clearRequests();
    const few = await sandbox.run(['-o', 'ndjson', 'api', '/users', '--paginate', '--limit', '5']);
    expect(few.stdout.trim().split('\n').map((line) => JSON.parse(line).id)).toEqual(everyone.slice(0, 5).map((user) => user.id));
    expect(gets()).toHaveLength(1);
    sandbox.clearRequests();
    const field = await sandbox.run(['api', '/users', '--paginate', '-f', 'per_page=20']);
    expect(field.json()).toEqual(everyone);
    expect(gets().map((request) => new URL(request.path, sandbox.rootUrl).searchParams.get('per_page'))).toEqual(['20', '20', '20']);
  });

  it('the agent interface\'s api tool takes a limit: the pages of a list until that many records', async () => {
    const server = new ToolServer({ tools: await buildCatalogue(manifest), commands, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) });
    sandbox.clearRequests();
    const few = await server.call('api', { path: '/users', limit: 5 });
    expect(few.isError, few.content[0].text).toBeFalsy();
    expect((few.structuredContent!.result as unknown[]).length).toBe(5);
    expect(sandbox.requests()).toHaveLength(1);
  });

  it('refuses --limit and --per-page without --paginate, with graphql, or out of range: exit 2, nothing sent', async () => {
    sandbox.clearRequests();
    const cases: Array<[string[], RegExp]> = [
      [['api', '/users', '--limit', '5'], /^error: --limit goes with --paginate\nhint: add --paginate, or ask for one page with -f per_page=N\n$/],
      [['api', '/users', '--per-page', '5', '--limit', '5'], /^error: --per-page and --limit go with --paginate\n/],
      [['api', 'graphql', '--paginate', '--limit', '5', '-f', 'query={ currentUser { username } }'], /^error: --limit cannot be used with graphql\nhint: a GraphQL query sizes its pages itself: first: N in the query\n$/],
      [['api', '/users', '--paginate', '--per-page', '500'], /^error: --per-page must be between 1 and 100, got 500\n/],
      [['api', '/users', '--paginate', '-f', 'per_page=0'], /^error: per_page must be between 1 and 100, got 0\n/],
      [['api', '/users', '--paginate', '--per-page', '10', '-f', 'per_page=20'], /^error: --per-page 10 and -f per_page=20 disagree\n/],
    ];
    for (const [argv, stderr] of cases) {
      const result = await sandbox.run(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toMatch(stderr);
    }
    expect(sandbox.requests()).toEqual([]);
  });

  it('reports error bodies as one line with the exit code', async () => {
    const result = await sandbox.run(['api', '/projects/acme%2Fnope']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('error: 404 Project Not Found (GET /projects/acme%2Fnope → 404)');
  });

  it('refuses a method the API does not answer before sending anything (exit 2); a lower-case one is taken', async () => {
    sandbox.clearRequests();
    const typo = await sandbox.run(['api', '-X', 'FROB', '/projects']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^error: --method must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS; got "FROB"$/m);
    expect(sandbox.requests()).toEqual([]);
    const lower = await sandbox.run(['api', '-X', 'get', '/version']);
    expect(lower.code, lower.stderr).toBe(0);
  });
});

describe('forgectl api -X DELETE asks first, as every command that deletes', () => {
  const badge = async () => (await sandbox.call('POST', '/projects/acme%2Fapi/badges', { link_url: 'https://ci.example.com', image_url: 'https://ci.example.com/b.svg' })).body.id as number;
  const exists = async (id: number) => (await sandbox.call('GET', `/projects/acme%2Fapi/badges/${id}`)).status === 200;
  const deletes = () => sandbox.requests().filter((request) => request.method === 'DELETE');

  it('off a terminal: without --yes exit 2 naming the method and path, nothing sent; with --yes it deletes', async () => {
    const id = await badge();
    const path = `/projects/acme%2Fapi/badges/${id}`;
    sandbox.clearRequests();
    const refused = await sandbox.run(['api', '-X', 'DELETE', path]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`error: confirmation needed: Send DELETE ${path} to ${new URL(sandbox.rootUrl).host}?\nhint: pass --yes to confirm without a terminal\n`);
    expect(refused.stdout).toBe('');
    expect(deletes()).toEqual([]);
    expect(await exists(id)).toBe(true);
    const confirmed = await sandbox.run(['api', '-X', 'DELETE', path, '--yes']);
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(deletes()).toHaveLength(1);
    expect(await exists(id)).toBe(false);
  });

  it('at a terminal: the question names the method and path; n keeps it, y deletes it', async () => {
    const id = await badge();
    const path = `/projects/acme%2Fapi/badges/${id}`;
    sandbox.clearRequests();
    const kept = await sandbox.run(['api', '-X', 'delete', path], { tty: true, input: 'n\n' });
    expect(kept.code).toBe(2);
    expect(kept.stderr).toContain(`Send DELETE ${path} to ${new URL(sandbox.rootUrl).host}?`);
    expect(deletes()).toEqual([]);
    const deleted = await sandbox.run(['api', '-X', 'DELETE', path], { tty: true, input: 'y\n' });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(await exists(id)).toBe(false);
  });

  it('Ctrl-C at the question exits 130 with nothing sent', async () => {
    const id = await badge();
    sandbox.clearRequests();
    const interrupted = await sandbox.run(['api', '-X', 'DELETE', `/projects/acme%2Fapi/badges/${id}`], { tty: true, input: '\u0003' });
    expect(interrupted.code).toBe(130);
    expect(deletes()).toEqual([]);
    expect(await exists(id)).toBe(true);
  });

  it('a POST, PUT or PATCH to an action that deletes (a job\'s erase) asks as a DELETE does; other writes do not', async () => {
    sandbox.clearRequests();
    for (const [method, path] of [['POST', '/projects/acme%2Fapi/jobs/1/erase'], ['PUT', '/projects/1/registry/purge/'], ['PATCH', '/projects/1/things/Delete?x=1']]) {
      const refused = await sandbox.run(['api', '-X', method, path]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe(`error: confirmation needed: Send ${method} ${path} to ${new URL(sandbox.rootUrl).host}?\nhint: pass --yes to confirm without a terminal\n`);
    }
    expect(sandbox.requests()).toEqual([]);
    const sent = await sandbox.run(['api', '-X', 'POST', '/projects/acme%2Fapi/jobs/1/erase', '--yes']);
    expect(sent.code).not.toBe(2);
    expect(sandbox.requests().map((request) => request.method)).toEqual(['POST']);
    // A path that only holds the word elsewhere (a project named delete) is an ordinary write.
    sandbox.clearRequests();
    const badges = await sandbox.run(['api', '/projects/acme%2Fapi/badges', '-f', 'link_url=https://ci.example.com/erase', '-f', 'image_url=https://ci.example.com/b.svg']);
    expect(badges.code, badges.stderr).toBe(0);
  });

  it('--dry-run prints the DELETE without asking and sends nothing', async () => {
    const id = await badge();
    sandbox.clearRequests();
    const dry = await sandbox.run(['--dry-run', 'api', '-X', 'DELETE', `/projects/acme%2Fapi/badges/${id}`]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`DELETE ${sandbox.rootUrl}/api/v4/projects/acme%2Fapi/badges/${id}`);
    expect(dry.stderr).not.toContain('confirmation');
    expect(sandbox.requests()).toEqual([]);
  });

  it('the agent interface\'s api tool deletes where writes are allowed, once confirmed, as every tool that deletes there does', async () => {
    const id = await badge();
    const server = new ToolServer({ tools: await buildCatalogue(manifest, { toolsets: ['api'], allowWrite: ['api'] }), commands, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) });
    const unconfirmed = await server.call('api', { path: `/projects/acme%2Fapi/badges/${id}`, method: 'DELETE' });
    expect(unconfirmed.isError).toBe(true);
    expect(await exists(id)).toBe(true);
    const deleted = await server.call('api', { path: `/projects/acme%2Fapi/badges/${id}`, method: 'DELETE', confirm: true });
    expect(deleted.isError, deleted.content[0].text).toBeFalsy();
    expect(await exists(id)).toBe(false);
  });
});
