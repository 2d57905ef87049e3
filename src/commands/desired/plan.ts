import { defineCommand, type Context } from '../../cli/command.js';
import { sectionIo } from './io.js';
import { failureLine, type Plan } from '../../desired/plan.js';
import { hasDrift, notComparedNote, paintFor, planSummary, planText } from '../../desired/render.js';
import { planDocument, type PlanDocument } from '../../desired/saved.js';
import { ExitCode } from '../../errors.js';
import { ResultWithExit, TextResult } from '../../output/result.js';
import { createHash } from 'node:crypto';
import { writeFileAtomically } from '../../files.js';
import { emptyShardLine, writeFailedTo } from '../../fleet/shard.js';
import { baseDirOf, failedPaths, fileOption, planOptionsOf, planShowingProgress, readDesired, readText, targetOptions, type TargetFlags } from './shared.js';

interface Options extends TargetFlags {
  file: string;
  out?: string;
}

export default defineCommand<Options>({
  effect: 'read',
  description: [
    'Reads the live objects (there is no state file) and shows what apply would change, per project, group and the instance:',
    '+ create, ~ update (the fields that differ), -/+ replace, - delete (deletions of objects the file no longer lists need apply --prune),',
    '! an audit finding. Only the fields the file declares are compared; write-only values (secrets) show as (write-only) and never count.',
    'Exit 0 when everything matches, 9 when anything differs (drift: for cron and CI), 2 for an invalid file; so `plan && apply` never applies',
    'drift: review the saved plan and apply it, or in a script let 9 through as the last example shows. A secret the file asks to write on',
    'every apply (rewrite: always) is shown as such and counted apart: it is not drift.',
    '-o json prints the plan as JSON; --fields (action,path,section …) shows its changes as a table instead of the text plan. --out FILE saves it for apply, which refuses it when an object changed meanwhile. Secrets are never read while planning.',
    'With --shard I/N (or in a parallel CI job) it plans one shard of the projects and groups; plan merge combines the shards\' plans.',
  ].join(' '),
  exits: { 9: 'drift: the instance differs from the file (there are changes to apply), or a part could not be read; so `plan && apply` never applies' },
  examples: [
    'forgectl plan -f desired.yaml',
    "forgectl plan -f desired.yaml --target 'acme/**' --exclude 'acme/sandbox/**' --concurrency 16",
    'forgectl plan -f desired.yaml --shard 2/8 --out plan-2.json   # one of 8 parallel jobs; then: forgectl plan merge plan-*.json',
    'forgectl plan -f desired.yaml --out plan.json   # review it; then: forgectl apply -f plan.json --yes',
    'forgectl plan -f desired.yaml --out plan.json || [ $? -eq 9 ] && forgectl apply -f plan.json --yes   # 9 (changes) goes on to apply; an error stops',
    'forgectl plan -f desired.yaml -o json | jq \'.changes[] | select(.action == "update")\'',
  ],
  options: [fileOption, ...targetOptions, { flags: '--out <file>', description: 'save the plan as JSON (for apply -f FILE)', localFile: true }],
  async run(opts, ctx) {
    const text = await readText(ctx, opts.file);
    const state = await readDesired(ctx, opts.file, text);
    const options = planOptionsOf(ctx, opts);
    const baseDir = baseDirOf(opts.file);
    const io = sectionIo(ctx, state.local, baseDir);
    const plan = await planShowingProgress(ctx, state, io, options, opts.failedTo);
    const digest = createHash('sha256').update(text).digest('hex');
    const document = planDocument(plan, { server: ctx.connection().baseUrl, file: state.file, baseDir, now: ctx.now(), digest, targets: options.targets, exclude: options.exclude, shard: options.shard });
    if (options.shard && !plan.owners.length) ctx.io.note(emptyShardLine(options.shard));
    if (opts.failedTo !== undefined) writeFailedTo(opts.failedTo, failedPaths(plan.failures.map((failure) => failure.owner)), writeFileAtomically);
    return showPlan(ctx, plan, document, opts.out);
  },
});

/** A plan on stdout (text, or the saved form with -o json), saved to `out` if given; exit 9 when anything differs. */
export async function showPlan(ctx: Context, plan: Plan, document: PlanDocument, out: string | undefined): Promise<ResultWithExit> {
  if (out) {
    writeFileAtomically(out, `${JSON.stringify(document, null, 2)}\n`);
    ctx.io.note(`plan saved to ${out} (changes digest ${document.changes_digest}): apply it with forgectl apply -f ${out}`);
  }
  const gate = ctx.rateGate.summary();
  if (gate) ctx.io.note(gate);
  const uncompared = notComparedNote(plan);
  if (uncompared) ctx.io.note(uncompared);
  // Secrets the file asks to write on every apply (rewrite: always) are shown, and are not drift.
  const exit = hasDrift(plan) ? ExitCode.attention : ExitCode.ok;
  if (ctx.format === 'table' && !ctx.globals.fields) {
    const paint = await paintFor(ctx.io.options.color);
    return new ResultWithExit(new TextResult(planText(plan, paint, failureLine), true), exit);
  }
  // --fields picks fields of records: the changes (as -o csv lists them), a table of them where the text plan was.
  const result = ctx.format === 'json' || ctx.format === 'yaml' ? document : document.changes;
  return new ResultWithExit(result, exit, ctx.io.options.quiet ? undefined : planSummary(plan));
}
