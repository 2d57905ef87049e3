import { dirname, resolve } from 'node:path';
import type { TokenRecord } from '../../resources/access-tokens/values.js';
import { accessTokens } from '../../resources/access-tokens/resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { tokenOrigin, type Connection } from '../../config/resolve.js';
import { readConfig, type Profile } from '../../config/store.js';
import { loadStoredToken } from '../../config/keyring.js';
import { ApiError, CliError, ConfigError, ExitCode, UsageError } from '../../errors.js';
import { parseDuration, plural } from '../../parse.js';
import { ResultWithExit } from '../../output/result.js';
import { interrupted, Interrupts, type Signal } from './interrupts.js';
import { parseSaveTo, preflightCiVar, targetName, type ExtraTarget } from './save-targets.js';
import { sendRotate, sendSuccessor, unknownOutcome, warmUp } from './rotate-request.js';
import { assertPrintTarget, assertSecretPrinted } from '../new-secret.js';
import {
  currentProfileToken, describeTargets, findRecovery, finishRecovery, fingerprint, HeldLocks, preflight, RecoveryFile, removeAbandonedPlaceholders, saveEverywhere,
  selfLockPath, sweepFinished, targetFingerprints, tokenLockPath, unwritableHint, verifyToken, type NewToken, type Recovery, type SaveProgress, type SaveTargets,
} from './rotation.js';
import {
  afterRotationHint, confirmedBeforeReading, describeToken, expiryFrom, lifetimeOf, resolveTarget, selfElsewhere, targetOptions, tokenIdOf, warnStoreNow, withLevelName, withoutSecret,
  lostRotationCheck, type RotatableKind, type TargetOptions, type TokenTarget,
} from './shared.js';

interface Options extends TargetOptions {
  id: string;
  expiresAt?: string;
  expiresIn?: string;
  saveToProfile?: string | boolean;
  outputFile?: string;
  overlap?: string;
  saveTo?: ExtraTarget[];
  printToken?: boolean;
}

/** How long a run interrupted while its rotate request is in flight still waits for the answer (and the token). */
export const ANSWER_GRACE_MS = 3000;

