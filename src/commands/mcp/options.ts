import type { OptionDef } from '../../cli/command.js';
import { withChoices } from '../../parse.js';
import { DEFAULT_TOOLSETS, parseToolsets, TOOLSETS } from './catalogue.js';

/** The options that choose the tools, shared by `mcp serve` and `mcp tools`. */
export const toolsetOptions: OptionDef[] = [
  {
    flags: '--toolsets <names>',
    description: `toolsets to offer, comma-separated, or all (default: ${DEFAULT_TOOLSETS.join(', ')}; all: ${Object.keys(TOOLSETS).join(', ')})`,
    parse: withChoices(parseToolsets('--toolsets'), [...Object.keys(TOOLSETS), 'all'], true),
  },
  {
    flags: '--allow-write <names>',
    description: 'offer the tools that change things in these toolsets, comma-separated (default: none; reads only)',
    parse: withChoices(parseToolsets('--allow-write'), [...Object.keys(TOOLSETS), 'all'], true),
  },
];

export interface ToolsetOpts {
  toolsets?: string[];
  allowWrite?: string[];
}

/** The toolsets listed: those asked for, plus those whose writes are allowed. */
export function selection(opts: ToolsetOpts): { toolsets: string[]; allowWrite: string[] } {
  const allowWrite = opts.allowWrite ?? [];
  const toolsets = [...new Set([...(opts.toolsets ?? DEFAULT_TOOLSETS), ...allowWrite])];
  return { toolsets, allowWrite };
}
