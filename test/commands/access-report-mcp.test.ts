import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/commands/mcp/catalogue.js';
import { ToolServer } from '../../src/commands/mcp/server.js';
import { commands, manifest } from '../../src/commands/manifest.js';
import { execute } from '../../src/main.js';
import { useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

describe('access report as an agent tool', () => {
  it('is a read-only tool of the access toolset, its --fail-on finding an exit 9 the result says', async () => {
    const tools = await buildCatalogue(manifest, { toolsets: ['access'] });
    const tool = tools.find((t) => t.name === 'access_report')!;
    expect(tool).toMatchObject({ toolset: 'access', readOnly: true, destructive: false });
    expect(Object.keys(tool.inputSchema.properties!)).toEqual(expect.arrayContaining(['user', 'group', 'project', 'recursive', 'fail_on', 'as_desired', 'concurrency']));
    const server = new ToolServer({ tools, commands, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) });
    const report = await server.call('access_report', { user: 'priya' });
    expect(report.isError).toBeFalsy();
    expect(report.structuredContent!.result).toEqual(expect.arrayContaining([expect.objectContaining({ place: 'acme/api', user: 'priya', role: 'maintainer', via: 'direct', effective: true })]));
    const owners = await server.call('access_report', { project: 'acme/api', fail_on: ['owner'] });
    expect(JSON.stringify(owners)).toContain('owner in 1 row');
  });
});
