import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../commands/mcp/catalogue.js';
import { ToolServer } from '../../commands/mcp/server.js';
import { commands, manifest } from '../../commands/manifest.js';
import { execute } from '../../main.js';
import { useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

describe('runners and deploy tokens as agent tools', () => {
  it('the ci toolset has the runner tools, the access toolset the deploy-token tools, with honest annotations', async () => {
    const tools = await buildCatalogue(manifest, { toolsets: ['ci', 'access'], allowWrite: ['ci', 'access'] });
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ['runners_list', 'runners_get', 'runners_jobs', 'runners_audit']) expect(byName.get(name), name).toMatchObject({ toolset: 'ci', readOnly: true });
    expect(byName.get('runners_reset_token')).toMatchObject({ toolset: 'ci', readOnly: false, destructive: true });
    expect(byName.get('runners_reset_token')!.inputSchema.properties).toHaveProperty('reveal_token');
    expect(byName.get('runners_reset_token')!.inputSchema.properties).not.toHaveProperty('output_file');
    expect(byName.get('deploy_tokens_list')).toMatchObject({ toolset: 'access', readOnly: true });
    expect(byName.get('deploy_tokens_revoke')).toMatchObject({ destructive: true });
  });

  it('a result carries a token value only when the tool is made to hand one over and the caller asks', async () => {
    const tools = await buildCatalogue(manifest, { toolsets: ['ci', 'access'], allowWrite: ['ci', 'access'] });
    const server = new ToolServer({ tools, commands, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) });
    sandbox.clearRequests();
    const unseen = await server.call('deploy_tokens_create', { project: 'acme/web', name: 'agent', scopes: ['read_registry'] });
    expect(unseen.content[0].text).toMatch(/^deploy_tokens_create returns the new deploy token once, in the result's token field, and nothing else keeps it: pass reveal_token: true\n\(exit 2/);
    expect(sandbox.requests()).toEqual([]);
    const shown = await server.call('deploy_tokens_create', { project: 'acme/web', name: 'agent-2', scopes: ['read_registry'], reveal_token: true });
    expect((shown.structuredContent!.result as { token: string }).token).toMatch(/^gldt-/);

    sandbox.clearRequests();
    const refused = await server.call('runners_reset_token', { id: '7' });
    expect(refused.isError).toBe(true);
    expect(sandbox.requests()).toEqual([]);
    const reset = await server.call('runners_reset_token', { id: '7', reveal_token: true, confirm: true });
    expect((reset.structuredContent!.result as { token: string }).token).toMatch(/^glrt-/);
    const listed = await server.call('runners_get', { id: '7' });
    expect(JSON.stringify(listed)).not.toMatch(/glrt-/);
  });
});
