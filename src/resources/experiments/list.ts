import { defineCommand } from '../../cli/command.js';
import { parseChoice } from '../../parse.js';
import { experiments as declared, type Experiment } from './resource.js';

export default defineCommand<{ state?: string }>({
  effect: 'read',
  description: 'An internal listing: the caller must be a team member of the operator of a hosted deployment (403 otherwise).',
  examples: ['forgectl experiments list', 'forgectl experiments list --state conditional -o json'],
  options: [{ flags: '--state <state>', description: 'only experiments in this state (off, conditional, on)', parse: parseChoice('--state', ['off', 'conditional', 'on'] as const) }],
  columns: declared.columns,
  async run(opts, ctx) {
    // A deployment's listing may go without a status: such an experiment is in no state.
    const experiments = await ctx.api.call<Array<Partial<Experiment>>>(declared.routes.list);
    return opts.state ? experiments.filter((e) => e.current_status?.state === opts.state) : experiments;
  },
});