export default defineCommand<Options>({
  description: [
    'Needs the Owner role of the group or the Maintainer role of the project for a token by id (rotating self needs',
    'only the api or self_rotate scope).',
    'Safe for cron: one run per token at a time (a second run exits 6 without calling the service), the token is',
    'read again after the last lock, the rotate request is sent once and never retried (a 429, a refusal the service',
    'did not act on, is waited out within --retries, the lock held meanwhile), the new token goes to a',
    'recovery file (0600) the moment it arrives, then to the file, the profile and each --save-to target in order,',
    'each write verified, and is checked with a GET as itself. Rotating `self` saves the new token to the profile in',
    'use (where it keeps it: the config file or the OS keyring) unless --no-save-to-profile says otherwise.',
    '--save-to ci-var:PROJECT_OR_GROUP/KEY writes a CI/CD variable: one that exists gets the new value and keeps its',
    'settings; a new one is created masked, hidden and protected (a path with a slash is looked up as a project, then',
    'a group); settings in the target change that, and what changes is shown: ?scope=ENV, protected=false,',
    'hidden=false, masked=, raw=, type=file. A hidden variable cannot be read back, so its write is verified by the',
    'service\'s answer, a visible one by reading it back; and a hidden variable is never the only copy of the new',
    'token (exit 2, nothing sent): save it to a profile, a file, a helper or a visible variable as well. --save-to',
    'exec:COMMAND runs COMMAND with sh -c, the token and a newline on its stdin, FORGECTL_ROTATED_ACTION=store and',
    'FORGECTL_ROTATED_NAME, _ID, _EXPIRES_AT, _INSTANCE and _SHA256 in its environment; exit 0 means stored.',
    '--overlap DURATION creates a successor of the same name, scopes and role instead and leaves the old token',
    'working; the first run after the overlap (the same cron line, on any machine) revokes the older tokens of that',
    'name (it needs a token that may manage tokens there: Owner of a group, Maintainer of a project).',
    'Exit 10: rotated but not saved everywhere (stderr names what was and was not updated, and the recovery file;',
    'run `forgectl tokens recover`, or let the next run finish it). Exit 9: rotated and saved, but the check as the',
    'new token failed. Exit 8 after the request was sent: the outcome is unknown; do not run it again before',
    'checking. Exit 130/143 on SIGINT/SIGTERM, saying what was left undone. With a save target the token is not printed;',
    'without one it is printed on stdout, except in a CI job off a terminal (CI set), whose stdout is the job log, and when',
    'rotating self off a terminal (a token from FORGECTL_TOKEN or a token_command, or --no-save-to-profile: the next run',
    'would present the revoked token): there the run stops before sending anything (exit 2) unless --print-token says',
    'stdout is captured.',
  ].join(' '),
  exits: {
    6: 'another run is rotating this token (nothing was sent)',
    8: 'the rotate request was sent and its outcome is unknown: check before running it again',
    9: 'rotated and saved, but the check as the new token failed',
    10: 'rotated, but not saved everywhere asked: the new token is in the recovery file named on stderr (forgectl tokens recover)',
  },
  examples: [
    'forgectl -p bot tokens rotate self --group acme --expires-in 30d --yes',
    'forgectl -p bot tokens rotate self --group acme --save-to ci-var:acme/BOT_TOKEN --yes',
    "forgectl tokens rotate 5 --project acme/api --overlap 1d --save-to 'ci-var:acme/api/DEPLOY_TOKEN?scope=production' --yes",
    'forgectl tokens rotate 5 --project acme/api --expires-in 30d --output-file deploy.token --yes',
    'forgectl tokens rotate self --personal --expires-in 30d --save-to-profile',
    "forgectl tokens rotate 7 --service-account service_account_deploy --save-to 'ci-var:acme/DEPLOY_BOT_TOKEN?hidden=false' --yes",
  ],
  args: ['<id>'],
  options: [
    ...targetOptions,
    { flags: '--expires-at <date>', description: 'expiry of the new token, YYYY-MM-DD, at most one year ahead (default: the lifetime of the old token, from today)' },
    { flags: '--expires-in <duration>', description: 'expiry as a duration from today: 30d, 8w', parse: (value: string) => (parseDuration('--expires-in')(value), value) },
    { flags: '--save-to-profile [name]', description: 'replace the token of the profile in use (or of NAME) with the new one; the token is then not printed (rotating self does it without the flag)' },
    { flags: '--no-save-to-profile', description: 'rotating self: do not save the new token to the profile in use' },
    { flags: '--output-file <path>', description: 'write the new token to this file (atomically, mode 0600)' },
    {
      flags: '--save-to <target>',
      description: 'also save it to ci-var:PROJECT_OR_GROUP/KEY[?scope=ENV&protected=false…] (a CI/CD variable: an existing one keeps its settings, a new one is masked, hidden and protected) or exec:COMMAND (a helper that gets it on stdin); repeatable',
      parse: parseSaveTo,
    },
    {
      flags: '--overlap <duration>',
      description: 'keep the old token valid this long (1d, 12h): a successor of the same name, scopes and role is created instead, and the first run after the overlap revokes the older tokens of that name (group and project tokens, and those of service accounts)',
      parse: (value: string) => (parseDuration('--overlap')(value), value),
    },
    { flags: '--print-token', description: 'without a save target, print the new token where it is otherwise refused: in a CI job (stdout is the job log, readable by everyone with access to the project) and rotating self off a terminal; only when stdout is captured and stored' },
  ],
  async run(opts, ctx) {
    const given = resolveTarget(opts, opts.id);
    const id = tokenIdOf(given, 'rotate', opts.id);
    const expiresAt = expiryFrom(opts, ctx.now());
    const connection = ctx.connection();
    const profile = profileTarget(opts, connection, id, ctx);
    const overlapMs = opts.overlap === undefined ? undefined : parseDuration('--overlap')(opts.overlap);
    if (overlapMs !== undefined && given.kind === 'personal') {
      throw new UsageError('--overlap works with group and project tokens and those of service accounts', 'the service lets only administrators create personal tokens for a user; rotate personal tokens without --overlap');
    }
    const targets: SaveTargets = { profile, outputFile: opts.outputFile ? resolve(opts.outputFile) : undefined, ...(opts.saveTo?.length ? { extra: opts.saveTo } : {}) };
    await preflight(ctx, targets);
    await assertHandedOver(ctx, targets, opts.printToken, id === 'self' ? tokenOrigin(connection.tokenSource, connection.profileName) : undefined);

    await confirmedBeforeReading(ctx, `Rotate ${given.describe(id)}${overlapMs === undefined ? ' (the old token stops working at once)' : `, keeping the old token valid for ${opts.overlap}`}?`);

    // A service account is looked up by name now: a read, after the question off a terminal, before any lock.
    const rotation = new Rotation(ctx, connection, await given.resolved(ctx.api), id, targets, overlapMs);
    try {
      return await rotation.run(expiresAt, opts.overlap);
    } finally {
      rotation.dispose();
    }
  },
});

