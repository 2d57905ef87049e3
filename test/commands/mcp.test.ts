import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { buildCatalogue, commandLine, cursorOf, DEFAULT_TOOLSETS, TOOLSETS } from '../../src/commands/mcp/catalogue.js';
import { ToolServer } from '../../src/commands/mcp/server.js';
import { manifest } from '../../src/commands/manifest.js';
import { main } from '../../src/main.js';
import { useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true });
ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/).addFormat('date-time', /./);

describe('the agent interface\'s tools, made from the command tree', () => {
  it('lists only reads by default, under 40 tools, in a stable order', async () => {
    const tools = await buildCatalogue(manifest);
    expect(tools.length).toBeLessThanOrEqual(40);
    expect(tools.every((tool) => tool.readOnly)).toBe(true);
    expect(new Set(tools.map((tool) => tool.toolset))).toEqual(new Set(DEFAULT_TOOLSETS));
    expect((await buildCatalogue(manifest)).map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name));
  });

  it('every tool of every toolset, writes allowed, has an input schema that compiles and honest annotations', async () => {
    const all = Object.keys(TOOLSETS);
    const tools = await buildCatalogue(manifest, { toolsets: all, allowWrite: all });
    expect(tools.length).toBeGreaterThan(100);
    for (const tool of tools) {
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
      expect(() => ajv.compile(tool.outputSchema), tool.name).not.toThrow();
      expect(tool.name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
      for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) expect(schema.description ?? schema.enum, `${tool.name}.${name}`).toBeTruthy();
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ['badges_delete', 'tokens_revoke', 'protected_tags_unprotect', 'artifacts_delete_all', 'apply']) expect(byName.get(name), name).toMatchObject({ readOnly: false, destructive: true });
    for (const name of ['badges_update', 'push_rule_set']) expect(byName.get(name), name).toMatchObject({ readOnly: false, destructive: false, idempotent: true });
    for (const name of ['projects_get', 'hooks_audit', 'plan']) expect(byName.get(name), name).toMatchObject({ readOnly: true, destructive: false });
    // Nothing that reads local files, stdin or writes local files is an input (but the desired-state file).
    for (const tool of tools) {
      for (const name of Object.keys(tool.inputSchema.properties ?? {})) expect(name, tool.name).not.toMatch(/stdin|^output_file$|^from_dir$|^failed_to$|^yes$|^fix$/);
    }
    expect(byName.get('plan')!.inputSchema.properties).toHaveProperty('file');
    expect(byName.get('apply')!.inputSchema).toMatchObject({ required: ['digest'], properties: { digest: { type: 'string' } } });
  });

  it('types options from their parsers: integers with bounds, choices as enums, repeatable options as arrays', async () => {
    const tools = await buildCatalogue(manifest, { toolsets: Object.keys(TOOLSETS), allowWrite: ['tokens'] });
    const create = tools.find((tool) => tool.name === 'tokens_create')!;
    const formats = tools.flatMap((tool) => Object.values(tool.inputSchema.properties ?? {}).map((schema) => schema.format ?? schema.items?.format));
    expect(formats).toContain('date-time');
    expect(create.inputSchema.properties!.access_level).toMatchObject({ type: 'string', enum: expect.arrayContaining(['developer', 'maintainer']) });
    const list = tools.find((tool) => tool.name === 'users_list')!;
    expect(list.inputSchema.properties!.per_page).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
  });

  it('turns a call into the command line the CLI would run; a cursor it did not give out is refused', async () => {
    const tools = await buildCatalogue(manifest, { toolsets: Object.keys(TOOLSETS) });
    const list = tools.find((tool) => tool.name === 'projects_list')!;
    expect(commandLine(list, { search: 'api', per_page: 5, fields: ['id', 'name'] })).toEqual(['projects', 'list', '--search=api', '--per-page=5', '--page=1', '--fields=id,name']);
    expect(() => commandLine(list, { cursor: 'bm90LWEtY3Vyc29y' })).toThrow(/cursor is not one this server gave out/);
    const api = tools.find((tool) => tool.name === 'api')!;
    expect(commandLine(api, { path: '/user' })).toEqual(['api', '/user', '--method=GET']);
  });

  it('a list page past the first keeps its total and the cursor of the page after it', async () => {
    const server = new ToolServer({ tools: await buildCatalogue(manifest, { toolsets: Object.keys(TOOLSETS) }), invoke: (argv, streams) => main(argv, { ...streams, env: sandbox.env() }) });
    for (const page of [1, 2]) {
      const result = await server.call('users_list', { per_page: 1, ...(page > 1 ? { cursor: cursorOf(page) } : {}) });
      expect(result.structuredContent, `page ${page}`).toMatchObject({ count: 1, total: expect.any(Number), next_cursor: cursorOf(page + 1) });
    }
  });

  it('every command is a tool or left out on purpose', () => {
    const grouped = new Set(Object.values(TOOLSETS).flatMap((set) => set.groups));
    const outside = manifest.map((entry) => entry.path.split(' ')[0]).filter((group) => !grouped.has(group));
    expect([...new Set(outside)].sort()).toEqual(['auth', 'completion', 'doctor', 'mcp', 'profile', 'sandbox']);
  });
});
