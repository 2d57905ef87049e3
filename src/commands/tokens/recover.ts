import { resolve } from 'node:path';
import { defineCommand } from '../../cli/command.js';
import { ExitCode, UsageError } from '../../errors.js';
import { ResultWithExit } from '../../output/result.js';
import { describeTargets, finishRecovery, HeldLocks, listRecoveries, readRecovery, removeAbandonedPlaceholders, sweepFinished, type RecoveryRecord, type SaveTargets } from './rotation.js';
import { warnStoreNow, withLevelName, withoutSecret } from './shared.js';
import { plural } from '../../parse.js';

interface Options {
  file?: string;
  list?: boolean;
  saveToProfile?: string | true;
  outputFile?: string;
}

function summary(path: string, record: RecoveryRecord): Record<string, unknown> {
  return {
    file: path,
    created_at: record.created_at,
    instance: record.instance,
    kind: record.kind,
    resource: record.resource || null,
    rotated_token_id: record.rotated_token_id,
    new_token_id: record.token.id ?? null,
    name: record.token.name ?? null,
    expires_at: record.token.expires_at ?? null,
    save_to: describeTargets([record.targets]) || null,
  };
}

export default defineCommand<Options>({
  description: [
    'When a rotation could not save its new token (exit 10) or was killed after the service answered, the token is',
    'in a recovery file under the config folder. This checks that the token works, saves it where the rotation meant',
    'to (and where you add with --save-to-profile / --output-file), and removes the file. It never rotates. A file',
    'whose token every target already holds, or has replaced with a newer one, is finished: it is removed, and a',
    'newer token is never overwritten. --list shows the pending files (exit 9 when there are any).',
  ].join(' '),
  examples: [
    'forgectl tokens recover --list',
    'forgectl tokens recover ~/.config/forgectl/recovery/group-1a2b3c4d5e6f-12-2025-01-31T03-00-00-000Z.json',
    'forgectl tokens recover --save-to-profile bot',
  ],
  args: ['[file]'],
  options: [
    { flags: '--list', description: 'only list the pending recovery files' },
    { flags: '--save-to-profile [name]', description: 'also save into this profile (default: the one in use)' },
    { flags: '--output-file <path>', description: 'also write the token to this file (atomically, mode 0600)' },
  ],
  columns: ['created_at', 'kind', 'resource', 'rotated_token_id', 'new_token_id', 'name', 'save_to', 'file'],
  async run(opts, ctx) {
    if (opts.list && opts.file) throw new UsageError('give a file or --list, not both');
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
        ctx.io.note('no interrupted rotations');
        return [];
      }
      return new ResultWithExit(pending.map(({ path, record }) => summary(path, record)), ExitCode.attention, `${plural(pending.length, 'interrupted rotation')} to recover: forgectl tokens recover`);
    }
    if (!pending.length) {
      ctx.io.note('no interrupted rotations');
      return undefined;
    }
    const profile = opts.saveToProfile === true ? ctx.connection().profileName : opts.saveToProfile;
    if (opts.saveToProfile === true && !profile) throw new UsageError('--save-to-profile: no profile is in use', 'name one: --save-to-profile NAME');
    const extra: SaveTargets = { profile, outputFile: opts.outputFile ? resolve(opts.outputFile) : undefined };

    const locks = new HeldLocks();
    const results: Record<string, unknown>[] = [];
    try {
      for (const item of pending) {
        const { token, saved, alreadySaved } = await finishRecovery(ctx, item, extra, locks);
        const where = describeTargets(saved);
        if (alreadySaved) {
          ctx.io.note(`Token ${token.id ?? '?'} is saved already (or replaced by a newer token) where the rotation meant to save it; removed ${item.path}`);
          results.push(withLevelName(withoutSecret(token)));
          continue;
        }
        ctx.io.note(`Recovered token ${token.id ?? '?'} "${token.name ?? ''}" (expires ${token.expires_at ?? 'never'})${where ? `, saved to ${where}` : ''}; removed ${item.path}`);
        if (!where) warnStoreNow(ctx);
        results.push(withLevelName(where ? withoutSecret(token) : token));
      }
    } finally {
      locks.releaseAll();
    }
    return opts.file ? results[0] : results;
  },
});
