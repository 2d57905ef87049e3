import { resolve } from 'node:path';
import { ExitCode, UsageError } from '../../errors.js';
import { ResultWithExit } from '../../output/result.js';
import { defineCommand, type Context } from '../../cli/command.js';
import {
  describeTargets, finishRecovery, HeldLocks, listRecoveries, readRecovery, removeAbandonedPlaceholders, sweepFinished, writeSecretFile, type Recovery, type RecoveryRecord,
  type SaveTargets,
} from './rotation.js';
import { targetName } from './save-targets.js';
import { warnStoreNow } from './shared.js';
import { assertSecretPrinted } from '../new-secret.js';
import { plural } from '../../parse.js';

interface Options {
  file?: string;
  list?: boolean;
  saveToProfile?: string | true;
  outputFile?: string;
  drop?: string[];
}

/** One row per recovery file: what was rotated, the new token (never its value), where it goes, and what happened. */
function summary(path: string, record: RecoveryRecord, result: string, savedTo?: string): Record<string, unknown> {
  return {
    created_at: record.created_at,
    instance: record.instance,
    kind: record.kind,
    resource: record.resource || null,
    rotated_token_id: record.rotated_token_id,
    new_token_id: record.token.id ?? null,
    name: record.token.name ?? null,
    expires_at: record.token.expires_at ?? null,
    save_to: (savedTo ?? describeTargets([record.targets])) || null,
    result,
    file: path,
  };
}

/** The targets of a recovery file by the names a user may give to --drop: as given to --save-to, or as listed. */
function targetsOf(record: RecoveryRecord): Array<{ names: string[]; label: string; remove: (targets: SaveTargets) => void }> {
  const { targets } = record;
  const found: Array<{ names: string[]; label: string; remove: (targets: SaveTargets) => void }> = [];
  if (targets.profile) found.push({ names: [`profile:${targets.profile}`, `profile "${targets.profile}"`], label: `profile "${targets.profile}"`, remove: (t) => delete t.profile });
  if (targets.outputFile) found.push({ names: [`file:${targets.outputFile}`, `file ${targets.outputFile}`], label: `file ${targets.outputFile}`, remove: (t) => delete t.outputFile });
  for (const extra of targets.extra ?? []) {
    const spec = 'ciVar' in extra ? extra.ciVar.spec : extra.exec.spec;
    found.push({ names: [spec, targetName(extra)], label: targetName(extra), remove: (t) => (t.extra = t.extra?.filter((other) => other !== extra)) });
  }
  return found;
}

/**
 * --drop: takes targets that will never work (a helper that is gone, a project deleted) out of recovery files, after
 * asking. The file is rewritten atomically (0600); a file left with no target hands its token over when recovered.
 */
async function dropTargets(ctx: Context, pending: Recovery[], drops: string[]): Promise<void> {
  const plan: Array<{ item: Recovery; labels: string[]; removals: Array<(targets: SaveTargets) => void> }> = [];
  const unmatched = new Set(drops);
  for (const item of pending) {
    const hits = targetsOf(item.record).filter((target) => target.names.some((name) => drops.includes(name)));
    for (const hit of hits) for (const name of hit.names) unmatched.delete(name);
    if (hits.length) plan.push({ item, labels: hits.map((hit) => hit.label), removals: hits.map((hit) => hit.remove) });
  }
  if (unmatched.size) {
    const known = pending.flatMap((item) => targetsOf(item.record).map((target) => target.names[0]));
    throw new UsageError(`--drop ${[...unmatched].join(', ')}: no pending recovery has that target`, known.length ? `targets: ${known.join(', ')}` : 'no recovery file has targets');
  }
  const what = plan.map(({ item, labels }) => `${labels.join(' and ')} of token ${item.record.token.id ?? '?'} (${item.path})`).join('; ');
  await ctx.confirm(`Drop ${what}? The recovered token is never written there`);
  for (const { item, removals } of plan) {
    const targets: SaveTargets = { ...item.record.targets, ...(item.record.targets.extra ? { extra: [...item.record.targets.extra] } : {}) };
    for (const remove of removals) remove(targets);
    item.record = { ...item.record, targets };
    writeSecretFile(item.path, `${JSON.stringify(item.record, null, 2)}\n`);
  }
  ctx.io.note(`Dropped ${what}`);
}

/**
 * No recovery file, and what that means after a rotation whose outcome is unknown (its new token never arrived): said
 * without alarm, as this is also what a healthy setup answers; the rejected token's own hint says what to do.
 */
const NOTHING_PENDING = 'no interrupted rotations: no recovery file holds a new token (a rotation that ended with exit 8, outcome unknown, leaves none: its new token never arrived, and cannot be recovered)';

