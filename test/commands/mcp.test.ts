import { Ajv } from 'ajv';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildCatalogue, cursorOf, toolValues, DEFAULT_TOOLSETS, TOOLSETS } from '../../src/commands/mcp/catalogue.js';
import { ToolServer } from '../../src/commands/mcp/server.js';
import { commands, manifest } from '../../src/commands/manifest.js';
import { execute } from '../../src/main.js';
import { runBin, tempDir, useTestSandbox } from '../helpers/cli.js';

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
    expect(byName.get('apply')!.inputSchema).toMatchObject({ required: ['digest'], properties: { digest: { type: 'string' }, confirm: { type: 'boolean' } } });
    expect(byName.get('apply')!.description).toMatch(/with confirm: true once the person you act for has reviewed it/);
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

  it('turns a call into values by option and argument, never words; a cursor it did not give out is refused', async () => {
    const tools = await buildCatalogue(manifest, { toolsets: Object.keys(TOOLSETS) });
    const list = tools.find((tool) => tool.name === 'projects_list')!;
    expect(toolValues(list, { search: 'api', per_page: 5, fields: ['id', 'name'] })).toEqual({
      values: [{ flag: '--search', value: 'api' }, { flag: '--per-page', value: '5' }, { flag: '--page', value: '1' }],
      args: [],
    });
    expect(() => toolValues(list, { cursor: 'bm90LWEtY3Vyc29y' })).toThrow(/cursor is not one this server gave out/);
    const api = tools.find((tool) => tool.name === 'api')!;
    expect(toolValues(api, { path: '/user' })).toEqual({ values: [{ flag: '--method', value: 'GET' }], args: ['/user'] });
    const tree = tools.find((tool) => tool.name === 'repo_tree')!;
    expect(toolValues(tree, { project: 'acme/api', path: '--server=http://example.invalid' })).toEqual({
      values: [{ flag: '--project', value: 'acme/api' }, { flag: '--per-page', value: '20' }, { flag: '--page', value: '1' }],
      args: ['--server=http://example.invalid'],
    });
  });

  it('a list page past the first keeps its total and the cursor of the page after it', async () => {
    const server = new ToolServer({ tools: await buildCatalogue(manifest, { toolsets: Object.keys(TOOLSETS) }), commands, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) });
    for (const page of [1, 2]) {
      const result = await server.call('users_list', { per_page: 1, ...(page > 1 ? { cursor: cursorOf(page) } : {}) });
      expect(result.structuredContent, `page ${page}`).toMatchObject({ count: 1, total: expect.any(Number), next_cursor: cursorOf(page + 1) });
    }
  });

  it('offers no input that names a file, folder, command, environment variable or stdin of the server\'s machine', async () => {
    const all = Object.keys(TOOLSETS);
    const tools = await buildCatalogue(manifest, { toolsets: all, allowWrite: all });
    for (const tool of tools.filter((candidate) => candidate.path !== 'api')) {
      for (const input of tool.inputs) {
        const local = input.kind === 'argument' ? tool.def.args?.[input.index] : tool.def.options?.find((option) => option.flags.includes(input.flag));
        const marked = typeof local === 'object' && local.localFile === true;
        // The desired-state file of validate and plan is the one local file a tool takes, checked by the server.
        expect(marked && !(input.kind === 'option' && input.desiredFile), `${tool.name}.${input.name}`).toBe(false);
      }
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    // Made of local files, or unable to work without one: no tools at all.
    for (const name of ['snippets_create', 'files_create', 'files_put', 'secure_files_upload', 'variables_import', 'license_add', 'hooks_url_var_set', 'hooks_header_set']) expect(byName.has(name), name).toBe(false);
    const inputsOf = (name: string) => Object.keys(byName.get(name)!.inputSchema.properties ?? {});
    expect(inputsOf('hooks_create')).not.toEqual(expect.arrayContaining(['header']));
    for (const [name, locals] of Object.entries({ hooks_create: ['header', 'url_var', 'generate_token', 'template_file'], commits_create: ['add', 'from_dir'], snippets_update: ['add', 'update', 'sync'], deploy_tokens_create: ['output_dir', 'output_file'], repo_blob: ['output_file', 'resume'], tokens_rotate: ['output_file', 'save_to'] })) {
      for (const local of locals) expect(inputsOf(name), `${name}.${local}`).not.toContain(local);
    }
    expect(inputsOf('settings_set')).toContain('pairs');
  });

  it('refuses a value that names a local file where an input takes either (KEY=@FILE), before anything is sent', async () => {
    const server = new ToolServer({ tools: await buildCatalogue(manifest, { toolsets: ['admin'], allowWrite: ['admin'] }), commands, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) });
    sandbox.clearRequests();
    const refused = await server.call('settings_set', { pairs: ['after_sign_up_text=@/etc/hostname'] });
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toMatch(/names a file of the machine the server runs on[\s\S]*exit 2/);
    expect(sandbox.requests()).toEqual([]);
  });

  it('a tool that deletes or changes what the command line asks about asks first: without confirm: true it is refused; with it, it runs', async () => {
    const all = Object.keys(TOOLSETS);
    const tools = await buildCatalogue(manifest, { toolsets: all, allowWrite: all });
    const server = new ToolServer({ tools, commands, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) });
    for (const tool of tools.filter((item) => !item.readOnly)) expect(tool.inputSchema.properties, tool.name).toHaveProperty('confirm');
    sandbox.clearRequests();
    for (const [name, args] of [['branches_delete', { project: 'acme/api', name: 'feature' }], ['api', { path: '/projects/acme%2Fweb', method: 'DELETE' }], ['graphql', { query: 'mutation { runnerDelete(input: {id: "gid://gitlab/Ci::Runner/1"}) { errors } }' }], ['projects_delete', { project: 'acme/web' }]] as const) {
      const refused = await server.call(name, args);
      expect(refused.isError, name).toBe(true);
      expect(refused.content[0].text, name).toMatch(/^error: confirmation needed: .*\?\nhint: tell the person you act for what it asks and, once they agree, call it again with confirm: true\n\(exit 2: confirmation needed: nothing was changed\)$/);
    }
    // What the questions needed was read; nothing was changed.
    expect(sandbox.requests().filter((request) => request.method !== 'GET')).toEqual([]);
    // A write the command line asks about first is refused as the command refuses it without a terminal and --yes.
    const unasked = await server.call('users_block', { user: 'priya' });
    expect(unasked.isError).toBe(true);
    expect(unasked.content[0].text).toMatch(/^error: confirmation needed: Block priya .*\nhint: tell the person you act for what it asks and, once they agree, call it again with confirm: true/);
    expect((await sandbox.run(['users', 'get', 'priya', '--jq', '.state'])).stdout.trim()).toBe('active');
    expect((await server.call('users_block', { user: 'priya', confirm: true })).isError).toBeFalsy();
    expect((await sandbox.run(['users', 'get', 'priya', '--jq', '.state'])).stdout.trim()).toBe('blocked');
    // A write the command line does not ask about, and a read of the api tool, need no confirmation.
    expect((await server.call('members_add', { project: 'acme/api', users: ['bob'], access_level: 'developer' })).isError).toBeFalsy();
    expect((await server.call('api', { path: '/projects/acme%2Fapi' })).isError).toBeFalsy();
    const deleted = await server.call('branches_delete', { project: 'acme/api', name: 'feature', confirm: true });
    expect(deleted.isError, deleted.content[0].text).toBeFalsy();
    expect((await sandbox.run(['branches', 'get', 'feature', '--project', 'acme/api'])).code).toBe(5);
  });

  it('a webhook URL\'s password and token, a chat integration\'s webhook and settings\' keys never reach the agent: not in a result, a notice or an error', async () => {
    const tools = await buildCatalogue(manifest, { toolsets: ['hooks', 'api'], allowWrite: ['hooks'] });
    const server = new ToolServer({ tools, commands, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) });
    const created = await sandbox.run(['api', '-X', 'POST', '/projects/acme%2Fweb/hooks', '-f', 'url=https://alice:hunter2@hooks.example.com/x?token=abc123', '--jq', '.id']);
    const id = created.stdout.trim();
    const said = [
      await server.call('hooks_get', { project: 'acme/web', id }),
      await server.call('hooks_list', { project: 'acme/web', fields: ['url'] }),
      await server.call('api', { path: `/projects/acme%2Fweb/hooks/${id}` }),
      await server.call('hooks_delete', { project: 'acme/web', id, confirm: true }),
      await server.call('hooks_get', { project: 'acme/web', id }),
    ].map((result) => result.content[0].text);
    // A chat integration's incoming-webhook URL is its credential.
    expect((await sandbox.run(['integrations', 'set', 'slack', '--group', 'acme', '--secret-stdin', 'webhook'], { input: 'https://hooks.slack.com/services/T0/B0/abc123\n' })).code).toBe(0);
    const integrations = new ToolServer({ tools: await buildCatalogue(manifest, { toolsets: ['settings', 'desired-state'] }), commands, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) });
    said.push(...[await integrations.call('integrations_get', { group: 'acme', slug: 'slack' }), await integrations.call('export', { group: 'acme' })].map((result) => result.content[0].text));
    expect(said.at(-1)).toContain('"slack":{');
    // Application settings' secrets, as a real instance answers them.
    sandbox.fault({ method: 'GET', path: '^/application/settings$', status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ asset_proxy_secret_key: 'abc123', mailgun_signing_key: 'abc123', eks_secret_access_key: 'abc123', akismet_api_key: 'abc123', sentry_dsn: 'https://abc123@sentry.example.com/1', signup_enabled: true }) });
    said.push((await server.call('api', { path: '/application/settings' })).content[0].text);
    expect(said.at(-1)).toContain('"signup_enabled":true');
    expect(said[0]).toContain('hooks.example.com');
    expect(said[3]).toMatch(/Deleted webhook/);
    for (const text of said) expect(text).not.toMatch(/hunter2|abc123/);
  });

  it('mcp serve answers a line that is no JSON-RPC message with its error, instead of leaving the client waiting', async () => {
    const lines = ['{not json', '[]', '{"jsonrpc":"2.0","id":2}', '{"jsonrpc":"2.0","id":"x","method":5}', '{"jsonrpc":"1.0","id":3,"method":"ping"}'];
    // The built command (npm run build), on a stdin that ends after these lines.
    const served = await runBin(['mcp', 'serve'], { env: sandbox.env(), input: `${lines.join('\n')}\n` });
    expect(served.code, served.stderr).toBe(0);
    const answers = served.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: unknown; error: { code: number } });
    expect(answers.map(({ id, error }) => [id, error.code])).toEqual([[null, -32700], [null, -32600], [2, -32600], ['x', -32600], [3, -32600]]);
  });

  it('says what reveal_token does on each tool that hands over a new token', async () => {
    const tools = await buildCatalogue(manifest, { toolsets: Object.keys(TOOLSETS), allowWrite: Object.keys(TOOLSETS) });
    const reveal = (name: string) => tools.find((tool) => tool.name === name)!.inputSchema.properties!.reveal_token.description;
    expect(reveal('runners_reset_token')).toMatch(/^must be true/);
    expect(reveal('tokens_rotate')).toMatch(/save_to_profile/);
    for (const name of ['tokens_create', 'deploy_tokens_create', 'runners_reset_token']) expect(reveal(name), name).not.toMatch(/rotate/);
  });

  it('the api tool says when a list it returns is one full page, so that an agent does not take it for all', async () => {
    const server = new ToolServer({ tools: await buildCatalogue(manifest), commands, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) });
    const page = await server.call('api', { path: '/users?per_page=2' });
    expect(page.structuredContent).toMatchObject({ notice: expect.stringMatching(/^this is one page of 2 records and more may follow: pass paginate: true, or limit/) });
    for (const args of [{ path: '/users?per_page=100' }, { path: '/users', limit: 2 }, { path: '/projects/acme%2Fapi' }]) expect((await server.call('api', args)).structuredContent, args.path).not.toHaveProperty('notice');
  });

  it('offers no show_values, which never shows a masked value to an agent, nor says it in a description', async () => {
    const tools = await buildCatalogue(manifest, { toolsets: ['ci'] });
    for (const name of ['variables_list', 'variables_get']) {
      const tool = tools.find((item) => item.name === name)!;
      expect(Object.keys(tool.inputSchema.properties!), name).not.toContain('show_values');
      expect(tool.description, name).not.toMatch(/show_values|at a terminal/);
    }
  });

  it('mcp serve passes on a message whose character arrives split across two chunks of stdin, whole', async () => {
    const { answeringMalformed } = await import('../../src/commands/mcp/stdio.js');
    const { PassThrough } = await import('node:stream');
    const line = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"notes_create","arguments":{"body":"café ✓"}}}\n';
    const bytes = Buffer.from(line);
    const cut = bytes.indexOf(Buffer.from('é')) + 1;
    const stdin = new PassThrough();
    const answers = new PassThrough();
    const passed = answeringMalformed(stdin, answers);
    const read: string[] = [];
    passed.on('data', (chunk: Buffer | string) => read.push(chunk.toString()));
    stdin.write(bytes.subarray(0, cut));
    stdin.end(bytes.subarray(cut));
    await new Promise((resolve) => passed.on('end', resolve));
    expect(read.join('')).toBe(line);
    expect(answers.read()).toBeNull();
  });

  it('marks every option and argument that reads or writes local files, so that no new one becomes a tool input by mistake', async () => {
    const looksLocal = /-(file|dir|stdin|env)(?=[ ,]|$)|<(file|dir)>|\[file\]|\[files\.\.\.\]|<plans\.\.\.>/;
    const unmarked: string[] = [];
    for (const entry of manifest) {
      const def = (await entry.load()).default;
      const specs = [...(def.options ?? []).map((option) => ({ text: option.flags, local: option.localFile })), ...(def.args ?? []).map((arg) => (typeof arg === 'string' ? { text: arg, local: undefined } : { text: arg.spec, local: arg.localFile }))];
      for (const spec of specs) if (looksLocal.test(spec.text) && spec.local === undefined) unmarked.push(`${entry.path} ${spec.text}`);
    }
    // Marked false: the name says file, but it is one of the instance. Commands that are no tools need no mark; tokens
    // rotate's are left out by the catalogue until its definition has them.
    expect(unmarked.filter((item) => !/^(auth|sandbox|tokens (rotate|recover)|tokens identify|profile|completion|doctor) /.test(item))).toEqual([]);
  });

  it('takes each tool\'s class from its command\'s definition: every tool of every toolset, listed', async () => {
    const all = Object.keys(TOOLSETS);
    const tools = await buildCatalogue(manifest, { toolsets: all, allowWrite: all });
    const classOf = (tool: { readOnly: boolean; destructive: boolean }) => (tool.readOnly ? 'read' : tool.destructive ? 'destructive' : 'write');
    const classes: Record<string, string[]> = { read: [], write: [], destructive: [] };
    for (const tool of tools) classes[classOf(tool)].push(tool.name);
    for (const names of Object.values(classes)) names.sort();
    expect(classes).toEqual({
      read: [
        'access_report', 'approval_rules_get', 'approval_rules_list', 'approvals_config_get', 'approvals_show', 'approvals_state',
        'audit_events_get', 'audit_events_list', 'badges_get', 'badges_list', 'badges_preview', 'branches_get', 'branches_list',
        'commits_get', 'commits_list', 'commits_refs', 'commits_statuses', 'deploy_keys_get',
        'deploy_keys_instance', 'deploy_keys_list', 'deploy_tokens_get', 'deploy_tokens_list', 'draft_notes_get', 'draft_notes_list',
        'experiments_list', 'export', 'files_blame', 'files_get', 'files_info', 'freeze_periods_get',
        'freeze_periods_list', 'group_badges_get', 'group_badges_list', 'groups_get', 'groups_list', 'hooks_audit',
        'hooks_events', 'hooks_get', 'hooks_list', 'integrations_get', 'integrations_list', 'keys_find', 'keys_get',
        'license_get', 'license_list', 'members_get', 'members_list', 'merge_trains_get', 'merge_trains_list',
        'mirror_pull_get', 'notes_get', 'notes_list', 'plan', 'plan_limits_get', 'projects_get', 'projects_list',
        'protected_branches_get', 'protected_branches_list', 'protected_tags_get', 'protected_tags_list',
        'push_rule_get', 'repo_blob', 'repo_compare', 'repo_contributors', 'repo_merge_base', 'repo_tree',
        'runners_audit', 'runners_get', 'runners_jobs', 'runners_list', 'secure_files_get', 'secure_files_list', 'service_accounts_list',
        'settings_get', 'snippets_get', 'snippets_list', 'storage_move_get', 'storage_move_list', 'tags_get',
        'tags_list', 'tokens_audit', 'tokens_get', 'tokens_list', 'users_get', 'users_list', 'validate',
        'variables_export', 'variables_get', 'variables_list',
      ],
      write: [
        'approval_rules_create', 'approval_rules_update', 'approvals_config_set', 'artifacts_keep', 'badges_create',
        'badges_update', 'branches_create', 'commits_cherry_pick', 'commits_create', 'commits_revert',
        'commits_set_status', 'deploy_keys_create', 'deploy_keys_enable', 'deploy_keys_update',
        'deploy_tokens_create', 'draft_notes_create', 'draft_notes_publish', 'draft_notes_publish_all',
        'draft_notes_update', 'freeze_periods_create', 'freeze_periods_update', 'group_badges_create',
        'group_badges_update', 'groups_create', 'groups_update', 'hooks_create', 'hooks_resend', 'hooks_test',
        'hooks_update', 'integrations_set', 'license_refresh_billable', 'members_add', 'members_update',
        'merge_trains_add', 'mirror_pull_set', 'mirror_pull_sync', 'notes_create', 'notes_update', 'plan_limits_set',
        'projects_archive', 'projects_create', 'projects_unarchive', 'projects_update', 'protected_branches_protect',
        'protected_branches_update', 'protected_tags_protect', 'push_rule_set', 'runners_assign', 'runners_pause', 'runners_resume',
        'runners_update', 'service_accounts_create', 'service_accounts_update', 'settings_set', 'snippets_update', 'storage_move_schedule', 'submodules_update',
        'tags_create', 'tokens_create', 'users_activate', 'users_approve', 'users_ban', 'users_block', 'users_create',
        'users_deactivate', 'users_unban', 'users_unblock', 'variables_set',
      ],
      destructive: [
        'api', 'apply', 'approval_rules_delete', 'approvals_reset', 'approvals_unapprove', 'artifacts_delete',
        'artifacts_delete_all', 'badges_delete', 'branches_delete', 'branches_delete_merged', 'deploy_keys_delete',
        'deploy_tokens_revoke', 'draft_notes_delete', 'files_delete', 'freeze_periods_delete', 'graphql', 'group_badges_delete',
        'groups_delete', 'hooks_delete', 'hooks_header_delete', 'hooks_url_var_delete', 'integrations_disable',
        'license_delete', 'members_remove', 'mirror_pull_disable', 'notes_delete', 'projects_delete',
        'projects_transfer', 'protected_branches_unprotect', 'protected_tags_unprotect', 'push_rule_delete',
        'runners_delete', 'runners_prune', 'runners_reset_token', 'runners_unassign', 'secure_files_delete', 'service_accounts_delete', 'snippets_delete', 'tags_delete',
        'tokens_revoke', 'tokens_rotate', 'users_delete', 'users_offboard', 'users_reject', 'variables_delete',
      ],
    });
    // The read-only api tool (GET only) is a read; with --allow-write api it may delete.
    expect((await buildCatalogue(manifest)).find((tool) => tool.name === 'api')).toMatchObject({ readOnly: true, destructive: false });
    // The user lifecycle and offboarding change accounts: listed only where the admin toolset may write.
    const userTools = async (allowWrite: string[]) => (await buildCatalogue(manifest, { toolsets: ['admin'], allowWrite })).map((tool) => tool.name).filter((name) => name.startsWith('users_')).sort();
    expect(await userTools([])).toEqual(['users_get', 'users_list']);
    expect(await userTools(['admin'])).toContain('users_offboard');
  });

  it('the MCP guide lists the toolsets there are, and the default ones, with the number of tools listed by default', async () => {
    const section = readFileSync(fileURLToPath(new URL('../../docs/mcp.md', import.meta.url)), 'utf8');
    const rows = [...section.matchAll(/^\| `([\w-]+)` \| (.+?) \| (default)? ?\|$/gm)].map(([, name, description, listed]) => ({ name, description, listed: Boolean(listed) }));
    expect(rows).toEqual(Object.entries(TOOLSETS).map(([name, set]) => ({ name, description: set.description, listed: DEFAULT_TOOLSETS.includes(name) })));
    expect(rows).toHaveLength(13);
    expect(section).toContain(`(${(await buildCatalogue(manifest)).length} tools; many clients cap at about 40)`);
  });

  it('every command is a tool or left out on purpose', () => {
    const grouped = new Set(Object.values(TOOLSETS).flatMap((set) => set.groups));
    const outside = manifest.map((entry) => entry.path.split(' ')[0]).filter((group) => !grouped.has(group));
    expect([...new Set(outside)].sort()).toEqual(['auth', 'completion', 'doctor', 'mcp', 'profile', 'sandbox', 'version']);
  });
});

