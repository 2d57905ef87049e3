import { globalId } from '../../api/global-id.js';
import { dataOf, sendGraphql } from '../../api/graphql.js';
import { BULK_DELETE_LIMIT } from './resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { ApiError, DryRunComplete, ExitCode, NetworkError } from '../../errors.js';
import { ResultWithExit, Summarised } from '../../output/result.js';
import { plural } from '../../parse.js';
import { describeRunner } from './shared.js';
import { deleteScopeOptions, ownScope, staleOption, staleRunners, typeOption, type StaleOptions, type StaleRunner } from './stale.js';

const BULK_DELETE = 'mutation bulkRunnerDelete($ids: [CiRunnerID!]) { bulkRunnerDelete(input: { ids: $ids }) { deletedIds errors } }';

interface Outcome extends StaleRunner {
  batch: number;
  outcome: 'deleted' | 'failed' | 'unknown' | 'not sent';
  error: string | null;
}

type Answer = { bulkRunnerDelete: { deletedIds: string[] | null; errors: string[] } | null };

/** One batch sent: each runner of it deleted, or failed with the service's reasons. */
async function deleteBatch(ctx: Context, batch: StaleRunner[], number: number): Promise<Outcome[]> {
  const ids = batch.map((runner) => globalId('Ci::Runner', runner.id));
  const answer = dataOf<Answer>(await sendGraphql(ctx.api, { query: BULK_DELETE, variables: { ids } }, { mutation: true }), ctx.api);
  const deleted = new Set(answer.bulkRunnerDelete?.deletedIds ?? []);
  const reasons = answer.bulkRunnerDelete?.errors.join('; ') || 'the service did not delete it and gave no reason (deleted meanwhile?)';
  return batch.map((runner, index) => (deleted.has(ids[index]) ? { ...runner, batch: number, outcome: 'deleted', error: null } : { ...runner, batch: number, outcome: 'failed', error: reasons }));
}

/** --dry-run: each batch's request printed, none sent. */
async function showBatches(ctx: Context, batches: StaleRunner[][]): Promise<void> {
  for (const [index, batch] of batches.entries()) {
    let printed = '';
    ctx.io.note(`batch ${index + 1} of ${batches.length}: ${plural(batch.length, 'runner')} (${batch.map((runner) => runner.id).join(', ')})`);
    const api = ctx.forkApi((text) => (printed += text));
    await sendGraphql(api, { query: BULK_DELETE, variables: { ids: batch.map((runner) => globalId('Ci::Runner', runner.id)) } }, { mutation: true }).catch((error: unknown) => {
      if (!(error instanceof DryRunComplete)) throw error;
    });
    await ctx.io.out(printed);
  }
}

/**
 * The stale runners of a scope deleted in batches after asking: `runners prune`, and `runners delete --stale`.
 */
export async function deleteStale(opts: StaleOptions, ctx: Context): Promise<unknown> {
  const found = await staleRunners(opts, ctx, await ownScope(opts, ctx));
  const { window, checked, notOwn, shared } = found;
  // The service records a runner's contact only about once an hour, and calls it online while it was seen within two:
  // a window under two hours would otherwise take runners that are picking up jobs now.
  const online = found.rows.filter((row) => row.status === 'online');
  const rows = found.rows.filter((row) => row.status !== 'online');
  if (online.length) {
    ctx.io.note(`left alone, as the service calls ${online.length === 1 ? 'it' : 'them'} online (seen within 2 hours; the last contact it records can be an hour old): ${online.map(describeRunner).join(', ')}`);
  }
  const scope = opts.group !== undefined ? `group ${opts.group}` : `project ${opts.project}`;
  // A group or project may use the instance's runners and its groups' above: deleting those is for their owners.
  if (notOwn.length) {
    ctx.io.note(`left alone, as ${scope} only uses ${notOwn.length === 1 ? 'it' : 'them'}: ${notOwn.map((row) => `${describeRunner(row)} of ${row.runner_type === 'instance_type' ? 'the instance' : row.owner}`).join(', ')}`);
  }
  // Deleting a runner other projects use too takes it from them all: that is asked of one runner at a time.
  for (const row of shared) {
    ctx.io.note(`skipped ${describeRunner(row)}: ${row.others.length === 1 ? 'project' : 'projects'} ${row.others.join(', ')} ${row.others.length === 1 ? 'uses' : 'use'} it too, and deleting it takes it from them all; forgectl runners unassign ${row.id} --project ${opts.project} takes it from ${scope} only, forgectl runners delete ${row.id} asks to delete it everywhere`);
  }
  const skipped = shared.length ? `attention: ${plural(shared.length, 'runner')} skipped, as other projects use ${shared.length === 1 ? 'it' : 'them'} too` : '';
  if (!rows.length) {
    const nothing = `no runner without contact for ${window}: nothing to delete; ${checked}`;
    return skipped ? new ResultWithExit([], ExitCode.attention, `${nothing}; ${skipped}`) : new Summarised([], nothing);
  }
  const batches = Array.from({ length: Math.ceil(rows.length / BULK_DELETE_LIMIT) }, (_, n) => rows.slice(n * BULK_DELETE_LIMIT, (n + 1) * BULK_DELETE_LIMIT));
  ctx.io.note(`${plural(rows.length, 'runner')} without contact for ${window}; ${checked}:`);
  for (const row of rows) ctx.io.note(`  ${describeRunner(row)}, ${row.runner_type === 'instance_type' ? 'of the instance' : `of ${row.owner}`}, ${idleWords(row)}`);
  await ctx.confirm(`Delete ${rows.length === 1 ? 'it' : `these ${rows.length} runners`}, in ${plural(batches.length, 'batch', 'batches')} of up to ${BULK_DELETE_LIMIT}?`);
  if (ctx.globals.dryRun) return showBatches(ctx, batches);
  const done = await deleteBatches(ctx, batches);
  if (!skipped) return done;
  return done instanceof ResultWithExit ? new ResultWithExit(done.result, ExitCode.attention, `${done.message}; ${skipped}`) : new ResultWithExit(done, ExitCode.attention, skipped);
}

