import { defineCommand } from '../../cli/command.js';
import { ExitCode } from '../../errors.js';
import { ResultWithExit, Summarised } from '../../output/result.js';
import { plural } from '../../parse.js';
import { scopeOptions } from './shared.js';
import { staleOption, staleRunners, typeOption, type StaleOptions } from './stale.js';

export default defineCommand<StaleOptions>({
  effect: 'read',
  description: [
    'Runners that have not contacted the instance for --stale (default 30d), and never-contacted ones created longer',
    'ago than that, longest idle first, each with the command that removes it. Exit 9 when there are any, 0',
    'otherwise: made for cron and monitoring. Scope as in `runners list` (default: the runners you manage). From a',
    'week on, only the runners the service already calls stale are read one by one. `runners prune` deletes the same',
    'selection.',
  ].join(' '),
  exits: { 9: 'runners without contact for the window were found' },
  examples: [
    'forgectl runners audit --instance --stale 30d',
    'forgectl runners audit --group acme --stale 90d -o json',
    'forgectl runners audit --project acme/api --type project_type --stale 2w',
  ],
  options: [...scopeOptions, staleOption('30d'), typeOption],
  columns: ['idle_days', 'id', 'description', 'runner_type', 'owner', 'status', 'last_contact', 'fix'],
  // A runner's description is its name; when it was last heard from is the point of the audit.
  columnPriority: { identifying: 'description', whole: ['last_contact'] },
  async run(opts, ctx) {
    const { rows, window, checked } = await staleRunners(opts, ctx);
    if (!rows.length) return new Summarised([], `no runner without contact for ${window}; ${checked}`);
    const shown = rows.map((row) => ({ ...row, fix: `forgectl runners delete ${row.id}` }));
    return new ResultWithExit(shown, ExitCode.attention, `attention: ${plural(rows.length, 'runner')} without contact for ${window}; ${checked}`);
  },
});