/**
 * Before anything is sent: without a save target the new token is printed, so it must be printed whole (--fields,
 * --jq, --template keep token); in a CI job only when --print-token says stdout is not the job log; and when the run
 * rotates its own credential (`revoked`: where it came from), off a terminal only with --print-token: stdout there
 * is a cron log or mail, and the next run would present the revoked token.
 */
async function assertHandedOver(ctx: Context, targets: SaveTargets, printToken: boolean | undefined, revoked: string | undefined): Promise<void> {
  const where = describeTargets([targets]);
  const elsewhere = 'save it with --output-file FILE, --save-to ci-var:PROJECT_OR_GROUP/KEY or exec:COMMAND, or --save-to-profile';
  assertPrintTarget(ctx, printToken, where || false, elsewhere);
  if (where) return;
  if (revoked && !printToken && !ctx.io.stdoutIsTTY) {
    throw new UsageError(
      `rotating self revokes the token in use (${revoked}) and no save target takes the new one: off a terminal it would only be printed on stdout, and the next run would present the revoked token; nothing was sent`,
      `save it where the token comes from (--save-to exec:COMMAND runs a helper that stores it; or --output-file FILE, --save-to-profile NAME); or, if stdout is captured and stored, give --print-token`,
    );
  }
  await assertSecretPrinted(ctx, elsewhere);
}

/**
 * The profile the new token is saved to: NAME, or the profile in use with a bare --save-to-profile. Rotating `self`
 * without the flag saves to the profile the token came from: the rotation revokes the token that profile holds.
 */
function profileTarget(opts: Options, connection: Connection, id: number | 'self', ctx: Context): string | undefined {
  const option = opts.saveToProfile;
  if (option === false) return undefined;
  if (typeof option === 'string') return option;
  if (option === true) {
    if (!connection.profileName) throw new UsageError('--save-to-profile: no profile is in use', 'name one: --save-to-profile NAME (it is created when missing)');
    if (connection.tokenSource === 'environment' && id === 'self') ctx.io.warn(`the token in use comes from FORGECTL_TOKEN; the new one is saved to profile "${connection.profileName}"`);
    return connection.profileName;
  }
  if (id !== 'self') return undefined;
  if (connection.tokenSource === 'profile' || connection.tokenSource === 'keyring') return connection.profileName;
  const elsewhere = opts.outputFile !== undefined || opts.saveTo?.some((target) => 'exec' in target);
  if (connection.tokenSource === 'token_command' && !elsewhere) {
    ctx.io.warn(`profile "${connection.profileName}" takes its token from token_command, which forgectl cannot update: save the new token where that command reads it (--save-to exec:COMMAND, or --output-file)`);
  }
  return undefined;
}

/** One run of `tokens rotate`, step by step, holding its locks and watching for signals throughout. */
class Rotation {
  private readonly locks = new HeldLocks();
  private readonly interrupts: Interrupts;
  private readonly instance: string;

  constructor(
    private readonly ctx: Context,
    private readonly connection: Connection,
    private readonly target: TokenTarget<RotatableKind>,
    private readonly id: number | 'self',
    private readonly targets: SaveTargets,
    private readonly overlapMs?: number,
  ) {
    this.instance = connection.rootUrl;
    this.interrupts = new Interrupts(ctx);
  }

  dispose(): void {
    this.locks.releaseAll();
  }