/** "last contact 2026-08-21T… (100 days)", or for a runner never seen "never contacted, created 60 days ago". */
const idleWords = (row: StaleRunner): string => (row.last_contact === 'never' ? `never contacted, created ${row.idle_days} days ago` : `last contact ${row.last_contact} (${row.idle_days} days)`);

/** The batches sent in turn; a batch refused whole after others were sent ends the run with what is known. */
async function deleteBatches(ctx: Context, batches: StaleRunner[][]): Promise<unknown> {
  const outcomes: Outcome[] = [];
  for (const [index, batch] of batches.entries()) {
    ctx.io.state.interruptNote = `${index} of ${plural(batches.length, 'batch', 'batches')} sent; not yet: runners ${batches.slice(index).flat().map((runner) => runner.id).join(', ')}`;
    try {
      const done = await deleteBatch(ctx, batch, index + 1);
      outcomes.push(...done);
      const failed = done.filter((outcome) => outcome.outcome !== 'deleted');
      ctx.io.note(`batch ${index + 1} of ${batches.length}: deleted ${done.length - failed.length} of ${plural(batch.length, 'runner')}${failed.length ? `; not ${failed.map((o) => o.id).join(', ')}: ${failed[0].error}` : ''}`);
    } catch (error) {
      // A batch refused whole: with nothing deleted yet that is the answer; later, the runs so far are reported.
      if (!(error instanceof ApiError || error instanceof NetworkError) || !outcomes.length) throw error;
      const unknown = error instanceof NetworkError && error.maybeProcessed;
      ctx.io.note(`batch ${index + 1} of ${batches.length}: ${error.message}${unknown ? ' (they may have been deleted: runners audit shows what is left)' : ''}`);
      outcomes.push(...batch.map((runner): Outcome => ({ ...runner, batch: index + 1, outcome: unknown ? 'unknown' : 'failed', error: error.message })));
      outcomes.push(...batches.slice(index + 1).flatMap((rest, n) => rest.map((runner): Outcome => ({ ...runner, batch: index + n + 2, outcome: 'not sent', error: null }))));
      break;
    }
  }
  ctx.io.state.interruptNote = undefined;
  const left = outcomes.filter((outcome) => outcome.outcome !== 'deleted').length;
  return left ? new ResultWithExit(outcomes, ExitCode.attention, `attention: ${left} of ${plural(outcomes.length, 'runner')} not deleted`) : outcomes;
}

/** The columns of a bulk deletion's rows. */
export const STALE_DELETE_COLUMNS = ['batch', 'id', 'description', 'owner', 'idle_days', 'outcome', 'error'];

export default defineCommand<StaleOptions>({
  effect: 'destructive',
  description: [
    `Deletes the runners \`runners audit\` finds for the same --stale and scope, ${BULK_DELETE_LIMIT} at a time with the`,
    "service's bulk deletion (the GraphQL mutation bulkRunnerDelete, as its admin page does). It lists them and asks",
    'first (--yes without a terminal); --dry-run shows the batches and sends none. Each batch says what was deleted and',
    'what was not and why; exit 9 when any runner was not deleted. The runner machines are not touched: they lose their',
    'registration. A runner the service calls online (seen within 2 hours) is never deleted, however short --stale is.',
    'As in the admin page, a project runner used by several projects goes too. With --group or',
    '--project only that group\'s or project\'s own runners go: those of the groups above and of the instance, which it',
    'only uses, are named and left alone; with --project, a runner other projects use too is skipped, named with them',
    '(exit 9): deleting it would take it from them all (`runners delete ID` asks for it alone). Administrators, or the',
    'Maintainer of the runners\' groups and projects.',
  ].join(' '),
  examples: [
    'forgectl runners prune --instance --stale 90d --dry-run',
    'forgectl runners prune --group acme --stale 90d',
    'forgectl runners prune --instance --stale 180d --type project_type --yes -o json',
  ],
  options: [...deleteScopeOptions, staleOption(), typeOption],
  columns: STALE_DELETE_COLUMNS,
  run: deleteStale,
});
