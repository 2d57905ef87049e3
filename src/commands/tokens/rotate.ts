import { resolve } from 'node:path';
import { defineCommand, type Context } from '../../cli/command.js';
import { ApiError, CliError, ExitCode, NetworkError, UsageError } from '../../errors.js';
import { parseDuration } from '../../cli/parse.js';
import {
  currentProfileToken, describeTargets, findRecovery, finishRecovery, fingerprint, HeldLocks, preflight, removeRecovery,
  saveEverywhere, selfLockPath, tokenLockPath, verifyToken, writeRecovery, type RecoveryRecord, type SaveTargets,
} from './rotation.js';
import {
  expiryFrom, parseTokenId, resolveTarget, targetOptions, warnStoreNow, withLevelName, withoutSecret,
  type TargetOptions, type TokenRecord, type TokenTarget,
} from './shared.js';

interface Options extends TargetOptions {
  id: string;
  expiresAt?: string;
  expiresIn?: string;
  saveToProfile?: string | true;
  outputFile?: string;
}

export default defineCommand<Options>({
  description: [
    'Safe for cron (contract §8): one run per token at a time (a second run exits 6 without calling the service), the',
    'rotate request is sent once and never retried, the new token goes to a recovery file (0600) the moment it',
    'arrives, then to the profile and/or file, is checked with a GET as itself, and the recovery file is removed.',
    'Exit 10: rotated but not saved (the recovery file is named; run `forgectl tokens recover`). Exit 8 after the',
    'request was sent: the outcome is unknown; do not run it again before checking. With a save target the token',
    'is not printed.',
  ].join(' '),
  examples: [
    'forgectl -p bot tokens rotate self --group acme --save-to-profile --yes',
    'forgectl tokens rotate 12 --project acme/api --expires-in 30d --output-file /etc/deploy/token --yes',
    'forgectl tokens rotate self --personal --expires-at 2026-06-30 --save-to-profile',
  ],
  args: ['<id>'],
  options: [
    ...targetOptions,
    { flags: '--expires-at <date>', description: 'expiry of the new token, YYYY-MM-DD, at most one year ahead (default: one week)' },
    { flags: '--expires-in <duration>', description: 'expiry as a duration from today: 30d, 8w', parse: (value: string) => (parseDuration('--expires-in')(value), value) },
    { flags: '--save-to-profile [name]', description: 'replace the token of the profile in use (or of NAME) with the new one; the token is then not printed' },
    { flags: '--output-file <path>', description: 'write the new token to this file (atomically, mode 0600)' },
  ],
  async run(opts, ctx) {
    const target = resolveTarget(opts);
    const id = parseTokenId(opts.id);
    const expiresAt = expiryFrom(opts, ctx.now());
    const connection = ctx.connection();
    const profile = opts.saveToProfile === true ? connection.profileName : opts.saveToProfile;
    if (opts.saveToProfile === true && !profile) {
      throw new UsageError('--save-to-profile: no profile is in use', 'name one: --save-to-profile NAME (it is created when missing)');
    }
    if (opts.saveToProfile === true && connection.tokenSource === 'environment' && id === 'self') {
      ctx.io.warn(`the token in use comes from FORGECTL_TOKEN; the new one is saved to profile "${profile}"`);
    }
    const targets: SaveTargets = { profile, outputFile: opts.outputFile ? resolve(opts.outputFile) : undefined };
    preflight(ctx, targets);
    await ctx.confirm(`Rotate ${target.describe(id)} (the old token stops working at once)?`);
    if (ctx.globals.dryRun) {
      await ctx.api.request({ method: 'POST', path: target.rotatePath(id), body: expiresAt ? { expires_at: expiresAt } : undefined, retry: 'never' });
      return undefined;
    }

    const locks = new HeldLocks();
    try {
      const instance = connection.rootUrl;
      // Locks first, before any request: a second run exits 6 without calling the service.
      if (id === 'self') locks.require(selfLockPath(ctx.configDir, instance, connection.token), target.describe('self'));
      else locks.require(tokenLockPath(ctx.configDir, instance, id), target.describe(id));

      // An interrupted rotation of this token is finished from its recovery file, never repeated: the old token is
      // revoked, and presenting it to rotate again would revoke the whole family.
      const pending = findRecovery(ctx.configDir, instance, id, connection.token);
      if (pending) return await finishPending(ctx, pending, targets, locks);

      const current = await currentState(ctx, target, id, profile);
      if (id === 'self') locks.require(tokenLockPath(ctx.configDir, instance, current.id), target.describe(current.id));
      if (current.revoked || !current.active) {
        throw new CliError(
          `${target.describe(current.id)} is ${current.revoked ? 'revoked' : 'inactive'}; not rotating it`,
          ExitCode.rejected,
          'rotating a revoked token again makes the service revoke every token of its family. If a rotation was interrupted, see forgectl tokens recover --list',
        );
      }

      const rotated = await sendRotate(ctx, target, id, expiresAt);
      const record: RecoveryRecord = {
        version: 1,
        created_at: ctx.now().toISOString(),
        instance,
        kind: target.kind,
        resource: target.resource,
        rotated_token_id: current.id,
        rotated_token_sha256: id === 'self' ? fingerprint(connection.token) : null,
        targets,
        token: rotated,
      };
      let recoveryFile: string | undefined;
      try {
        recoveryFile = writeRecovery(ctx.configDir, record);
      } catch (error) {
        ctx.io.warn(`could not write the recovery file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      }

      const failures = await saveEverywhere(ctx, targets, rotated.token!, instance);
      if (failures.length) {
        if (!recoveryFile) {
          // Nowhere else to keep it: handing it over on stdout beats locking the user out.
          await ctx.io.out(`${rotated.token}\n`);
        }
        throw new CliError(
          `${target.describe(current.id)} was rotated (new token ${rotated.id}) but could not be saved: ${failures.join('; ')}`,
          ExitCode.rotatedNotSaved,
          recoveryFile
            ? `the new token is in the recovery file ${recoveryFile} (mode 0600). Fix the cause, then run: forgectl tokens recover ${recoveryFile}. Do not rotate again: the old token is revoked`
            : 'the new token was printed on stdout: store it now. Do not rotate again: the old token is revoked',
        );
      }

      try {
        await verifyToken(ctx, target, rotated.token!);
      } catch (error) {
        const exitCode = error instanceof CliError ? error.exitCode : ExitCode.internal;
        throw new CliError(
          `${target.describe(current.id)} was rotated and saved, but the check as the new token failed: ${(error as Error).message}`,
          exitCode,
          recoveryFile ? `the recovery file ${recoveryFile} is kept; run: forgectl tokens recover ${recoveryFile}` : undefined,
        );
      }
      if (recoveryFile) removeRecovery(recoveryFile);

      const saved = describeTargets([targets]);
      ctx.io.note(`Rotated ${target.describe(current.id)}: new token ${rotated.id} expires ${rotated.expires_at ?? 'never'}${saved ? `, saved to ${saved}` : ''}; the old token is revoked`);
      if (saved) return withLevelName(withoutSecret(rotated));
      warnStoreNow(ctx);
      return withLevelName(rotated);
    } finally {
      locks.releaseAll();
    }
  },
});

async function finishPending(ctx: Context, pending: Parameters<typeof finishRecovery>[1], targets: SaveTargets, locks: HeldLocks) {
  ctx.io.warn(`a rotation of this token was interrupted on ${pending.record.created_at}; finishing it from ${pending.path} instead of rotating again`);
  const { token, saved } = await finishRecovery(ctx, pending, targets, locks);
  const where = describeTargets(saved);
  ctx.io.note(`Recovered token ${token.id} (expires ${token.expires_at ?? 'never'})${where ? `, saved to ${where}` : ''}; it was not rotated again`);
  if (where) return withLevelName(withoutSecret(token));
  warnStoreNow(ctx);
  return withLevelName(token);
}

/**
 * The token's state, read inside the lock right before rotating. For `self`, a 401 here means the credential was
 * revoked since this run read it: if another run holds the lock or already replaced the profile's token, that run
 * rotated it (exit 6).
 */
async function currentState(ctx: Context, target: TokenTarget, id: number | 'self', profile: string | undefined): Promise<TokenRecord> {
  try {
    return await readToken(ctx, target, id);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401 || id !== 'self') throw error;
    const connection = ctx.connection();
    const onDisk = currentProfileToken(ctx.configDir, profile ?? connection.profileName);
    if (onDisk && onDisk !== connection.token) {
      throw new CliError('the token in use was already rotated by another run: the profile holds a newer token', ExitCode.rejected, 'nothing was sent; run again to rotate the newer token');
    }
    throw new CliError(
      `the token in use is rejected (401): ${error.message}`,
      ExitCode.auth,
      'it is revoked or expired, so it cannot rotate itself. If a rotation was interrupted: forgectl tokens recover --list; otherwise create a new token',
    );
  }
}

/** A token's record; a token with only `self_rotate` may not read its group's API, but its own record is readable. */
async function readToken(ctx: Context, target: TokenTarget, id: number | 'self'): Promise<TokenRecord> {
  try {
    return await ctx.api.get<TokenRecord>(target.one(id));
  } catch (error) {
    if (id !== 'self' || target.kind === 'personal' || !(error instanceof ApiError) || error.status !== 403) throw error;
    return ctx.api.get<TokenRecord>('/personal_access_tokens/self');
  }
}

/** The one rotate request: never retried once it may have reached the server (contract §7, §8). */
async function sendRotate(ctx: Context, target: TokenTarget, id: number | 'self', expiresAt: string | undefined): Promise<TokenRecord> {
  const request = { method: 'POST', path: target.rotatePath(id), body: expiresAt ? { expires_at: expiresAt } : undefined, retry: 'never' as const };
  let data: TokenRecord | undefined;
  try {
    data = (await ctx.api.request<TokenRecord>(request)).data;
  } catch (error) {
    if (error instanceof NetworkError && !error.maybeProcessed) {
      throw new CliError(`the rotate request could not be sent: ${error.message}`, ExitCode.server, 'nothing changed on the server; it is safe to run the rotation again');
    }
    if (error instanceof ApiError && error.status < 500) throw error;
    throw unknownOutcome(target, id, error);
  }
  if (!data || typeof data.token !== 'string' || typeof data.id !== 'number') throw unknownOutcome(target, id, new Error('the answer holds no token'));
  return data;
}

function unknownOutcome(target: TokenTarget, id: number | 'self', cause: unknown): CliError {
  const what = target.describe(id);
  const flags = target.kind === 'personal' ? '--personal' : `--${target.kind} ${target.resource}`;
  return new CliError(
    `the outcome of rotating ${what} is unknown: ${(cause as Error).message ?? String(cause)}. The request was sent once and was NOT retried`,
    ExitCode.server,
    [
      'do not run the rotation again yet: if the service did rotate, the old token is revoked and presenting it again revokes every token of its family.',
      `Check with the old token: forgectl tokens get ${id} ${flags}. If it still works, nothing happened and you may rotate again.`,
      `If it gets 401, the rotation happened and the new value is lost: with an owner's credential run forgectl tokens list ${flags} --state active,`,
      'revoke the newest token of that name, and create a new one (forgectl tokens create).',
    ].join(' '),
  );
}