  async run(expiry: string | undefined, overlap: string | undefined): Promise<unknown> {
    const { ctx, target, id, targets, instance, connection } = this;
    // Locks first, before any request: a second run exits 6 without calling the service.
    if (id === 'self') this.locks.require(selfLockPath(ctx.configDir, instance, connection.token), target.describe('self'));
    else this.locks.require(tokenLockPath(ctx.configDir, instance, id), target.describe(id));

    // Recovery files whose token is saved already are done, and empty ones left by runs killed in flight are litter.
    // An interrupted rotation of this token is finished from its file, never repeated (and before the targets are
    // checked: the token in use may be the revoked one): presenting the old token to rotate again revokes the family.
    await sweepFinished(ctx.configDir);
    removeAbandonedPlaceholders(ctx.configDir, this.locks);
    const pending = findRecovery(ctx.configDir, instance, id === 'self' ? { credential: connection.token } : { id });
    if (pending) return this.finishPending(pending);

    await this.beforeSend(this.checkTargets());
    let current = await this.beforeSend(this.currentState(false));
    this.assertRotatable(current);
    const expiresAt = expiry ?? this.keptLifetime(current);
    await ctx.confirm(this.overlapMs === undefined
      ? `Rotate ${describeToken(target, current, id === 'self')} (the old token stops working at once)?`
      : `Rotate ${describeToken(target, current, id === 'self')}, keeping the old token valid for ${overlap}?`);
    if (ctx.globals.dryRun) {
      // The writes depend on the answer, so they cannot be shown as requests: name them.
      const where = describeTargets([targets]);
      if (where) ctx.io.note(`after the request below, the new token would be saved to ${where}, each write verified`);
      if (this.overlapMs !== undefined) await ctx.api.call(target.route('create'), { ...target.createParams(), name: current.name, expires_at: expiresAt }, { retry: 'never' });
      else await ctx.api.call(target.route('rotate'), { ...target.params(id), expires_at: expiresAt }, { retry: 'never' });
      return undefined;
    }
    if (id === 'self') {
      this.locks.require(tokenLockPath(ctx.configDir, instance, current.id), target.describe(current.id));
      // A rotation by id may have run between the read above and this lock: look again before sending anything.
      const byId = findRecovery(ctx.configDir, instance, { id: current.id });
      if (byId) return this.finishPending(byId);
      await this.assertProfilesUnchanged();
      current = await this.beforeSend(this.currentState(true));
      this.assertRotatable(current);
    }

    if (this.overlapMs !== undefined) await this.beforeSend(this.revokeEnded(current, this.overlapMs));

    removeAbandonedPlaceholders(ctx.configDir, this.locks);
    const recovery = new RecoveryFile(ctx.configDir, {
      version: 1,
      created_at: ctx.now().toISOString(),
      instance,
      kind: target.kind,
      resource: target.resource,
      ...(target.account ? { service_account: target.account } : {}),
      rotated_token_id: current.id,
      rotated_token_sha256: id === 'self' ? fingerprint(connection.token) : null,
      targets,
      previous: await targetFingerprints(ctx.configDir, targets),
    });
    recovery.open();
    if (recovery.failure) throw new UsageError(`cannot keep the new token in the recovery folder: cannot create ${recovery.path}: ${recovery.failure}`, unwritableHint(dirname(recovery.path)));
    try {
      warmUp(recovery);
      this.interrupts.checkpoint(notSent);
      const answer = this.overlapMs === undefined ? sendRotate(ctx, target, id, expiresAt, recovery) : sendSuccessor(ctx, target, current, expiresAt, recovery);
      const { token: received, cutShort } = await this.interrupts.race(answer, (signal) => this.stopInFlight(signal, answer, recovery));
      return await this.keep(current, received, cutShort, recovery);
    } finally {
      recovery.finish(false);
    }
  }

  /**
   * Without --expires-*: the new token lives as long as the old one did (from its creation to its expiry), from today,
   * at most the service's year. A cron job rotating monthly must not get the service's default of a week. Said on
   * stderr either way.
   */
  private keptLifetime(current: TokenRecord): string | undefined {
    const kept = lifetimeOf(current, this.ctx.now());
    if (!kept) {
      this.ctx.io.note(`${this.target.describe(current.id)} never expires: the new token gets the service's default expiry (one week on many versions); --expires-in or --expires-at sets another`);
      return undefined;
    }
    this.ctx.io.note(`the new token expires on ${kept.expiresAt}: the lifetime of the old one (${plural(kept.days, 'day')}); --expires-in or --expires-at sets another`);
    return kept.expiresAt;
  }

  /** A revoked or inactive token is never presented to rotate: the service would revoke its whole family. */
  private assertRotatable(current: TokenRecord): void {
    if (!current.revoked && current.active) return;
    throw new CliError(
      `${this.target.describe(current.id)} is ${current.revoked ? 'revoked' : 'inactive'}; not rotating it`,
      ExitCode.rejected,
      `rotating a revoked token again makes the service revoke every token of its family. ${afterRotationHint(this.target.flags)}`,
    );
  }

