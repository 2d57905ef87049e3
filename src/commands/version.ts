import { defineCommand } from '../cli/command.js';
import { TextResult } from '../output/result.js';

export default defineCommand({
  description: 'What --version prints. As a record (-o json, yaml …): the versions of forgectl and of the Node.js that runs it, for bug reports and scripts.',
  examples: ['forgectl version', 'forgectl version -o json'],
  async run(_opts, ctx) {
    if (ctx.format === 'table' && !ctx.globals.fields) return new TextResult(`forgectl ${__FORGECTL_VERSION__}`);
    return { forgectl: __FORGECTL_VERSION__, node: process.versions.node };
  },
});
