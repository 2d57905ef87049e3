import { defineCommand } from '../../cli/command.js';
import { mergePlanDocuments, planOfDocument, readPlanDocument } from '../../desired/saved.js';
import { UsageError } from '../../errors.js';
import { plural } from '../../parse.js';
import { checkFollowsFile } from '../../desired/follows.js';
import { showPlan } from './plan.js';
import { readText } from './shared.js';

export default defineCommand<{ plans: string[]; out?: string }>({
  effect: 'read',
  description: [
    'Combines the plans the shards of one run saved (plan --shard I/N --out FILE, or each job of a parallel CI job) into the plan the',
    'whole run would have made: the same changes in the same order, one exit code (0 when everything matches, 9 when anything differs).',
    'Refused when the plans were made for different instances, from different desired-state files or with different --target and',
    '--exclude, when a shard is missing (named) or given twice, and when a plan was edited after it was made: each plan\'s changes must',
    'match the digest recorded for them, and (where the desired-state file is at hand) follow from that file. --out saves the merged plan for apply.',
  ].join(' '),
  examples: [
    'forgectl plan merge plan-*.json --out plan.json || [ $? -eq 9 ] && forgectl apply -f plan.json --yes   # 9 (changes) goes on to apply; an error stops',
    'forgectl plan merge plans/*.json -o json | jq .summary',
  ],
  args: [{ spec: '<plans...>', description: 'the plan files of the shards', localFile: true }],
  options: [{ flags: '--out <file>', description: 'save the merged plan as JSON (for apply -f FILE)', localFile: true }],
  async run(opts, ctx) {
    const plans = [];
    for (const file of opts.plans) {
      if (file === '-') throw new UsageError('plan merge reads the plans from files, not stdin');
      plans.push({ file, ...readPlanDocument(file, await readText(ctx, file)) });
    }
    const merged = mergePlanDocuments(plans);
    // Each shard's changes must follow from the desired-state file they were all made from, where it is at hand.
    let checked = true;
    for (const plan of plans) checked = (await checkFollowsFile(plan.file, plan.document, plan.changes)) && checked;
    if (!checked) ctx.io.note(`note: ${merged.file} is not here as the plans were made from it, so their changes were checked against their digests only`);
    ctx.io.note(`merged the plans of ${plural(plans.length, 'shard')} (changes digest ${merged.changes_digest})`);
    return showPlan(ctx, planOfDocument('the merged plan', merged), merged, opts.out);
  },
});
