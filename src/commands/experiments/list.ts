import { defineCommand } from '../../cli/command.js';
import { parseChoice } from '../../parse.js';

interface Experiment {
  key: string;
  definition?: { default_enabled?: boolean };
  current_status?: { state?: string };
}

export default defineCommand<{ state?: string }>({
  description: 'An internal listing: the caller must be a team member of the operator of a hosted deployment (403 otherwise).',
  examples: ['forgectl experiments list', 'forgectl experiments list --state conditional -o json'],
  options: [{ flags: '--state <state>', description: 'only experiments in this state (off, conditional, on)', parse: parseChoice('--state', ['off', 'conditional', 'on'] as const) }],
  columns: ['key', 'current_status.state', 'definition.default_enabled', 'definition.milestone', 'definition.group', 'current_status.gates'],
  async run(opts, ctx) {
    const experiments = await ctx.api.get<Experiment[]>('/experiments');
    return opts.state ? experiments.filter((e) => e.current_status?.state === opts.state) : experiments;
  },
});