describe('the desired-state files validate and plan may read', () => {
  /** A server whose desired-state tools read below a folder of their own, with the files a hostile call names. */
  const setUp = async () => {
    const root = tempDir('forgectl-mcp-root-');
    writeFileSync(join(root, 'desired.yaml'), 'version: 1\nprojects:\n  acme/web:\n    push_rule: {max_file_size: 40}\n');
    execFileSync('mkfifo', [join(root, 'fifo.yaml')]);
    writeFileSync(join(root, 'big.yaml'), '');
    truncateSync(join(root, 'big.yaml'), 9 * 1024 * 1024);
    writeFileSync(join(root, 'config.json'), JSON.stringify({ current: 'prod', profiles: { prod: { url: 'https://git.example.com', token: 'glpat-not-for-agents' } } }));
    writeFileSync(join(root, 'notes.txt'), 'version: 1\n');
    symlinkSync('/dev/zero', join(root, 'zero.yaml'));
    const outside = tempDir('forgectl-mcp-outside-');
    writeFileSync(join(outside, 'desired.yaml'), 'version: 1\n');
    mkdirSync(join(root, 'sub'));
    const tools = await buildCatalogue(manifest, { toolsets: ['desired-state'] });
    const server = new ToolServer({ tools, commands, root, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) });
    const call = async (name: string, file: string) => {
      const deadline = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 5000).unref());
      const result = await Promise.race([server.call(name, { file }), deadline]);
      if (result === 'timeout') throw new Error(`${name} ${file} did not return`);
      return { ...result, text: result.content.map((item) => item.text).join('\n') };
    };
    return { root, outside, call };
  };

  it('reads a desired-state file below the server\'s folder; refuses other folders, other names, FIFOs, devices and large files before reading them', async () => {
    const { root, outside, call } = await setUp();
    expect((await call('validate', 'desired.yaml')).isError).toBeFalsy();
    expect((await call('plan', join(root, 'desired.yaml'))).structuredContent).toMatchObject({ exit_code: 9 });
    for (const [file, problem] of [
      ['fifo.yaml', /fifo\.yaml: it is not a regular file/],
      ['zero.yaml', /zero\.yaml is outside/],
      ['/dev/zero', /\/dev\/zero is outside/],
      ['big.yaml', /9,437,184 bytes, more than the 8,388,608 allowed/],
      ['notes.txt', /notes\.txt is not a desired-state file: its name does not end in \.yaml, \.yml, \.json/],
      [join(outside, 'desired.yaml'), /is outside .*forgectl-mcp-root-/],
      ['../' + outside.split('/').at(-1) + '/desired.yaml', /is outside/],
      ['sub', /not a desired-state file|not a regular file/],
      ['-', /a tool reads no stdin/],
      ['missing.yaml', /cannot read missing\.yaml: no such file/],
      // Whether a file outside exists is not told: a missing one is as outside as one that is there.
      [join(outside, 'missing.yaml'), /is outside .*forgectl-mcp-root-/],
      ['../' + outside.split('/').at(-1) + '/missing.yaml', /is outside/],
    ] as Array<[string, RegExp]>) {
      for (const tool of ['validate', 'plan']) {
        const refused = await call(tool, file);
        expect(refused.isError, `${tool} ${file}`).toBe(true);
        expect(refused.text, `${tool} ${file}`).toMatch(problem);
        expect(refused.text, `${tool} ${file}`).toMatch(/exit 2: bad input/);
      }
    }
  });

  it('never repeats the keys of a file that is not a desired-state file', async () => {
    const { call } = await setUp();
    for (const tool of ['validate', 'plan']) {
      const refused = await call(tool, 'config.json');
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/config\.json is not a desired-state file/);
      expect(refused.text).not.toMatch(/profiles|current|prod|glpat/);
    }
  });
});

