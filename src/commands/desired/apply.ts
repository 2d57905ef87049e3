import { defineCommand, type Context } from '../../cli/command.js';
import { Progress } from '../../fleet/progress.js';
import { applyChanges, checkBeforeWriting, staleObjects, toCarryOut, type ApplySummary } from '../../desired/apply.js';
import { oneLine } from '../../output/formats.js';
import { localFiles } from '../../desired/file.js';
import { sectionIo } from './io.js';
import type { Change, Owner, SectionIo } from '../../desired/model.js';
import { failureLine, listedNames, type OwnerFailure, type PlanOptions } from '../../desired/plan.js';
import { changeLabel, NOTHING_SELECTED, ownersPhrase, paintFor, planText } from '../../desired/render.js';
import { checkPlanDigest, failuresOf, looksLikePlan, readPlanDocument } from '../../desired/saved.js';
import { checkFollowsFile } from '../../desired/follows.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { ResultWithExit } from '../../output/result.js';
import { writeFileAtomically } from '../../files.js';
import { selectProjects } from '../../fleet/select.js';
import { emptyShardLine, inShard, reportOnInterrupt, startBudget, takeShard, writeFailedTo } from '../../fleet/shard.js';
import { namedFew } from '../../fleet/run.js';
import { baseDirOf, failedPaths, fileOption, planOptionsOf, planShowingProgress, readDesired, readText, targetOptions, type TargetFlags } from './shared.js';
import { plural } from '../../parse.js';
import { refusalsHint, type RefusedCommand } from '../../cli/refusal.js';

interface Options extends TargetFlags {
  file: string;
  prune?: boolean;
}

export default defineCommand<Options>({
  effect: 'destructive',
  description: [
    'Makes the instance match a desired-state file (planned first, shown on stderr and confirmed), or carries out a plan saved with',
    'plan --out, which is refused when any of its objects changed since it was made, or when its changes were edited since (an object',
    'that holds what the plan asks for already, as after an earlier apply of it, is left out: a retried job goes on). Every value',
    'the changes need (secrets, mask rules, local files) is read and checked before the first write: a missing one writes nothing (exit 2).',
    'A replace reads the old object first and puts it back should the create fail. One result per object; a failed object does not',
    'stop the others (exit 9 with a summary). Deletions of objects the file no longer lists happen only with --prune, and only those the',
    "file's prune mode allows (managed: those forgectl created). Access token findings are reported, never fixed. Secrets are read",
    'once each and never shown. With --dry-run every change is shown with its requests and nothing is sent.',
  ].join(' '),
  exits: { 9: 'some changes failed or were left out (deletions the file does not allow), or a part could not be read; the rest was applied' },
  examples: [
    'forgectl apply -f desired.yaml --yes',
    'forgectl apply -f desired.yaml --prune --concurrency 16 --yes',
    'forgectl plan -f desired.yaml --out plan.json || [ $? -eq 9 ] && forgectl apply -f plan.json --yes   # plan exits 9 when there are changes',
  ],
  options: [fileOption, ...targetOptions, { flags: '--prune', description: "delete objects the file no longer lists (as its prune mode allows)" }],
  columns: ['target', 'object', 'action', 'result', 'error'],
  async run(opts, ctx) {
    const text = await readText(ctx, opts.file);
    const options = planOptionsOf(ctx, opts);
    const work = looksLikePlan(text) ? await savedPlan(ctx, opts, options, text) : await fileChanges(ctx, opts, options, text);
    const { changes, failures, io } = work;
    const failedTo = (owners: Array<{ level: string; path: string }>) => {
      if (opts.failedTo !== undefined) writeFailedTo(opts.failedTo, failedPaths(owners), writeFileAtomically);
    };
    if (!changes.length) {
      failedTo(failures.map((failure) => failure.owner));
      if (work.nothing) ctx.io.note(work.nothing);
      return failures.length ? new ResultWithExit([], ExitCode.attention, `attention: ${failures.length} could not be read`) : [];
    }
    // Interrupted before the first change (while checking, at the question), every change is left: --failed-to says so.
    ctx.io.state.interruptReport = reportOnInterrupt(opts.failedTo, () => [], () => failedPaths([...failures.map((failure) => failure.owner), ...changes.map((change) => change.owner)]));
    // Every value the changes need is read and checked before the first write: a missing secret writes nothing.
    const problems = await checkBeforeWriting(io, changes, { prune: Boolean(opts.prune) });
    if (problems.length) {
      if (problems.length > 1) for (const problem of problems) ctx.io.streams.stderr.write(`${oneLine(problem)}\n`);
      throw new UsageError(`${problems.length > 1 ? `${problems.length} values the changes need are missing or invalid` : problems[0]}; nothing was applied`, 'set what is missing (or correct the value) and apply again');
    }
    const carried = toCarryOut(changes, Boolean(opts.prune));
    if (carried.length) await ctx.confirm(`Apply ${plural(carried.length, 'change')}${losses(carried)} to ${ownersPhrase([...new Map(changes.map((c) => [`${c.owner.level} ${c.owner.path}`, c.owner])).values()])}?`);

    const summary: ApplySummary = { done: 0, failed: 0, skippedPrunes: 0, violations: 0, failedOwners: [], errors: [] };
    const result = new ResultWithExit(undefined, ExitCode.ok);
    // A spinner at a terminal ("applying 3/20 changes…"); interrupted, the run says which changes were done.
    const progress = new Progress<Change>(ctx.io, { verb: 'applying', noun: 'change' }, changeLabel);
    ctx.io.state.interruptReport = reportOnInterrupt(opts.failedTo, () => progress.report(), () => failedPaths([...failures.map((failure) => failure.owner), ...summary.failedOwners, ...progress.left().map((change) => change.owner)]));
    // --dry-run shows each change's request one at a time, in order, and sends none of them.
    const rows = applyChanges(io, changes, { prune: Boolean(opts.prune), concurrency: ctx.globals.dryRun ? 1 : options.concurrency, progress }, summary);
    async function* settle() {
      await progress.begin(ctx.globals.dryRun ? [] : carried);
      try {
        yield* rows;
      } finally {
        progress.stop();
      }
      failedTo([...failures.map((failure) => failure.owner), ...summary.failedOwners]);
      const parts = [ctx.globals.dryRun ? `${plural(carried.length, 'change')} shown, none sent` : `${summary.done} done`, summary.failed ? `${summary.failed} failed` : '', summary.skippedPrunes ? `${plural(summary.skippedPrunes, 'deletion')} skipped (pass --prune)` : '', summary.violations ? `${plural(summary.violations, 'audit finding')} not fixed by apply` : '', failures.length ? `${failures.length} could not be read` : ''].filter(Boolean);
      const gate = ctx.rateGate.summary();
      const line = `${ctx.globals.dryRun ? 'Dry run' : 'Applied'}: ${parts.join(', ')}.${gate ? ` (${gate})` : ''}`;
      if (summary.failed || summary.skippedPrunes || summary.violations || failures.length) {
        result.exitCode = ExitCode.attention;
        // Which projects and groups to look at (and rerun with --projects-file): named, as every fleet run names them.
        const failedIn = [...failures.map((failure) => failure.owner), ...summary.failedOwners].map((owner) => owner.path || 'the instance');
        result.message = `attention: ${line}${failedIn.length ? ` Failed: ${namedFew([...new Set(failedIn)])}` : ''}`;
        // Changes refused with 403 get the hint their own command gives of one (the role, the tier), once.
        const hint = await refusalsHint(summary.errors.map(({ error }) => error), 'change', (index) => commandOfChange(ctx, summary.errors[index].change), () => ctx.api);
        if (hint) result.message += `\n${hint}`;
      } else if (!ctx.io.options.quiet) result.message = line; // after the output (a table comes whole at the end)
    }
    return Object.assign(result, { result: settle() });
  },
});