export default defineCommand<Options>({
  description: [
    'When a rotation could not save its new token (exit 10) or was killed after the service answered, the token is',
    'in a recovery file under the config folder. This checks that the token works, saves it where the rotation meant',
    'to (and where you add with --save-to-profile / --output-file), and removes the file. It never rotates. A file',
    'whose token every target already holds, or has replaced with a newer one, is finished: it is removed, and a',
    'newer token is never overwritten. --list shows the pending files (exit 9 when there are any). --drop TARGET takes',
    'a target that will never work out of the pending files (asks first): as given to --save-to (exec:…, ci-var:…), or',
    'profile:NAME, file:PATH; a file left with no target hands its token over on stdout.',
  ].join(' '),
  exits: { 9: 'with --list: interrupted rotations wait to be recovered' },
  examples: [
    'forgectl tokens recover --list',
    'forgectl tokens recover ~/.config/forgectl/recovery/group-1a2b3c4d5e6f-12-2025-01-31T03-00-00-000Z.json',
    'forgectl tokens recover --save-to-profile bot',
    "forgectl tokens recover --drop 'exec:pass insert -m forge/bot' --yes",
  ],
  args: ['[file]'],
  options: [
    { flags: '--list', description: 'only list the pending recovery files' },
    { flags: '--save-to-profile [name]', description: 'also save into this profile (default: the one in use)' },
    { flags: '--output-file <path>', description: 'also write the token to this file (atomically, mode 0600)' },
    { flags: '--drop <target>', description: 'never write the token to this target (asks first): exec:COMMAND, ci-var:PATH/KEY, profile:NAME or file:PATH; repeatable', parse: (value: string, previous: string[] = []) => [...previous, value] },
  ],
  columns: ['created_at', 'kind', 'resource', 'rotated_token_id', 'new_token_id', 'name', 'expires_at', 'save_to', 'result', 'file', 'token'],
  async run(opts, ctx) {
    if (opts.list && opts.file) throw new UsageError('give a file or --list, not both');
    if (opts.list && opts.drop) throw new UsageError('--drop changes the files: leave out --list');
    if (!opts.file) {
      const finished = await sweepFinished(ctx.configDir);
      if (finished.length) ctx.io.note(`removed ${plural(finished.length, 'finished recovery file')}: their token is saved already (or replaced by a newer one)`);
      const locks = new HeldLocks();
      removeAbandonedPlaceholders(ctx.configDir, locks);
      locks.releaseAll();
    }
    const pending = opts.file ? [{ path: resolve(opts.file), record: readRecovery(resolve(opts.file)) }] : listRecoveries(ctx.configDir);
    if (opts.list) {
      if (!pending.length) {
        ctx.io.note(NOTHING_PENDING);
        return [];
      }
      return new ResultWithExit(pending.map(({ path, record }) => summary(path, record, 'pending')), ExitCode.attention, `${plural(pending.length, 'interrupted rotation')} to recover: forgectl tokens recover`);
    }
    if (!pending.length) {
      ctx.io.note(NOTHING_PENDING);
      return undefined;
    }
    const profile = opts.saveToProfile === true ? ctx.connection().profileName : opts.saveToProfile;
    if (opts.saveToProfile === true && !profile) throw new UsageError('--save-to-profile: no profile is in use', 'name one: --save-to-profile NAME');
    const extra: SaveTargets = { profile, outputFile: opts.outputFile ? resolve(opts.outputFile) : undefined };
    if (opts.drop?.length) await dropTargets(ctx, pending, opts.drop);
    // A token saved nowhere is handed over on stdout, and its file removed: it must reach stdout whole first.
    const printed = !extra.profile && !extra.outputFile && pending.some((item) => !describeTargets([item.record.targets]));
    if (printed) await assertSecretPrinted(ctx, 'save it with --output-file FILE or --save-to-profile NAME');

    const locks = new HeldLocks();
    const results: Record<string, unknown>[] = [];
    try {
      for (const item of pending) {
        const { token, saved, alreadySaved } = await finishRecovery(ctx, item, extra, locks);
        const where = describeTargets(saved);
        if (alreadySaved) {
          ctx.io.note(`Token ${token.id ?? '?'} is saved already (or replaced by a newer token) where the rotation meant to save it; removed ${item.path}`);
          results.push(summary(item.path, item.record, 'saved already'));
          continue;
        }
        ctx.io.note(`Recovered token ${token.id ?? '?'} "${token.name ?? ''}" (expires ${token.expires_at ?? 'never'})${where ? `, saved to ${where}` : ''}; removed ${item.path}`);
        if (!where) warnStoreNow(ctx);
        // Saved nowhere (the rotation had no target): handing the token over is the point.
        results.push({ ...summary(item.path, item.record, 'recovered', where), ...(where ? {} : { token: token.token }) });
      }
    } finally {
      locks.releaseAll();
    }
    return opts.file ? results[0] : results;
  },
});