/** Whether a sentence says a summary again: it begins with the summary's verb (`Deletes` after `Delete`) and has most of its words. */
function restates(sentence: string, summary: string): boolean {
  const verb = /^[A-Z][a-z]+/.exec(summary)?.[0];
  const word = /^[A-Z][a-z]+/.exec(sentence)?.[0];
  if (!verb || !word || ![`${verb}s`, `${verb}es`, `${verb.replace(/y$/, 'ie')}s`].includes(word)) return false;
  const words = (text: string) => new Set((text.toLowerCase().match(/[a-z]{3,}/g) ?? []).map((w) => w.replace(/ies$/, 'y').replace(/e?s$/, '')));
  const theirs = words(sentence);
  const own = [...words(summary)];
  return own.filter((w) => theirs.has(w)).length / own.length >= 0.6;
}

describe('what an agent reads: descriptions, resources, plans and problems', () => {
  it('describes every input for what it is, in the words of tools: no flags, commands or stdin, no repetition', async () => {
    const all = Object.keys(TOOLSETS);
    const tools = [...(await buildCatalogue(manifest, { toolsets: all, allowWrite: all })), ...(await buildCatalogue(manifest))];
    const groups = [...new Set(manifest.map((entry) => entry.path.split(' ')[0]))].join('|');
    const cliWords = new RegExp(`(^|[\\s(])--?[a-z]|\\bforgectl (${groups})\\b|\\bstdin\\b`);
    for (const tool of tools) {
      expect(tool.description, tool.name).not.toMatch(cliWords);
      const [summary, ...rest] = tool.description.split('. ');
      expect(rest[0] ?? '', `${tool.name} repeats its summary`).not.toBe(summary);
      expect(restates(rest[0] ?? '', summary), `${tool.name} says its summary twice: ${tool.description}`).toBe(false);
      for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect(schema.description, `${tool.name}.${name}`).toBeTruthy();
        expect(schema.description!.replace(/ \(one or more\)$/, ''), `${tool.name}.${name}`).not.toBe(name.replace(/_/g, ' '));
        expect(schema.description, `${tool.name}.${name}`).not.toMatch(cliWords);
      }
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('commits_refs')!.description).toBe('List the branches and tags that contain a commit');
    // A first sentence that only restates the summary with an aside: the aside joins the summary, the rest goes.
    expect(byName.get('artifacts_keep')!.description).toBe('Keep the artifacts of a job from expiring (their expiry date is removed). Needs the Developer role.');
    expect(byName.get('deploy_keys_instance')!.description).toBe('List every deploy key of the instance (administrators), with the projects it is enabled on. Administrators only.');
    // A first sentence that says the summary again with more takes its place.
    expect(byName.get('deploy_keys_enable')!.description).toBe('Enable a deploy key of another project (or an instance deploy key) on this one, read-only. Needs the Maintainer role.');
    expect(byName.get('storage_move_get')!.description).toBe('Show one repository storage move and its state (initial, scheduled, started, replicated, finished, failed, cleanup failed)');
    expect(byName.get('variables_delete')!.description).toMatch(/^Delete a CI\/CD variable after naming it \(key, scope, type, protection, size: never its value\) and asking\. When its key/);
    expect(byName.get('push_rule_set')!.description).toMatch(/^Create the push rule, or update the fields given when the project has one\. /);
    expect(byName.get('repo_compare')!.inputSchema.properties).toMatchObject({ from: { description: 'the base: a branch, tag or commit SHA' } });
    expect(byName.get('plan')!.inputSchema.properties!.file.description).toMatch(/^the desired-state file: a \.yaml, \.yml or \.json file below the folder/);
    expect(byName.get('approval_rules_list')!.description).toContain('Give project or mr.');
    // Typed as the option takes it: a value with an optional part is text, not text-or-boolean.
    for (const name of ['plan', 'export', 'tokens_audit']) expect(byName.get(name)!.inputSchema.properties!.rate_limit, name).toMatchObject({ type: 'string' });
    expect(Object.keys(byName.get('repo_blob')!.inputSchema.properties!)).toEqual(['sha', 'project', 'fields']);
  });

  /** An MCP client talking to a ToolServer in this process. */
  const connect = async (server: ToolServer) => {
    const { Client } = await import('@modelcontextprotocol/client');
    const { InMemoryTransport } = await import('@modelcontextprotocol/server');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.create().connect(serverSide);
    const client = new Client({ name: 'forgectl-test', version: '1' });
    await client.connect(clientSide);
    return client;
  };

  it('notices and hints name the tools\' inputs and tools, never a flag an agent cannot pass (over the protocol)', async () => {
    const serve = async (toolsets: string[]) => {
      const tools = await buildCatalogue(manifest, { toolsets, allowWrite: toolsets });
      return connect(new ToolServer({ tools, commands, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) }));
    };
    const said = (result: unknown) => {
      const { content, structuredContent } = result as { content: Array<{ text: string }>; structuredContent?: { notice?: string } };
      return structuredContent ? (structuredContent.notice ?? '') : content.map((item) => item.text).join('\n');
    };
    const flags = /(^|\s)--?[a-z]/i;
    const client = await serve(['projects', 'access', 'admin']);
    try {
      const page = said(await client.callTool({ name: 'projects_list', arguments: { per_page: 1 } }));
      expect(page).toMatch(/^showing 1 of \d+ — pass next_cursor as cursor for the next page$/);
      const owner = said(await client.callTool({ name: 'members_remove', arguments: { users: ['root'], group: 'acme', confirm: true } }));
      expect(owner).toContain('hint: make another member an owner first: members_update USER group: acme access_level: owner\n');
      const nobody = said(await client.callTool({ name: 'members_add', arguments: { users: ['nosuchuser'], project: 'acme/api', access_level: 'guest' } }));
      expect(nobody).toContain('hint: nothing was changed; check the names with: users_list search: NAME\n');
      for (const text of [page, owner, nobody]) expect(text).not.toMatch(flags);
    } finally {
      await client.close();
    }
    // A 404 of one record names the list tool of the same place, with its inputs.
    const hooks = await serve(['hooks']);
    try {
      const missing = said(await hooks.callTool({ name: 'hooks_get', arguments: { id: '77', project: 'acme/api' } }));
      expect(missing).toContain('hint: hooks_list project: acme/api lists its webhooks\n');
      expect(missing).not.toMatch(flags);
    } finally {
      await hooks.close();
    }
    // Without the users tool, the hint that names it is nothing the agent can do: left out.
    const narrow = await serve(['access']);
    try {
      const nobody = said(await narrow.callTool({ name: 'members_add', arguments: { users: ['nosuchuser'], project: 'acme/api', access_level: 'guest' } }));
      expect(nobody).toBe('error: no user named "nosuchuser"\n(exit 5: not found (404))');
    } finally {
      await narrow.close();
    }
    const graphql = await connect(new ToolServer({ tools: await buildCatalogue(manifest, { toolsets: ['graphql'] }), commands, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) }));
    try {
      const refused = said(await graphql.callTool({ name: 'graphql', arguments: { query: 'mutation { bulkRunnerDelete(input: {ids: []}) { errors } }' } }));
      expect(refused).toContain('hint: a mutation needs writes allowed for the graphql toolset: ask the person who runs this server to allow them');
      expect(refused).not.toMatch(flags);
    } finally {
      await graphql.close();
    }
  });

  it('an unknown resource is "Resource not found" with its URI; forgectl://profile describes the connection from FORGECTL_URL and FORGECTL_TOKEN without the token', async () => {
    const { resolveConnection } = await import('../../src/config/resolve.js');
    const env = sandbox.env();
    const server = new ToolServer({ tools: await buildCatalogue(manifest), commands, execute: (invocation, streams) => execute(invocation, { ...streams, env }), connection: () => resolveConnection({}, env, { profiles: {} }) });
    const client = await connect(server);
    try {
      const missing = await client.readResource({ uri: 'forgectl://nope' }).catch((error: unknown) => error as { code: number; message: string; data: unknown });
      expect(missing).toMatchObject({ message: 'Resource not found', data: { uri: 'forgectl://nope' } });
      expect([-32002, -32602]).toContain((missing as { code: number }).code);
      const profile = await client.readResource({ uri: 'forgectl://profile' });
      const text = (profile.contents[0] as { text: string }).text;
      expect(JSON.parse(text)).toMatchObject({ url: sandbox.rootUrl, profile: null, token_source: 'environment', token_type: 'private' });
      expect(text).not.toContain(sandbox.adminToken);
      const user = await client.readResource({ uri: 'forgectl://user' });
      expect(JSON.parse((user.contents[0] as { text: string }).text)).toMatchObject({ username: 'root' });
    } finally {
      await client.close();
    }
  });

  it('a call that ends while apply runs leaves apply\'s plan file in place, and the same plan is not applied twice at once', async () => {
    const root = tempDir('forgectl-mcp-apply-');
    writeFileSync(join(root, 'desired.yaml'), 'version: 1\nprojects:\n  acme/web:\n    push_rule: {max_file_size: 66}\n');
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let planFileThere: boolean | undefined;
    let planFile = '';
    let applies = 0;
    const tools = await buildCatalogue(manifest, { toolsets: ['desired-state'], allowWrite: ['desired-state'] });
    const server = new ToolServer({
      tools,
      commands,
      root,
      execute: async (invocation, streams) => {
        if (invocation.path !== 'apply') return execute(invocation, { ...streams, env: sandbox.env() });
        if (++applies > 1) return 0;
        await gate;
        planFile = String(invocation.opts.file);
        planFileThere = existsSync(planFile);
        return 0;
      },
    });
    const digest = (await server.call('plan', { file: 'desired.yaml' })).structuredContent!.digest as string;
    const applying = server.call('apply', { digest, confirm: true });
    await new Promise((resolve) => setImmediate(resolve));
    expect((await server.call('validate', { schema: true })).isError).toBeFalsy();
    // The same plan is not carried out twice at once.
    const twice = await server.call('apply', { digest, confirm: true });
    expect(twice.content[0].text).toMatch(/^this plan is being applied by another call\nhint: wait for that call's result/);
    expect(applies).toBe(1);
    release();
    expect((await applying).isError).toBeFalsy();
    expect(planFileThere).toBe(true);
    expect((await server.call('apply', { digest, confirm: true })).content[0].text).toMatch(/^this plan was already applied/);
    // Once apply is done, its plan file is gone.
    expect(existsSync(planFile)).toBe(false);
  });

  it('validate returns its problems line by line; a stale plan is made again with the plan tool; a plan is applied once', async () => {
    const root = tempDir('forgectl-mcp-plans-');
    writeFileSync(join(root, 'bad.yaml'), 'version: 1\nprojects:\n  acme/web:\n    push_rule: {max_file_size: -5}\n    badgez: []\n');
    writeFileSync(join(root, 'desired.yaml'), 'version: 1\nprojects:\n  acme/web:\n    push_rule: {max_file_size: 61}\n');
    const tools = await buildCatalogue(manifest, { toolsets: ['desired-state'], allowWrite: ['desired-state'] });
    const server = new ToolServer({ tools, commands, root, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) });
    const text = (result: { content: Array<{ text: string }> }) => result.content.map((item) => item.text).join('\n');
    const invalid = await server.call('validate', { file: 'bad.yaml' });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toMatch(/bad\.yaml:4:\d+: .*max_file_size.*\n.*bad\.yaml:5:5: .*badgez.*unknown key/);

    const plan = async () => (await server.call('plan', { file: 'desired.yaml' })).structuredContent!.digest as string;
    const first = await plan();
    expect((await server.call('apply', { digest: first, confirm: true })).isError).toBeFalsy();
    const again = await server.call('apply', { digest: first, confirm: true });
    expect(text(again)).toMatch(/this plan was already applied\nhint: call the plan tool again/);

    writeFileSync(join(root, 'desired.yaml'), 'version: 1\nprojects:\n  acme/web:\n    push_rule: {max_file_size: 62}\n');
    const stale = await plan();
    expect((await sandbox.run(['push-rule', 'set', '--project', 'acme/web', '--max-file-size', '63', '--yes'])).code).toBe(0);
    const refused = await server.call('apply', { digest: stale, confirm: true });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/the plan is stale[\s\S]*hint: call the plan tool again, review the new plan, and pass its digest to apply/);
    expect(text(refused)).not.toMatch(/forgectl plan|plan\.json|forgectl-mcp-/);
  });
});