  /**
   * Before anything is sent: each CI/CD variable is looked up (where it lives, that the caller may write there, which
   * settings change), and a copy someone can read is among the targets whenever a hidden variable is: a hidden
   * variable as the only copy of the new token is one failed job away from a lockout nobody can undo.
   */
  private async checkTargets(): Promise<void> {
    const { ctx, targets } = this;
    const hidden: string[] = [];
    let readable = Boolean(targets.profile || targets.outputFile);
    for (const extra of targets.extra ?? []) {
      if (!('ciVar' in extra)) {
        readable = true; // a helper stores it where its owner reads it (a password manager)
        continue;
      }
      const check = await preflightCiVar(ctx.api, extra.ciVar);
      for (const note of check.notes) ctx.io.warn(note);
      if (check.readable) readable = true;
      else hidden.push(targetName(extra));
    }
    if (!hidden.length || readable) return;
    const fromEnvironment = this.id === 'self' && this.connection.tokenSource === 'environment';
    const why = fromEnvironment
      ? 'the token in use comes from FORGECTL_TOKEN, so there is no profile to save the new one to, and '
      : this.id === 'self' && this.connection.profileName && this.connection.tokenSource !== 'token_command' ? '--no-save-to-profile leaves the profile out, and ' : '';
    throw new UsageError(
      `${why}${hidden.join(' and ')} ${hidden.length > 1 ? 'are' : 'is'} hidden: nobody can read ${hidden.length > 1 ? 'them' : 'it'} back, and ${hidden.length > 1 ? 'they' : 'it'} would hold the only copy of the new token; nothing was sent`,
      `save a copy that can be read as well: --save-to-profile NAME, --output-file PATH, --save-to exec:COMMAND, or a visible variable (add hidden=false to a new one: ci-var:PATH/KEY?hidden=false)${fromEnvironment ? '; then point FORGECTL_TOKEN at it' : ''}`,
    );
  }

  /** After the answer: save where asked, drop the recovery file, check the token as itself. */
  private async keep(rotatedFrom: TokenRecord, received: NewToken, cutShort: boolean, recovery: RecoveryFile): Promise<unknown> {
    const { ctx, target, targets, interrupts } = this;
    const what = target.describe(rotatedFrom.id);
    if (interrupts.received) throw await this.stoppedAfterAnswer(interrupts.received, received, recovery);
    if (cutShort) ctx.io.warn('the answer to the rotate request was cut short after the new token arrived; continuing with the token');
    if (!recovery.holdsToken) ctx.io.warn(`could not write the recovery file ${recovery.path}: ${recovery.failure ?? 'it was removed'}`);

    // The rotated token was the credential in use: without an overlap it is revoked now, so variables are written as the new one.
    const writer = this.id === 'self' ? ctx.apiWithToken(received.token) : ctx.api;
    const progress: SaveProgress = { saved: [], failures: [], left: [] };
    const saving = saveEverywhere(ctx, targets, received.token, this.instance, {
      api: writer, token: received, instance: this.instance, recoveryPath: recovery.holdsToken ? recovery.path : undefined,
    }, { progress, stopped: () => interrupts.received !== undefined });
    const { failures, saved: updated } = await interrupts.race(saving, (signal) => this.stopSaving(signal, saving, progress, received, recovery));
    if (failures.length) {
      const kept = recovery.holdsToken;
      // Nowhere else to keep it: handing it over on stdout beats locking the user out.
      if (!kept) await ctx.io.out(`${received.token}\n`);
      throw new CliError(
        `${what} was rotated${received.id ? ` (new token ${received.id})` : ''} but could not be saved everywhere: not updated: ${failures.join('; ')}${updated.length ? `; updated: ${updated.join(', ')}` : ''}`,
        ExitCode.rotatedNotSaved,
        kept
          ? `the new token is in the recovery file ${recovery.path} (mode 0600). Fix the cause, then run: forgectl tokens recover ${recovery.path} (it writes only what is not updated yet). Do not rotate again${this.overlapMs === undefined ? ': the old token is revoked' : ''}`
          : 'the recovery file could not be written either, so the new token was printed on stdout: store it now. Do not rotate again: the old token is revoked',
      );
    }
    const saved = describeTargets([targets]);
    // Saved everywhere asked: the recovery file has done its job, whatever the check below finds.
    if (saved) recovery.finish(true);

    const check = verifyToken(ctx, target, received.token).then((record) => ({ record }), (error: unknown) => ({ error }));
    const checked = await interrupts.race(check, async (signal) => {
      throw saved
        ? interrupted(signal, `while checking the new token: it is saved to ${saved}, but was not checked`, `see whether it works: ${this.checkCommand()}`)
        : await this.stoppedAfterAnswer(signal, received, recovery);
    });
    const rotated: NewToken = { ...received, ...('record' in checked ? checked.record : {}), token: received.token };
    const output = withLevelName(saved ? withoutSecret(rotated) : rotated);
    recovery.finish(true); // handed over: saved, or printed below
    if ('error' in checked) return new ResultWithExit(output, ExitCode.attention, this.checkFailed(what, saved, checked.error));

    const old = this.overlapMs === undefined
      ? 'the old token is revoked'
      : `the old token stays valid until ${new Date(ctx.now().getTime() + this.overlapMs).toISOString()}; the first run after that revokes it`;
    ctx.io.note(`Rotated ${what}: new token ${rotated.id ?? '?'} expires ${rotated.expires_at ?? 'never'}${saved ? `, saved to ${updated.join(', ')}` : ''}; ${old}`);
    if (!saved) warnStoreNow(ctx);
    if (!saved && this.id === 'self' && this.connection.tokenSource === 'environment') {
      ctx.io.warn('the token in use came from FORGECTL_TOKEN and is revoked now: put the new one (on stdout) where FORGECTL_TOKEN comes from');
    }
    return output;
  }

