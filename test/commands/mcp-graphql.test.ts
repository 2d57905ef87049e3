import { describe, expect, it } from 'vitest';
import { buildCatalogue, toolValues } from '../../src/commands/mcp/catalogue.js';
import { ToolServer } from '../../src/commands/mcp/server.js';
import { commands, manifest } from '../../src/commands/manifest.js';
import { execute } from '../../src/main.js';
import { runnerTable } from '../../src/sandbox/model.js';
import { addRunner } from '../../src/resources/runners/sandbox.js';
import { useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

async function serverWith(options: { allowWrite?: string[] } = {}): Promise<ToolServer> {
  const tools = await buildCatalogue(manifest, { toolsets: ['graphql'], ...options });
  return new ToolServer({ tools, commands, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) });
}

const text = (result: { content: Array<{ text: string }> }) => result.content.map((item) => item.text).join('\n');
const graphqlPosts = () => sandbox.requests().filter((r) => r.method === 'POST' && r.path === '/api/graphql');
const DELETE = 'mutation($input: BulkRunnerDeleteInput!) { bulkRunnerDelete(input: $input) { deletedIds errors } }';

describe('the agent interface\'s graphql tool', () => {
  it('is a toolset of its own, off by default; read-only unless writes are allowed for it', async () => {
    expect((await buildCatalogue(manifest)).map((tool) => tool.name)).not.toContain('graphql');
    const [read] = await buildCatalogue(manifest, { toolsets: ['graphql'] });
    expect(read).toMatchObject({ name: 'graphql', toolset: 'graphql', readOnly: true, destructive: false, inputSchema: { required: ['query'] } });
    expect(Object.keys(read.inputSchema.properties!)).toEqual(['query', 'variables', 'operation_name', 'paginate']);
    expect((await buildCatalogue(manifest, { toolsets: ['graphql'], allowWrite: ['graphql'] }))[0]).toMatchObject({ readOnly: false, destructive: true });
    // The api tool stays GET only when writes are allowed for graphql alone.
    expect((await buildCatalogue(manifest, { toolsets: ['api', 'graphql'], allowWrite: ['graphql'] })).find((tool) => tool.name === 'api')).toMatchObject({ readOnly: true });
  });

  it('runs a query with its variables and returns what api graphql -o json prints; paginate returns every page', async () => {
    const server = await serverWith();
    const one = await server.call('graphql', { query: 'query($names: [String!]) { users(usernames: $names) { nodes { username } } }', variables: { names: ['alice', 'bob'] } });
    expect(one.isError).toBeFalsy();
    expect(one.structuredContent).toEqual({ result: { data: { users: { nodes: [{ username: 'bob' }, { username: 'alice' }] } } }, exit_code: 0 });
    const pages = await server.call('graphql', { query: 'query($endCursor: String) { users(first: 3, after: $endCursor) { pageInfo { hasNextPage endCursor } nodes { username } } }', paginate: true });
    const result = pages.structuredContent!.result as Array<{ data: { users: { nodes: unknown[] } } }>;
    expect(result.length).toBeGreaterThan(1);
    expect(result.flatMap((page) => page.data.users.nodes)).toHaveLength((await sandbox.call('GET', '/users?per_page=100')).body.length);
  });

  it('refuses a document with a mutation in it by parsing it, sending nothing; a query that only mentions one runs', async () => {
    const server = await serverWith();
    const runner = addRunner(sandbox.db, { runner_type: 'instance_type', description: 'keep-me' } as never, new Date());
    sandbox.clearRequests();
    const refused = [
      { query: DELETE, variables: { input: { ids: [`gid://gitlab/Ci::Runner/${runner.id}`] } } },
      // The mutation is there, whichever operation is picked.
      { query: `query Who { currentUser { username } }\n${DELETE.replace('mutation', 'mutation Drop')}`, operation_name: 'Who' },
      { query: '  # a comment first\n  mutation { bulkRunnerDelete(input: {ids: []}) { errors } }' },
      { query: 'subscription { currentUser { username } }' },
    ];
    for (const input of refused) {
      const result = await server.call('graphql', input);
      expect(result.isError, input.query).toBe(true);
      expect(text(result)).toContain('graphql: this server runs GraphQL queries only, and the document has a mutation');
    }
    expect(graphqlPosts()).toEqual([]);
    expect(runnerTable(sandbox.db).some((r) => r.id === runner.id)).toBe(true);
    const mentions = await server.call('graphql', { query: '# mutation { bulkRunnerDelete }\nquery { users(search: "mutation {") { nodes { username } } }' });
    expect(mentions.structuredContent).toEqual({ result: { data: { users: { nodes: [] } } }, exit_code: 0 });
    const broken = await server.call('graphql', { query: '{ users(' });
    expect(broken.isError).toBe(true);
    expect(text(broken)).toContain('the query is not GraphQL: Syntax Error');
  });

  it('runs a mutation where writes are allowed, with an input object of a list of IDs', async () => {
    const server = await serverWith({ allowWrite: ['graphql'] });
    const runner = addRunner(sandbox.db, { runner_type: 'instance_type', description: 'drop-me' } as never, new Date());
    const result = await server.call('graphql', { query: DELETE, variables: { input: { ids: [`gid://gitlab/Ci::Runner/${runner.id}`] } }, confirm: true });
    expect(result.structuredContent).toEqual({ result: { data: { bulkRunnerDelete: { deletedIds: [`gid://gitlab/Ci::Runner/${runner.id}`], errors: [] } } }, exit_code: 0 });
    expect(runnerTable(sandbox.db).some((r) => r.id === runner.id)).toBe(false);
  });

  it('passes variables as values: a string that names a file is a string, typed values keep their type, a list of objects is refused', async () => {
    const [tool] = await buildCatalogue(manifest, { toolsets: ['graphql'] });
    const values = toolValues(tool, { query: 'query($a: String, $n: Int, $o: T) { currentUser { username } }', variables: { a: '@/etc/passwd', n: 2, o: { list: ['x', 'true'], flag: true } } });
    expect(values).toEqual({
      values: [
        { flag: '--method', value: 'POST' },
        { flag: '--raw-field', value: 'query=query($a: String, $n: Int, $o: T) { currentUser { username } }' },
        { flag: '--raw-field', value: 'a=@/etc/passwd' },
        { flag: '--field', value: 'n=2' },
        { flag: '--raw-field', value: 'o[list][]=x' },
        { flag: '--raw-field', value: 'o[list][]=true' },
        { flag: '--field', value: 'o[flag]=true' },
      ],
      args: ['graphql'],
    });
    const server = await serverWith();
    const asText = await server.call('graphql', { query: 'query($u: [String!]) { users(usernames: $u) { nodes { username } } }', variables: { u: ['@/etc/passwd'] } });
    expect(asText.structuredContent).toEqual({ result: { data: { users: { nodes: [] } } }, exit_code: 0 });
    expect(() => toolValues(tool, { query: '{ currentUser { username } }', variables: { rows: [{ a: 1 }] } })).toThrow('a list of objects');
    expect(() => toolValues(tool, { query: '{ currentUser { username } }', variables: { 'a]': 1 } })).toThrow('may not hold');
  });

  it('answers a GraphQL error as a tool error with its exit code, and data beside errors with exit 9', async () => {
    const server = await serverWith();
    const invalid = await server.call('graphql', { query: '{ runners { nodes { secret } } }' });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toContain('Cannot query field "secret" on type "CiRunner"');
    const partial = await server.call('graphql', { query: '{ currentUser { username } users(after: "bad") { nodes { username } } }' });
    expect(partial.isError).toBeFalsy();
    expect(partial.structuredContent).toMatchObject({ result: { data: { currentUser: { username: 'root' }, users: null } }, exit_code: 9 });
  });
});
