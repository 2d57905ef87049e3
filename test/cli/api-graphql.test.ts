import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeOfGraphqlError } from '../../src/api/graphql.js';
import { withoutSecretValues } from '../../src/resources/variables/resource.js';
import { findUser } from '../../src/sandbox/auth.js';
import { runnerTable } from '../../src/sandbox/model.js';
import { addRunner } from '../../src/resources/runners/sandbox.js';
import { addToken } from '../../src/sandbox/seed.js';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();
const instant = { sleep: async () => undefined };

const USERS = 'query($endCursor: String) { users(first: 2, after: $endCursor) { pageInfo { hasNextPage endCursor } nodes { username } } }';
const DELETE = 'mutation($ids: [CiRunnerID!]) { bulkRunnerDelete(input: {ids: $ids}) { deletedIds errors } }';
const graphqlRequests = () => sandbox.requests().filter((r) => r.path.startsWith('/api/graphql'));

describe('forgectl api graphql', () => {
  it('--paginate over users follows $endCursor and gives the usernames of users list --all, in its order', async () => {
    sandbox.clearRequests();
    const pages = await sandbox.run(['api', 'graphql', '--paginate', '-f', `query=${USERS}`, '--jq', '.data.users.nodes[].username']);
    expect(pages).toMatchObject({ code: 0, stderr: '' });
    const list = await sandbox.run(['users', 'list', '--all', '--jq', '.username']);
    expect(pages.stdout).toBe(list.stdout);
    expect(graphqlRequests().length).toBe(Math.ceil(pages.stdout.trim().split('\n').length / 2));
    // One JSON array of the pages; NDJSON a page a line; --slurp gives jq all of them at once.
    const json = await sandbox.run(['api', 'graphql', '--paginate', '-f', `query=${USERS}`]);
    expect(json.json<unknown[]>().length).toBe(graphqlRequests().length / 2);
    const ndjson = await sandbox.run(['api', 'graphql', '--paginate', '-o', 'ndjson', '-f', `query=${USERS}`]);
    expect(ndjson.stdout.trim().split('\n').map((line) => JSON.parse(line).data.users.nodes.length).reduce((a, b) => a + b)).toBe(list.stdout.trim().split('\n').length);
    const slurped = await sandbox.run(['api', 'graphql', '--paginate', '--slurp', '-f', `query=${USERS}`, '--jq', '[.[].data.users.nodes[]] | length']);
    expect(slurped.stdout).toBe(`${list.stdout.trim().split('\n').length}\n`);
  });

  it('refuses --paginate for a query without $endCursor or pageInfo with gh\'s explanation, sending nothing', async () => {
    sandbox.clearRequests();
    const noCursor = await sandbox.run(['api', 'graphql', '--paginate', '-f', 'query={ users(first: 2) { pageInfo { hasNextPage endCursor } nodes { username } } }']);
    expect(noCursor.code).toBe(2);
    expect(noCursor.stderr).toContain('error: --paginate with graphql requires that the query accepts an $endCursor: String variable and that it fetches the pageInfo { hasNextPage endCursor } set of fields from a collection; this query declares no $endCursor variable');
    const noPageInfo = await sandbox.run(['api', 'graphql', '--paginate', '-f', 'query=query($endCursor: String) { users(after: $endCursor) { nodes { username } } }']);
    expect(noPageInfo.code).toBe(2);
    expect(noPageInfo.stderr).toContain('this query fetches no pageInfo { hasNextPage endCursor }');
    const mutation = await sandbox.run(['api', 'graphql', '--paginate', '-f', `query=${DELETE}`]);
    expect(mutation).toMatchObject({ code: 2, stderr: 'error: --paginate goes with a query, not a mutation\n' });
    expect(graphqlRequests()).toEqual([]);
  });

  it('takes the query from a file (-F query=@FILE), typed variables with -F, operationName, or a whole --input body', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'users.graphql'), 'query One($n: Int) { users(first: $n) { nodes { username } } }\nquery Two { currentUser { username } }\n');
    const both = await sandbox.run(['api', 'graphql', '-F', `query=@${join(dir, 'users.graphql')}`, '-F', 'n=1']);
    expect(both).toMatchObject({ code: 2, stderr: 'error: the query document has 2 operations (One, Two)\nhint: name the one to run: -f operationName=NAME\n' });
    const one = await sandbox.run(['api', 'graphql', '-F', `query=@${join(dir, 'users.graphql')}`, '-F', 'n=1', '-f', 'operationName=One']);
    expect(one.json().data.users.nodes).toHaveLength(1);
    writeFileSync(join(dir, 'body.json'), JSON.stringify({ query: 'query Two { currentUser { username } }', operationName: 'Two' }));
    expect((await sandbox.run(['api', 'graphql', '--input', join(dir, 'body.json')])).json()).toEqual({ data: { currentUser: { username: 'root' } } });
    const raw = await sandbox.run(['api', 'graphql', '-f', `query=@${join(dir, 'users.graphql')}`]);
    expect(raw.code).toBe(2);
    expect(raw.stderr).toContain('hint: to read the query from a file, give -F query=@FILE (-f takes the text as it is)');
  });

  it('keeps api /graphql a REST path below /api/v4; only the word graphql is the GraphQL API', async () => {
    sandbox.clearRequests();
    const rest = await sandbox.run(['api', '/graphql']);
    expect(rest.code).toBe(5);
    expect(rest.stderr).toContain('(GET /graphql → 404)');
    expect(sandbox.requests().map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v4/graphql']);
    expect((await sandbox.run(['api', 'graphql/foo'])).stderr).toContain('(GET /graphql/foo → 404)');
    sandbox.clearRequests();
    expect((await sandbox.run(['api', 'graphql', '-f', 'query={ currentUser { username } }'])).json()).toEqual({ data: { currentUser: { username: 'root' } } });
    expect(sandbox.requests().map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/graphql']);
    expect(await sandbox.run(['api', 'graphql', '-X', 'GET', '-f', 'query={ currentUser { username } }'])).toMatchObject({ code: 2, stderr: expect.stringContaining('api graphql sends POST') });
  });

  it('exits with the code of the kind of error when the answer has errors and no data, printing nothing', async () => {
    const cases: Array<[string[], number, string, Record<string, string | undefined>?]> = [
      [['-f', 'query={ runners { nodes { secret } } }'], 6, 'error: Cannot query field "secret" on type "CiRunner". (POST /api/graphql → 200)'],
      [['-f', 'query={ runner(id: "gid://gitlab/User/1") { id } }'], 6, 'does not represent an instance of Ci::Runner'],
      [['-f', 'query={ currentUser { username } }'], 4, 'error: Invalid token (POST /api/graphql → 401)', { FORGECTL_TOKEN: 'glpat-not-valid' }],
      [['-f', `query=${DELETE}`, '-f', 'ids[]=gid://gitlab/Ci::Runner/1', '--yes'], 5, "error: bulkRunnerDelete: The resource that you are attempting to access does not exist or you don't have permission to perform this action"],
    ];
    const readOnly = addToken(sandbox.db, findUser(sandbox.db, 'root'), { scopes: ['read_api'] }, new Date()).token;
    cases[3].push({ FORGECTL_TOKEN: readOnly });
    for (const [args, code, message, env] of cases) {
      const result = await sandbox.run(['api', 'graphql', ...args], { env });
      expect(result.code, message).toBe(code);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(message);
    }
    expect(runnerTable(sandbox.db).some((r) => r.id === 1)).toBe(true);
    const syntax = await sandbox.run(['api', 'graphql', '-f', 'query={ runners(']);
    expect(syntax).toMatchObject({ code: 2, stderr: 'error: the query is not GraphQL: Syntax Error: Expected Name, found <EOF>. (line 1, column 11)\n' });
  });

  it('maps the errors of answers with 200 by their message or code: rate limit 7, server 8, not found 5; -o json adds the error record', async () => {
    const answers: Array<[unknown, number]> = [
      [{ errors: [{ message: 'Rate limit exceeded, retry later' }] }, 7],
      [{ errors: [{ message: 'Internal server error' }], data: null }, 8],
      [{ errors: [{ message: 'Not found', extensions: { code: 'NOT_FOUND' } }] }, 5],
      [{ errors: [{ message: 'no', extensions: { code: 'FORBIDDEN' } }] }, 4],
      [{ data: null }, 8],
    ];
    for (const [body, code] of answers) {
      sandbox.fault({ method: 'POST', path: '^/api/graphql$', status: 200, body });
      const result = await sandbox.run(['api', 'graphql', '-o', 'json', '-f', 'query={ currentUser { username } }']);
      expect(result.code, JSON.stringify(body)).toBe(code);
      expect(JSON.parse(result.stderr.trim().split('\n').pop()!)).toMatchObject({ error: { status: 200, method: 'POST', path: '/api/graphql', exit_code: code } });
    }
    sandbox.fault({ method: 'POST', path: '^/api/graphql$', status: 429, retry_after: 0, times: 1 });
    expect((await sandbox.run(['--retries', '0', 'api', 'graphql', '-f', 'query={ currentUser { username } }'])).code).toBe(7);
    expect(exitCodeOfGraphqlError({ message: "Field 'userPermissions' doesn't exist on type 'ProjectPermissions'", extensions: { code: 'undefinedField' } })).toBe(6);
  });

  it('prints an answer with data beside errors, warns with each error on stderr, and exits 9', async () => {
    const result = await sandbox.run(['api', 'graphql', '-f', 'query={ currentUser { username } users(after: "bad") { nodes { username } } }']);
    expect(result.code).toBe(9);
    expect(result.json()).toMatchObject({ data: { currentUser: { username: 'root' }, users: null }, errors: [{ message: 'Please provide a valid cursor' }] });
    expect(result.stderr).toBe('warning: GraphQL error: users: Please provide a valid cursor\nattention: the answer came with 1 GraphQL error beside its data (above)\n');
  });

  it('retries a query as a GET is, and never sends a mutation again once it may have reached the server', async () => {
    sandbox.clearRequests();
    sandbox.fault({ method: 'POST', path: '^/api/graphql$', status: 502, times: 1 });
    expect((await sandbox.run(['api', 'graphql', '-f', 'query={ currentUser { username } }'], instant)).code).toBe(0);
    expect(graphqlRequests().map((r) => r.status)).toEqual([502, 200]);
    const runner = addRunner(sandbox.db, { runner_type: 'instance_type', description: 'retry-me' } as never, new Date());
    sandbox.clearRequests();
    sandbox.fault({ method: 'POST', path: '^/api/graphql$', drop: 'after', times: 1 });
    const mutation = await sandbox.run(['api', 'graphql', '-f', `query=${DELETE}`, '-f', `ids[]=gid://gitlab/Ci::Runner/${runner.id}`, '--yes'], instant);
    expect(mutation.code).toBe(8);
    expect(graphqlRequests()).toHaveLength(1);
    expect(runnerTable(sandbox.db).some((r) => r.id === runner.id)).toBe(false);
  });

  it('asks before a mutation, naming its fields: off a terminal exit 2 and nothing sent, --yes sends it; a query never asks', async () => {
    const runner = addRunner(sandbox.db, { runner_type: 'instance_type', description: 'ask-me' } as never, new Date());
    const ids = `ids[]=gid://gitlab/Ci::Runner/${runner.id}`;
    const host = new URL(sandbox.rootUrl).host;
    sandbox.clearRequests();
    // The word mutation in a comment or a string is no mutation; a query that holds one never asks.
    const query = await sandbox.run(['api', 'graphql', '-f', 'query=# mutation { bulkRunnerDelete }\nquery { users(search: "mutation {") { nodes { username } } }']);
    expect(query.code, query.stderr).toBe(0);
    expect(graphqlRequests()).toHaveLength(1);
    sandbox.clearRequests();
    const refused = await sandbox.run(['api', 'graphql', '-f', `query=${DELETE}`, '-f', ids]);
    expect(refused).toMatchObject({ code: 2, stdout: '', stderr: `error: confirmation needed: Send the GraphQL mutation bulkRunnerDelete to ${host}?\nhint: pass --yes to confirm without a terminal\n` });
    // A mutation behind a comment and a fragment is found by parsing, with the fields it runs named.
    const hidden = await sandbox.run(['api', 'graphql', '-f', 'query=# just a query\nmutation { ...Drop runnerDelete(input: {id: "gid://gitlab/Ci::Runner/1"}) { errors } }\nfragment Drop on Mutation { bulkRunnerDelete(input: {ids: []}) { errors } }']);
    expect(hidden.stderr).toContain(`Send the GraphQL mutation bulkRunnerDelete, runnerDelete to ${host}?`);
    expect(graphqlRequests()).toEqual([]);
    expect(runnerTable(sandbox.db).some((r) => r.id === runner.id)).toBe(true);
    const kept = await sandbox.run(['api', 'graphql', '-f', `query=${DELETE}`, '-f', ids], { tty: true, input: 'n\n' });
    expect(kept.code).toBe(2);
    expect(graphqlRequests()).toEqual([]);
    const confirmed = await sandbox.run(['api', 'graphql', '-f', `query=${DELETE}`, '-f', ids, '--yes']);
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(runnerTable(sandbox.db).some((r) => r.id === runner.id)).toBe(false);
  });

  it('--dry-run sends a query (it changes nothing) and prints a mutation instead of sending it; --verbose redacts the token', async () => {
    sandbox.clearRequests();
    const query = await sandbox.run(['--dry-run', 'api', 'graphql', '-f', 'query={ currentUser { username } }']);
    expect(query.json()).toEqual({ data: { currentUser: { username: 'root' } } });
    const mutation = await sandbox.run(['--dry-run', '-v', 'api', 'graphql', '-f', `query=${DELETE}`, '-f', 'ids[]=gid://gitlab/Ci::Runner/1']);
    expect(mutation.code).toBe(0);
    expect(mutation.stdout).toContain(`POST ${sandbox.rootUrl}/api/graphql\n`);
    expect(mutation.stdout).toContain('"ids": [\n      "gid://gitlab/Ci::Runner/1"\n    ]');
    expect(graphqlRequests()).toHaveLength(1);
    const verbose = await sandbox.run(['-v', 'api', 'graphql', '-f', 'query={ currentUser { username } }']);
    expect(verbose.stderr).toContain('PRIVATE-TOKEN: [REDACTED]');
    expect(verbose.stderr).not.toContain(sandbox.adminToken);
  });

  it('stops when the server gives the same endCursor twice instead of asking for the same page forever', async () => {
    const page = { data: { users: { pageInfo: { hasNextPage: true, endCursor: 'c1' }, nodes: [{ username: 'x' }] } } };
    sandbox.fault({ method: 'POST', path: '^/api/graphql$', status: 200, body: page, times: 2 });
    const result = await sandbox.run(['api', 'graphql', '--paginate', '-f', `query=${USERS}`, '--jq', '.data.users.nodes[].username']);
    expect(result.code).toBe(8);
    expect(result.stdout).toBe('x\nx\n');
    expect(result.stderr).toContain('the server gave the endCursor c1 a second time');
  });

  it('shows the values of masked CI/CD variables of an answer as null, and those not known to be unmasked', async () => {
    const variables = { nodes: [{ key: 'A', value: 'secret-a', masked: true }, { key: 'B', value: 'secret-b' }, { key: 'C', value: 'plain', masked: false }] };
    expect(withoutSecretValues({ data: { project: { ciVariables: variables } } })).toEqual({ data: { project: { ciVariables: { nodes: [{ key: 'A', value: null, masked: true }, { key: 'B', value: null }, { key: 'C', value: 'plain', masked: false }] } } } });
    sandbox.fault({ method: 'POST', path: '^/api/graphql$', status: 200, body: { data: { project: { ciVariables: variables } } } });
    const result = await sandbox.run(['api', 'graphql', '-f', 'query={ project(fullPath: "acme/api") { ciVariables { nodes { key value masked } } } }', '--jq', '.data.project.ciVariables.nodes[].value']);
    expect(result.stdout).toBe('null\nnull\nplain\n');
  });
});