  /**
   * With --overlap: the active tokens of the same name older than the one being rotated are its predecessors. Every
   * consumer has held the current token since it was made, so once the overlap has passed since then, they are
   * revoked. Newer tokens of the name are left alone: an answer lost on the way (nobody holds it) is revoked by a
   * later run, once it is older than the token in use; by id, a newer token means this one was rotated already.
   */
  private async revokeEnded(current: TokenRecord, overlapMs: number): Promise<void> {
    const { ctx, target } = this;
    const same: TokenRecord[] = [];
    for await (const token of ctx.api.list<TokenRecord>(target.route('list'), { ...target.params(), state: 'active', search: current.name }, { all: true })) {
      if (token.name === current.name && token.id !== current.id) same.push(token);
    }
    const older = (token: TokenRecord): boolean => String(token.created_at) < String(current.created_at) || (token.created_at === current.created_at && token.id < current.id);
    const newer = same.filter((token) => !older(token));
    if (newer.length && this.id !== 'self') {
      throw new CliError(
        `${target.describe(current.id)} has a newer token of the same name (${newer.map((t) => t.id).join(', ')}): it was rotated with an overlap already; nothing was sent`,
        ExitCode.rejected,
        `rotate the newest one, or rotate the token in use from cron: forgectl tokens rotate self ${target.flags} --overlap …`,
      );
    }
    for (const token of newer) ctx.io.warn(`token ${token.id} "${token.name}" is newer than the token in use: a successor whose answer was lost? A later run revokes it; or now: forgectl tokens revoke ${token.id} ${target.flags} --yes`);
    const endsAt = Date.parse(String(current.created_at)) + overlapMs;
    const predecessors = same.filter(older);
    if (!predecessors.length) return;
    if (ctx.now().getTime() < endsAt) {
      ctx.io.note(`${plural(predecessors.length, 'older token')} of "${current.name}" (${predecessors.map((t) => t.id).join(', ')}) stay${predecessors.length === 1 ? 's' : ''} valid until ${new Date(endsAt).toISOString()} (the overlap)`);
      return;
    }
    for (const token of predecessors) {
      await ctx.api.call(target.route('delete'), target.params(token.id));
      ctx.io.note(`Revoked token ${token.id} "${token.name}" (created ${token.created_at}): its successor has been in use since ${current.created_at}, longer than the overlap`);
    }
  }

  /** Rotated and saved, but the GET as the new token failed: not an unknown outcome, and not a lost token. */
  private checkFailed(what: string, saved: string, error: unknown): string {
    const message = (error as Error).message;
    const reason = error instanceof ApiError && !message.includes(String(error.status)) ? `${message} (${error.status})` : message;
    const where = saved ? `rotated and saved to ${saved}` : 'rotated (the new token is printed on stdout)';
    return [
      `warning: ${what} was ${where}, but the check as the new token failed: ${reason}`,
      `hint: the old token is revoked and the new one is kept; do not rotate again before checking it: ${this.checkCommand()}.`
        + ' A 401 there means the service revoked it (another run presented the old token to rotate, which revokes the whole family): then create a new token.',
    ].join('\n');
  }

