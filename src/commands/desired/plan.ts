import { defineCommand } from '../../cli/command.js';
import { sectionIo } from './io.js';
import { failureLine, makePlan } from '../../desired/plan.js';
import { paintFor, planSummary, planText } from '../../desired/render.js';
import { planDocument } from '../../desired/saved.js';
import { ExitCode } from '../../errors.js';
import { ResultWithExit, TextResult } from '../../output/result.js';
import { baseDirOf, concurrencyOf, fileOption, readDesired, targetOptions, writeFileAtomically, type TargetFlags } from './shared.js';

interface Options extends TargetFlags {
  file: string;
  out?: string;
}

export default defineCommand<Options>({
  description: [
    'Reads the live objects (there is no state file) and shows what apply would change, per project, group and the instance:',
    '+ create, ~ update (the fields that differ), -/+ replace, - delete (deletions of objects the file no longer lists need apply --prune),',
    '! an audit finding. Only the fields the file declares are compared; write-only values (secrets) show as (write-only) and never count.',
    'Exit 0 when everything matches, 9 when anything differs (drift: for cron and CI), 2 for an invalid file; so `plan && apply` never applies',
    'a change: review the saved plan and apply it, or in a script let 9 through as the last example shows.',
    '-o json prints the plan as JSON; --out FILE saves it for apply, which refuses it when an object changed meanwhile. Secrets are never read while planning.',
  ].join(' '),
  examples: [
    'forgectl plan -f desired.yaml',
    "forgectl plan -f desired.yaml --target 'acme/**' --exclude 'acme/sandbox/**' --concurrency 16",
    'forgectl plan -f desired.yaml --out plan.json   # review it; then: forgectl apply -f plan.json --yes',
    'forgectl plan -f desired.yaml --out plan.json || [ $? -eq 9 ] && forgectl apply -f plan.json --yes   # 9 (changes) goes on to apply; an error stops',
    'forgectl plan -f desired.yaml -o json | jq \'.changes[] | select(.action == "update")\'',
  ],
  options: [fileOption, ...targetOptions, { flags: '--out <file>', description: 'save the plan as JSON (for apply -f FILE)' }],
  async run(opts, ctx) {
    const state = await readDesired(ctx, opts.file);
    const baseDir = baseDirOf(opts.file);
    const io = sectionIo(ctx, ctx.api, state.local, baseDir);
    const plan = await makePlan(ctx, state, io, { targets: opts.target ?? [], exclude: opts.exclude ?? [], concurrency: concurrencyOf(opts) });
    const document = planDocument(plan, { server: ctx.connection().baseUrl, file: state.file, baseDir, now: ctx.now() });
    if (opts.out) {
      writeFileAtomically(opts.out, `${JSON.stringify(document, null, 2)}\n`);
      ctx.io.note(`plan saved to ${opts.out}: apply it with forgectl apply -f ${opts.out}`);
    }
    const gate = ctx.rateGate.summary();
    if (gate) ctx.io.note(gate);
    const drift = plan.changes.length > 0 || plan.failures.length > 0;
    const exit = drift ? ExitCode.attention : ExitCode.ok;
    if (ctx.format === 'table') {
      const paint = await paintFor(ctx.io.options.color && ctx.io.stdoutIsTTY);
      return new ResultWithExit(new TextResult(planText(plan, paint, failureLine), true), exit);
    }
    const result = ctx.format === 'ndjson' || ctx.format === 'csv' ? document.changes : document;
    return new ResultWithExit(result, exit, ctx.io.options.quiet ? undefined : planSummary(plan));
  },
});
