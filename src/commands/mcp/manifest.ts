import type { ManifestEntry } from '../../cli/command.js';

/** `mcp` commands: the agent interface (Model Context Protocol). */
export const groups: Record<string, string> = { mcp: 'The agent interface: a Model Context Protocol server, read-only by default' };

export const entries: ManifestEntry[] = [
  { path: 'mcp serve', summary: 'Serve forgectl to an AI assistant over MCP (stdio, or HTTP on loopback)', load: () => import('./serve.js') },
  { path: 'mcp tools', summary: 'List the tools mcp serve would offer, with their annotations', load: () => import('./tools.js') },
];