  /** Another run rotated this token: exit 6, nothing sent. */
  private rotatedElsewhere(detail: string): CliError {
    return new CliError(`the token in use was already rotated by another run${detail}`, ExitCode.rejected, 'nothing was sent; the next run rotates the newer token');
  }

  /**
   * Exit 6 when a profile this run reads or writes holds another token than when the run started (exit 3 when the
   * config cannot be read any more: the save would fail after the rotation).
   */
  private async assertProfilesUnchanged(): Promise<void> {
    const started = this.ctx.readConfig();
    const now = readConfig(this.ctx.configDir);
    const fromProfile = this.connection.tokenSource === 'profile' || this.connection.tokenSource === 'keyring';
    const names = new Set([fromProfile ? this.connection.profileName : undefined, this.targets.profile]);
    for (const name of names) {
      if (!name) continue;
      // A keyring entry keeps its reference when another run saves a newer token there: compare the token itself.
      const inKeyring = now.profiles[name]?.token_keyring;
      if (inKeyring && (name !== this.connection.profileName || (await this.keyringTokenNow(name, now.profiles[name])) === this.connection.token)) continue;
      if (!inKeyring && now.profiles[name]?.token === started.profiles[name]?.token) continue;
      throw this.rotatedElsewhere(`: profile "${name}" ${now.profiles[name] ? 'holds a newer token' : 'was removed'}`);
    }
  }

  /**
   * The token a keyring profile holds now. A keyring that does not answer is not a newer token: exit 3 saying so,
   * nothing sent (the rotation could not be saved there either).
   */
  private async keyringTokenNow(name: string, profile: Profile | undefined): Promise<string | undefined> {
    try {
      return await loadStoredToken(name, profile);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw new ConfigError(`could not check the token in use before rotating it: ${error.message}; nothing was sent`, error.hint);
    }
  }

