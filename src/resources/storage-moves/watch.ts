import { defineCommand } from '../../cli/command.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { FAILED_STATES, FINISHED, itemId, itemOf, itemOption, moveRoute, parseMoveId, repositoryOf, typeOption, withRepository, type MoveType, type StorageMove } from './shared.js';

interface Options {
  moveId: string;
  type: MoveType;
  id?: string;
  interval: number;
}

function parseInterval(value: string): number {
  const seconds = Number(value);
  if (!value.trim() || !Number.isFinite(seconds) || seconds < 0.05 || seconds > 3600) {
    throw new UsageError(`--interval must be a number of seconds between 0.05 and 3600, got "${value}"`);
  }
  return seconds;
}

export default defineCommand<Options>({
  effect: 'read',
  description: [
    'Follows a move until it ends, with a spinner on a terminal (state changes are written to stderr otherwise).',
    'Prints the final record and exits 0 when it finished; exits 8 when it failed (moves fail mostly for temporary',
    'reasons: schedule it again); exits 9 on `cleanup failed` (moved, but the copy on the old storage remains).',
  ].join(' '),
  exits: { 9: 'the repository moved, but removing the copy on the old storage failed' },
  examples: ['forgectl storage-move watch 1', 'forgectl storage-move watch 1 --type group --interval 5 -o json'],
  args: ['<move-id>'],
  options: [typeOption(false), itemOption, { flags: '--interval <seconds>', description: 'time between polls', parse: parseInterval, default: 2 }],
  async run(opts, ctx) {
    const id = parseMoveId(opts.moveId);
    const [route, params] = moveRoute(opts.type, 'get', opts.id === undefined ? undefined : itemId(opts.type, opts.id), id);
    const spinner = await ctx.io.spinner(`${opts.type} move ${id}: checking`);
    let last: string | undefined;
    try {
      for (;;) {
        const move = await ctx.api.call<StorageMove>(route, params);
        const label = `${opts.type} move ${id} (${repositoryOf(move) ?? '?'}, ${move.source_storage_name} → ${move.destination_storage_name})`;
        if (move.state !== last) {
          spinner.update(`${label}: ${move.state}`);
          if (!ctx.io.stderrIsTTY) ctx.io.note(`${label}: ${move.state}`);
          last = move.state;
        }
        if (move.state === FINISHED) {
          spinner.succeed(`${label}: finished`);
          return withRepository(move);
        }
        if (move.state === 'cleanup failed') {
          spinner.fail(`${label}: cleanup failed`);
          throw new CliError(`${label} moved the repository, but removing the copy on storage "${move.source_storage_name}" failed`, ExitCode.attention, 'the repository is usable on its new storage; clean up the old copy');
        }
        if (FAILED_STATES.includes(move.state)) {
          spinner.fail(`${label}: ${move.state}`);
          throw new CliError(`${label} failed`, ExitCode.server, `moves fail mostly for temporary reasons; schedule it again: forgectl storage-move schedule --type ${opts.type} --id ${itemOf(move) ?? '…'} --to ${move.destination_storage_name}`);
        }
        await ctx.sleep(opts.interval * 1000);
      }
    } finally {
      spinner.stop();
    }
  },
});
