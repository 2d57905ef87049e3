import { defineCommand } from '../../cli/command.js';
import { parseChoice } from '../../parse.js';
import { experiments as declared } from './resource.js';

interface Experiment {
  key: string;
  definition?: { default_enabled?: boolean };
  current_status?: { state?: string };
}

export default defineCommand<{ state?: string }>({
  effect: 'read',
  description: 'An internal listing: the caller must be a team member of the operator of a hosted deployment (403 otherwise).',
  examples: ['forgectl experiments list', 'forgectl experiments list --state conditional -o json'],
  options: [{ flags: '--state <state>', description: 'only experiments in this state (off, conditional, on)', parse: parseChoice('--state', ['off', 'conditional', 'on'] as const) }],
  columns: declared.columns,
  async run(opts, ctx) {
    const experiments = await ctx.api.call<Experiment[]>(declared.routes.list);
    return opts.state ? experiments.filter((e) => e.current_status?.state === opts.state) : experiments;
  },
});