  /**
   * The token's state, read inside the lock right before rotating. For `self`, a 401 here means the credential was
   * revoked since this run started: if it was active at the first read, or the profile holds a newer token, another
   * run rotated it (exit 6).
   */
  private async currentState(activeMomentsAgo: boolean): Promise<TokenRecord> {
    const { ctx, target, id } = this;
    try {
      return await readToken(ctx, target, id);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401 || id !== 'self') throw error;
      const onDisk = await currentProfileToken(ctx.configDir, this.targets.profile ?? this.connection.profileName);
      if (onDisk && onDisk !== this.connection.token) throw this.rotatedElsewhere(': the profile holds a newer token');
      if (activeMomentsAgo) throw this.rotatedElsewhere(' (it was active moments ago)');
      throw new CliError(
        `the token in use is rejected (401): ${error.message}`,
        ExitCode.auth,
        `it is revoked or expired, so it cannot rotate itself, and no recovery file holds a newer token for it. If an earlier rotation ended with exit 8 (outcome unknown), it may have happened and its new value is lost: ${lostRotationCheck(target.flags)}`,
      );
    }
  }

  private beforeSend<T>(work: Promise<T>): Promise<T> {
    return this.interrupts.race(work, async (signal) => {
      throw notSent(signal);
    });
  }

  /**
   * A signal while the request is in flight: the service may be rotating right now, and its answer holds the only
   * copy of the new token. Wait a little for it (a second signal ends the process at once); then say what happened.
   */
  private async stopInFlight(signal: Signal, answer: Promise<{ token: NewToken }>, recovery: RecoveryFile): Promise<never> {
    this.ctx.io.warn(`${signal} while the rotate request is in flight: waiting up to ${ANSWER_GRACE_MS / 1000}s for its answer (${signal === 'SIGINT' ? 'Ctrl-C' : 'SIGTERM'} again stops at once)`);
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([
      answer.then((value) => ({ value }), (error: unknown) => ({ error })),
      new Promise<object>((resolve) => (timer = setTimeout(() => resolve({}), ANSWER_GRACE_MS))),
    ]);
    clearTimeout(timer);
    if ('value' in late) throw await this.stoppedAfterAnswer(signal, late.value.token, recovery);
    if ('error' in late && late.error instanceof CliError && late.error.exitCode !== ExitCode.server) {
      throw interrupted(signal, `while rotating; the service answered: ${late.error.message}`, 'nothing was rotated');
    }
    const unknown = unknownOutcome(this.ctx, this.target, this.id, new Error(`no answer came within ${ANSWER_GRACE_MS / 1000}s of the signal`));
    throw interrupted(signal, `while the rotate request was in flight: ${unknown.message}`, unknown.hint);
  }

  /**
   * A signal while the new token is being saved: the target being written may finish within the grace period, and
   * no other is started. Everything saved by then: the run goes on (the check reports the signal); else it stops,
   * saying what is saved, what is not, and where the token waits.
   */
  private async stopSaving(signal: Signal, saving: Promise<SaveProgress>, progress: SaveProgress, token: NewToken, recovery: RecoveryFile): Promise<SaveProgress> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([saving.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ANSWER_GRACE_MS)))]);
    clearTimeout(timer);
    if (!progress.current && !progress.left.length && !progress.failures.length) return progress;
    if (!recovery.holdsToken) throw await this.stoppedAfterAnswer(signal, token, recovery);
    const state = [
      progress.saved.length ? `saved to ${progress.saved.join(', ')}` : 'saved nowhere yet',
      progress.current ? `still being written: ${progress.current} (not known whether it was)` : '',
      progress.failures.length ? `failed: ${progress.failures.join('; ')}` : '',
      progress.left.length ? `not written: ${progress.left.join(', ')}` : '',
    ].filter(Boolean).join('; ');
    throw interrupted(signal, `while saving the new token${token.id ? ` ${token.id}` : ''}: ${state}; the new token is in the recovery file ${recovery.path} (mode 0600)`,
      `run forgectl tokens recover ${recovery.path} to write what is left (the next rotate run does it too). Do not rotate again${this.overlapMs === undefined ? ': the old token is revoked' : ''}`);
  }

  /** Interrupted once the new token is here: it is in the recovery file (or, failing that, on stdout). */
  private async stoppedAfterAnswer(signal: Signal, token: NewToken, recovery: RecoveryFile): Promise<CliError> {
    if (recovery.holdsToken) {
      return interrupted(signal, `after the token was rotated: the new token${token.id ? ` ${token.id}` : ''} is in the recovery file ${recovery.path} (mode 0600)`,
        'run forgectl tokens recover to save it (the next rotate run does it too). Do not rotate again: the old token is revoked');
    }
    await this.ctx.io.out(`${token.token}\n`);
    return interrupted(signal, 'after the token was rotated; the recovery file could not be written, so the new token was printed on stdout',
      'store it now. Do not rotate again: the old token is revoked');
  }

  private async finishPending(pending: Recovery): Promise<unknown> {
    const { ctx } = this;
    if (ctx.globals.dryRun) {
      ctx.io.note(`a rotation of this token was interrupted on ${pending.record.created_at}: without --dry-run this run finishes it from ${pending.path} instead of rotating again`);
      return undefined;
    }
    ctx.io.warn(`a rotation of this token was interrupted on ${pending.record.created_at}; finishing it from ${pending.path} instead of rotating again`);
    const { token, saved } = await finishRecovery(ctx, pending, this.targets, this.locks);
    const where = describeTargets(saved);
    ctx.io.note(`Recovered token ${token.id ?? '?'} (expires ${token.expires_at ?? 'never'})${where ? `, saved to ${where}` : ''}; it was not rotated again`);
    if (where) return withLevelName(withoutSecret(token));
    warnStoreNow(ctx);
    return withLevelName(token);
  }

  /** How the user checks the new token by hand. */
  private checkCommand(): string {
    const flags = this.target.selfFlags;
    return this.targets.profile ? `forgectl -p ${this.targets.profile} tokens get self ${flags}` : `forgectl tokens get self ${flags}, as the new token`;
  }
}

const notSent = (signal: Signal): CliError => interrupted(signal, 'before the rotate request was sent: nothing was sent', 'run the rotation again');

/** A token's record; a token with only `self_rotate` may not read its group's API, but its own record is readable. */
async function readToken(ctx: Context, target: TokenTarget, id: number | 'self'): Promise<TokenRecord> {
  try {
    return await target.read(ctx.api, id);
  } catch (error) {
    if (id !== 'self' || target.kind === 'personal' || !(error instanceof ApiError) || error.status !== 403) throw selfElsewhere(error, target, id);
    return ctx.api.call<TokenRecord>(accessTokens.parents.personal.routes.get, { token_id: 'self' });
  }
}