/** What of the changes deletes, said in the question: " (3 deletions, 1 replacement)", or nothing. */
function losses(changes: Change[]): string {
  const count = (action: Change['action']) => changes.filter((change) => change.action === action).length;
  const parts = [count('delete') ? plural(count('delete'), 'deletion') : '', count('replace') ? plural(count('replace'), 'replacement') : ''].filter(Boolean);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** The command groups of the sections not named as their key is (push_rule: push-rule). */
const SECTION_COMMANDS: Record<string, string> = { 'project settings': 'projects', 'group settings': 'groups', 'instance application_settings': 'settings', 'project approvals': 'approval-settings' };

/** The verbs of the command that makes a change of each action, in the order they are looked for. */
const ACTION_VERBS: Record<Change['action'], string[]> = {
  create: ['create', 'add', 'protect', 'set', 'update'],
  replace: ['create', 'add', 'protect', 'set', 'update'],
  update: ['update', 'set'],
  delete: ['delete', 'remove', 'unprotect'],
  violation: [],
};

/** The command that makes a change by hand (push-rule set, hooks create), whose help says what it needs. */
async function commandOfChange(ctx: Context, change: Change): Promise<RefusedCommand> {
  const group = SECTION_COMMANDS[`${change.owner.level} ${change.section}`] ?? change.section.replace(/_/g, '-');
  for (const verb of ACTION_VERBS[change.action]) {
    const entry = ctx.commands.manifest.find((candidate) => candidate.path === `${group} ${verb}`);
    if (entry) return { path: entry.path, description: (await entry.load()).default.description };
  }
  return { path: `a change of ${change.section}` };
}

/** What an apply works on: the changes, the owners that could not be read, and what to say when there is nothing. */
interface Work {
  changes: Change[];
  failures: OwnerFailure[];
  io: SectionIo;
  /** What to say when there are no changes (nothing when a line said so already). */
  nothing?: string;
}

/**
 * A saved plan's changes (this shard's, those of --projects-file), once the plan is shown to be the one reviewed
 * (its digests, the file it follows from), made for this instance, and none of its objects changed since.
 */
async function savedPlan(ctx: Context, opts: Options, options: PlanOptions, text: string): Promise<Work> {
  if (opts.target || opts.exclude) throw new UsageError('--target and --exclude were chosen when the plan was made; they do not apply to a saved plan');
  const { document, changes: saved } = readPlanDocument(opts.file, text);
  // What is applied is what was reviewed: the changes match their digest, and follow from the file where it is at hand.
  checkPlanDigest(opts.file, document);
  await checkFollowsFile(opts.file, document, saved);
  ctx.io.note(`applying the plan in ${opts.file} (changes digest ${document.changes_digest})`);
  // A shard applies its part of the plan (a merged plan, or its own); --projects-file narrows it further.
  // What the plan could not read is not applied either: it stays in the run's outcome (exit 9, --failed-to).
  let planned = saved;
  let unread = failuresOf(document);
  if (options.projectsFile !== undefined) {
    const listed = new Set((await selectProjects(ctx, { projectsFile: options.projectsFile })).map((project) => project.path.toLowerCase()));
    const isListed = (owner: Owner) => listedNames(owner).some((name) => listed.has(name));
    planned = planned.filter((change) => isListed(change.owner));
    unread = unread.filter((failure) => isListed(failure.owner));
  }
  const listed = planned.length;
  const keys = takeShard([...new Set(planned.map((change) => change.owner.path))], (path) => path, options.shard, (line) => ctx.io.note(line), 'projects, groups and instance settings with changes');
  if (options.shard) {
    const mine = new Set(keys);
    planned = planned.filter((change) => mine.has(change.owner.path));
    unread = unread.filter((failure) => inShard(failure.owner.path, options.shard));
    if (!planned.length && listed) ctx.io.note(emptyShardLine(options.shard));
  }
  for (const failure of unread) ctx.io.warn(`not applied: the plan could not read ${failureLine(failure)}`);
  if (document.server !== ctx.connection().baseUrl) {
    throw new CliError(`${opts.file} was made for ${document.server}, not ${ctx.connection().baseUrl}`, ExitCode.rejected, 'make the plan against this instance');
  }
  const io = sectionIo(ctx, localFiles(`${document.base_dir}/plan`), document.base_dir);
  const budget = startBudget(ctx.rateGate, options.concurrency, options.rateLimit, options.shard);
  if (budget) ctx.io.note(budget);
  const { stale, done } = await staleObjects(io, planned, options.concurrency);
  if (stale.length) {
    for (const line of stale) ctx.io.streams.stderr.write(`changed since the plan: ${line}\n`);
    throw new CliError(`the plan is stale: ${stale.length} of its objects changed since it was made (${document.created_at}); nothing was applied`, ExitCode.rejected, `make the plan again: forgectl plan -f ${document.file} --out ${opts.file}`);
  }
  if (done.size) ctx.io.note(`${plural(done.size, 'change')} of the plan ${done.size === 1 ? 'was' : 'were'} applied already (by an earlier apply of it): left out`);
  const nothing = !saved.length ? 'the plan has no changes: nothing to do' : !listed ? `the plan has no changes for what --projects-file lists: nothing to do` : done.size ? 'nothing left to apply' : undefined;
  return { changes: planned.filter((change) => !done.has(change)), failures: unread, io, nothing };
}

/** The changes a desired-state file asks for now, planned (with a spinner at a terminal) and shown on stderr. */
async function fileChanges(ctx: Context, opts: Options, options: PlanOptions, text: string): Promise<Work> {
  const state = await readDesired(ctx, opts.file, text);
  const io = sectionIo(ctx, state.local, baseDirOf(opts.file));
  const plan = await planShowingProgress(ctx, state, io, options, opts.failedTo);
  if (options.shard && !plan.owners.length) ctx.io.note(emptyShardLine(options.shard));
  for (const failure of plan.failures) ctx.io.warn(`could not read ${failureLine(failure)}`);
  if (plan.changes.length) {
    // The colour decision is made for stdout (a terminal or FORCE_COLOR, unless NO_COLOR, --no-color, TERM=dumb); the
    // preview is on stderr: with stdout a terminal, coloured only when stderr is one too; otherwise colour was forced.
    const paint = await paintFor(ctx.io.options.color && (ctx.io.stderrIsTTY || !ctx.io.stdoutIsTTY));
    // With --prune, the deletions prune allows are carried out like any other: the preview does not say they need it.
    const preview = planText(opts.prune ? { ...plan, changes: plan.changes.map((change) => ({ ...change, prune: undefined })) } : plan, paint, failureLine);
    // Written as it is (coloured on a terminal; planText made the server's text in it visible), unless --quiet
    // and nothing is asked.
    const asking = ctx.io.interactive && !ctx.globals.yes && !ctx.globals.dryRun;
    if (asking || !ctx.io.options.quiet) ctx.io.streams.stderr.write(preview);
  }
  const nothing = plan.owners.length ? `Nothing to apply: the file matches ${ownersPhrase(plan.owners)}.` : options.shard ? undefined : NOTHING_SELECTED;
  return { changes: plan.changes, failures: plan.failures, io, nothing };
}
