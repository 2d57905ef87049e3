import { defineCommand } from '../../cli/command.js';
import { buildCatalogue } from './catalogue.js';
import { selection, toolsetOptions, type ToolsetOpts } from './options.js';

export default defineCommand<ToolsetOpts>({
  description: 'What an assistant connected to `forgectl mcp serve` with the same options sees: one row per tool, with whether it only reads, deletes or may be repeated safely.',
  examples: ['forgectl mcp tools', 'forgectl mcp tools --toolsets all --allow-write desired-state', 'forgectl mcp tools -o json --fields name,input_schema'],
  options: toolsetOptions,
  columns: ['name', 'toolset', 'access', 'description'],
  async run(opts, ctx) {
    const tools = await buildCatalogue(ctx.commands.manifest, selection(opts));
    return tools.map((tool) => ({
      name: tool.name,
      toolset: tool.toolset,
      access: tool.readOnly ? 'read' : tool.destructive ? 'write, destructive' : 'write',
      read_only: tool.readOnly,
      destructive: tool.destructive,
      idempotent: tool.idempotent,
      command: `forgectl ${tool.path}`,
      description: tool.description,
      input_schema: tool.inputSchema,
    }));
  },
});
