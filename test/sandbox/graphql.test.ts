import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/cli.js';
import { findUser } from '../../src/sandbox/auth.js';
import { projects, runnerTable } from '../../src/sandbox/model.js';
import { addRunner } from '../../src/resources/runners/sandbox.js';
import { addToken } from '../../src/sandbox/seed.js';
import { upgradeStatus } from '../../src/sandbox/runners.js';

const sandbox = useTestSandbox();

/** A GraphQL request to the sandbox's /api/graphql, as root unless a token is given (null: none). */
async function graphql(body: unknown, token: string | null = sandbox.adminToken, init: { method?: string; query?: string } = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`${sandbox.rootUrl}/api/graphql${init.query ?? ''}`, {
    method: init.method ?? 'POST',
    headers: { ...(token ? { 'PRIVATE-TOKEN': token } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const RUNNER_DELETE = 'mutation bulkRunnerDelete($input: BulkRunnerDeleteInput!) {\n  bulkRunnerDelete(input: $input) {\n    deletedIds\n    errors\n    __typename\n  }\n}\n';
const gid = (id: number) => `gid://gitlab/Ci::Runner/${id}`;
const newRunner = (description: string, fields: Record<string, unknown> = {}) => addRunner(sandbox.db, { runner_type: 'instance_type', description, ...fields } as never, new Date());

describe('sandbox: GraphQL at /api/graphql, the service\'s documented queries', () => {
  it('runs the getting-started query as the token\'s user (the curl of the docs, Authorization: Bearer)', async () => {
    const response = await fetch(`${sandbox.rootUrl}/api/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${sandbox.adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'query {currentUser {name}}' }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { currentUser: { name: 'Administrator' } } });
  });

  it('answers an invalid token with 401 {"errors":[{"message":"Invalid token"}]}, and anonymous requests with public data', async () => {
    expect(await graphql({ query: 'query {currentUser {name}}' }, 'glpat-not-a-token')).toEqual({ status: 401, body: { errors: [{ message: 'Invalid token' }] } });
    expect(await graphql({ query: 'query {currentUser {name}}' }, null)).toEqual({ status: 200, body: { data: { currentUser: null } } });
    const projects = await graphql({ query: '{ projects { nodes { fullPath visibility } } }' }, null);
    expect(projects.body.data.projects.nodes.every((p: { visibility: string }) => p.visibility === 'public')).toBe(true);
  });

  it('finds a group and its projects by full path (the docs\' first query)', async () => {
    const { body } = await graphql({ query: 'query {\n  group(fullPath: "acme") {\n    id\n    name\n    projects {\n      nodes {\n        name\n      }\n    }\n  }\n}' });
    expect(body.data.group).toMatchObject({ id: expect.stringMatching(/^gid:\/\/gitlab\/Group\/\d+$/), name: expect.any(String) });
    expect(body.data.group.projects.nodes.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['api', 'web']));
    expect((await graphql({ query: '{ group(fullPath: "no/such") { id } }' })).body).toEqual({ data: { group: null } });
  });

  it('runs the users example of the docs: usernames, pageInfo, and the user\'s permissions', async () => {
    const query = '{\n  users(usernames: ["alice", "bob"]) {\n    pageInfo {\n      endCursor\n      startCursor\n      hasNextPage\n    }\n    nodes {\n      id\n      username,\n      publicEmail\n      location\n      webUrl\n      userPermissions {\n        createSnippet\n      }\n    }\n  }\n}';
    const { body } = await graphql({ query });
    const alice = findUser(sandbox.db, 'alice');
    expect(body.data.users.pageInfo).toEqual({ endCursor: expect.any(String), startCursor: expect.any(String), hasNextPage: false });
    expect(body.data.users.nodes).toContainEqual({ id: `gid://gitlab/User/${alice.id}`, username: 'alice', publicEmail: null, location: null, webUrl: `${sandbox.rootUrl}/alice`, userPermissions: { createSnippet: false } });
    expect(body.data.users.nodes.map((u: { username: string }) => u.username).sort()).toEqual(['alice', 'bob']);
  });

  it('runs the Rails console example: projects by a search in a variable', async () => {
    const query = 'query securityGetProjects($search: String!) {\n  projects(search: $search) {\n    nodes {\n      path\n    }\n  }\n}\n';
    const { body } = await graphql({ query, variables: { search: 'api' } });
    expect(body.data.projects.nodes.map((p: { path: string }) => p.path)).toContain('api');
    expect(body.data.projects.nodes.every((p: { path: string }) => p.path.includes('api'))).toBe(true);
  });

  it('finds a runner by its global ID, and refuses an ID of another model as the service words it', async () => {
    expect((await graphql({ query: '{\n  runner(id: "gid://gitlab/Ci::Runner/1") {\n    id\n  }\n}' })).body).toEqual({ data: { runner: { id: 'gid://gitlab/Ci::Runner/1' } } });
    const wrong = await graphql({ query: '{ runner(id: "gid://gitlab/User/1") { id } }' });
    expect(wrong.body.errors[0].message).toContain('"gid://gitlab/User/1" does not represent an instance of Ci::Runner');
    expect((await graphql({ query: '{ runner(id: "7") { id } }' })).body.errors[0].message).toContain('"7" is not a valid Global ID');
  });

  it('pages users forwards with first/after and backwards with last/before, in the order of GET /users', async () => {
    const all: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 20; pages++) {
      const { body } = await graphql({ query: 'query($after: String) { users(first: 2, after: $after) { count pageInfo { hasNextPage endCursor } nodes { username } } }', variables: { after } });
      all.push(...body.data.users.nodes.map((u: { username: string }) => u.username));
      if (!body.data.users.pageInfo.hasNextPage) break;
      after = body.data.users.pageInfo.endCursor;
    }
    const rest = (await sandbox.call('GET', '/users?per_page=100')).body.map((u: { username: string }) => u.username);
    expect(all).toEqual(rest);
    const last = await graphql({ query: '{ users(last: 2) { pageInfo { hasPreviousPage startCursor } nodes { username } } }' });
    expect(last.body.data.users.nodes.map((u: { username: string }) => u.username)).toEqual(rest.slice(-2));
    const before = await graphql({ query: 'query($before: String) { users(last: 1, before: $before) { nodes { username } } }', variables: { before: last.body.data.users.pageInfo.startCursor } });
    expect(before.body.data.users.nodes.map((u: { username: string }) => u.username)).toEqual(rest.slice(-3, -2));
    expect((await graphql({ query: '{ users(after: "bm90IGEgY3Vyc29y") { nodes { id } } }' })).body.errors[0].message).toBe('Please provide a valid cursor');
  });

  it('writes times as the service does: ISO 8601 in UTC, to the second', async () => {
    const { body } = await graphql({ query: '{ runners(first: 1, sort: CREATED_ASC) { nodes { createdAt contactedAt } } }' });
    expect(body.data.runners.nodes[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});

describe('sandbox: GraphQL runners and their upgrade status', () => {
  it('answers upgradeStatus as the runner upgrade check does, null without a version or on the free tier', () => {
    expect(upgradeStatus(null)).toBeNull();
    expect(upgradeStatus('not a version')).toBe('INVALID');
    expect(upgradeStatus('15.11.1')).toBe('RECOMMENDED'); // outside the backport window
    expect(upgradeStatus('17.9.0')).toBe('RECOMMENDED'); // a newer patch of its minor release
    expect(upgradeStatus('17.10.1')).toBe('AVAILABLE'); // the release of the instance's version is newer
    expect(upgradeStatus('17.11.2')).toBe('NOT_AVAILABLE');
  });

  it('lists every runner for administrators (filters, sort, upgrade status) and none for others', async () => {
    const query = 'query($status: CiRunnerStatus, $type: CiRunnerType, $upgradeStatus: CiRunnerUpgradeStatus) { runners(status: $status, type: $type, upgradeStatus: $upgradeStatus) { count nodes { id description runnerType status paused upgradeStatus } } }';
    const all = (await graphql({ query })).body.data.runners;
    const rest = (await sandbox.call('GET', '/runners/all?per_page=100')).body;
    expect(all.count).toBe(rest.length);
    expect(all.nodes.map((r: { id: string }) => r.id).sort()).toEqual(rest.map((r: { id: number }) => gid(r.id)).sort());
    const stale = (await graphql({ query, variables: { status: 'STALE' } })).body.data.runners.nodes.map((r: { description: string }) => r.description).sort();
    expect(stale).toEqual(rest.filter((r: { status: string }) => r.status === 'stale').map((r: { description: string }) => r.description).sort());
    expect((await graphql({ query, variables: { upgradeStatus: 'AVAILABLE' } })).body.data.runners.nodes).toEqual([expect.objectContaining({ description: 'acme-k8s', upgradeStatus: 'AVAILABLE' })]);
    expect((await graphql({ query }, sandbox.tokenWithRole('owner'))).body.data.runners).toEqual({ count: 0, nodes: [] });
  });

  it('answers null upgradeStatus on the free tier', async () => {
    const free = await (await import('../helpers/cli.js')).startTestSandbox({ tier: 'free' });
    try {
      const response = await fetch(`${free.rootUrl}/api/graphql`, { method: 'POST', headers: { 'PRIVATE-TOKEN': free.adminToken, 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ runners { nodes { upgradeStatus } } }' }) });
      const body = await response.json();
      expect(body.data.runners.nodes.every((r: { upgradeStatus: unknown }) => r.upgradeStatus === null)).toBe(true);
    } finally {
      await free.close();
    }
  });
});

describe('sandbox: bulkRunnerDelete', () => {
  it('deletes the runners of the ids given as the admin page asks (the query of the service\'s own UI), gone from REST too', async () => {
    const a = newRunner('bulk-a');
    const b = newRunner('bulk-b');
    const { status, body } = await graphql({ operationName: 'bulkRunnerDelete', variables: { input: { ids: [gid(a.id), gid(b.id), gid(99999)] } }, query: RUNNER_DELETE });
    expect(status).toBe(200);
    expect(body).toEqual({ data: { bulkRunnerDelete: { deletedIds: [gid(a.id), gid(b.id)], errors: [], __typename: 'BulkRunnerDeletePayload' } } });
    expect((await sandbox.call('GET', `/runners/${a.id}`)).status).toBe(404);
    expect((await sandbox.call('GET', '/runners/all?per_page=100')).body.map((r: { id: number }) => r.id)).not.toContain(b.id);
  });

  it('deletes at most 50 a call and says the rest were ignored, as the service does', async () => {
    const made = Array.from({ length: 52 }, (_, n) => newRunner(`bulk-limit-${n}`));
    const { body } = await graphql({ query: 'mutation($ids: [CiRunnerID!]) { bulkRunnerDelete(input: { ids: $ids }) { deletedCount deletedIds errors } }', variables: { ids: made.map((r) => gid(r.id)) } });
    expect(body.data.bulkRunnerDelete.deletedCount).toBe(50);
    expect(body.data.bulkRunnerDelete.deletedIds).toEqual(made.slice(0, 50).map((r) => gid(r.id)));
    expect(body.data.bulkRunnerDelete.errors).toEqual(['Can only delete up to 50 runners per call. Ignored the remaining runner(s).']);
    expect(runnerTable(sandbox.db).filter((r) => r.description.startsWith('bulk-limit-')).map((r) => r.description)).toEqual(['bulk-limit-50', 'bulk-limit-51']);
  });

  it('deletes only the runners the caller manages and names the others; without write scope or a user it runs nothing', async () => {
    const shared = newRunner('bulk-shared');
    const api = runnerTable(sandbox.db).find((r) => r.description === 'api-gpu')!;
    const maintainer = sandbox.tokenWithRole('maintainer');
    const mixed = await graphql({ query: RUNNER_DELETE, variables: { input: { ids: [gid(shared.id)] } } }, maintainer);
    expect(mixed.body.data.bulkRunnerDelete).toMatchObject({ deletedIds: [], errors: ['User does not have permission to delete any of the runners'] });
    const project = newRunner('bulk-project', { runner_type: 'project_type', project_ids: api.project_ids });
    const some = await graphql({ query: RUNNER_DELETE, variables: { input: { ids: [gid(shared.id), gid(project.id)] } } }, maintainer);
    expect(some.body.data.bulkRunnerDelete).toMatchObject({ deletedIds: [gid(project.id)], errors: [`User does not have permission to delete runner(s) #${shared.id}`] });
    const readOnly = addToken(sandbox.db, findUser(sandbox.db, 'root'), { scopes: ['read_api'] }, new Date()).token;
    for (const token of [readOnly, null]) {
      const refused = await graphql({ query: RUNNER_DELETE, variables: { input: { ids: [gid(shared.id)] } } }, token);
      expect(refused.body).toEqual({
        errors: [{ message: "The resource that you are attempting to access does not exist or you don't have permission to perform this action", locations: [{ line: 2, column: 3 }], path: ['bulkRunnerDelete'] }],
        data: { bulkRunnerDelete: null },
      });
    }
    expect(runnerTable(sandbox.db).some((r) => r.id === shared.id)).toBe(true);
  });
});

describe('sandbox: bulkRunnerDelete and REST agree on who deletes', () => {
  it('refuses a non-administrator a project runner several projects use, as REST does; an administrator deletes it', async () => {
    const api = runnerTable(sandbox.db).find((r) => r.description === 'api-gpu')!;
    const other = projects(sandbox.db).find((p) => p.path_with_namespace.startsWith('acme/') && !api.project_ids.includes(p.id))!;
    const several = newRunner('bulk-several', { runner_type: 'project_type', project_ids: [...api.project_ids, other.id] });
    // Maintainer of every project it serves, and still not allowed: the service keeps that to administrators.
    const maintainer = sandbox.tokenWithRole('maintainer');
    const refused = await graphql({ query: RUNNER_DELETE, variables: { input: { ids: [gid(several.id)] } } }, maintainer);
    expect(refused.body.data.bulkRunnerDelete).toMatchObject({ deletedIds: [], errors: ['User does not have permission to delete any of the runners'] });
    const rest = await sandbox.call('DELETE', `/runners/${several.id}`, undefined, maintainer);
    expect(rest.status).toBe(403);
    expect(rest.body).toEqual({ message: '403 Forbidden - Runner associated with more than one project' });
    expect(runnerTable(sandbox.db).some((r) => r.id === several.id)).toBe(true);
    const admin = await graphql({ query: RUNNER_DELETE, variables: { input: { ids: [gid(several.id)] } } });
    expect(admin.body.data.bulkRunnerDelete).toMatchObject({ deletedIds: [gid(several.id)], errors: [] });
  });
});

describe('sandbox: the GraphQL endpoint\'s requests', () => {
  it('answers GET with the query in the URL, and refuses a mutation over GET (422) without running it', async () => {
    const get = await graphql(undefined, sandbox.adminToken, { method: 'GET', query: `?query=${encodeURIComponent('{ currentUser { username } }')}` });
    expect(get).toEqual({ status: 200, body: { data: { currentUser: { username: 'root' } } } });
    const runner = newRunner('bulk-get');
    const mutation = `?query=${encodeURIComponent(RUNNER_DELETE)}&variables=${encodeURIComponent(JSON.stringify({ input: { ids: [gid(runner.id)] } }))}`;
    expect(await graphql(undefined, sandbox.adminToken, { method: 'GET', query: mutation })).toEqual({ status: 422, body: { errors: [{ message: 'Mutations are forbidden in GET requests' }] } });
    expect(runnerTable(sandbox.db).some((r) => r.id === runner.id)).toBe(true);
  });

  it('answers several operations in one request (an array) with an array, and refuses queries over 10,000 characters', async () => {
    const batch = await graphql([{ query: '{ currentUser { username } }' }, { query: 'query($u: [String!]) { users(usernames: $u) { nodes { username } } }', variables: { u: ['alice'] } }]);
    expect(batch.body).toEqual([{ data: { currentUser: { username: 'root' } } }, { data: { users: { nodes: [{ username: 'alice' }] } } }]);
    expect(await graphql({ query: `{ currentUser { username } }${' '.repeat(10_000)}` })).toEqual({ status: 422, body: { errors: [{ message: 'Query too large' }] } });
    expect((await graphql({ query: '{ currentUser { username } }', variables: '[1]' })).status).toBe(422);
  });

  it('answers parse and validation errors with 200 and the errors alone, no data', async () => {
    const parse = await graphql({ query: '{ runners(' });
    expect(parse.status).toBe(200);
    expect(parse.body).toEqual({ errors: [{ message: expect.stringMatching(/^Syntax Error/), locations: [{ line: 1, column: 11 }] }] });
    const invalid = await graphql({ query: '{ runners { nodes { secret } } }' });
    expect(invalid.body.errors[0].message).toContain('Cannot query field "secret" on type "CiRunner"');
    expect(invalid.body.data).toBeUndefined();
  });
});
