import type { TokenFields, TokenKind, TokenRecord } from '../../resources/access-tokens/values.js';
import type { Api } from '../../api/client.js';
import { accessTokens, impersonationTokens } from '../../resources/access-tokens/resource.js';
import { findServiceAccount, topLevelGroup } from '../../resources/service-accounts/find.js';
import { groupServiceAccountTokens } from '../../resources/service-accounts/resource.js';
import { userIds } from '../../api/lookups.js';
import type { Context, OptionDef } from '../../cli/command.js';
import { ApiError, CliError, ExitCode, UsageError } from '../../errors.js';
import { accessLevelName, parseDate, parseDuration } from '../../parse.js';


export interface TargetOptions {
  group?: string;
  project?: string;
  personal?: boolean;
  /** A service account by username or ID: the instance's, or with --group that group's. */
  serviceAccount?: string;
}

/**
 * Where tokens live: a group, a project, the personal ones, a user's impersonation tokens (administrators), or a
 * service account (the instance's, or a top-level group's).
 */
export type TargetKind = TokenKind | 'impersonation' | 'service-account';
/** The tokens a rotation rotates (and its recovery file names). */
export type RotatableKind = TokenKind | 'service-account';

/** A service account whose tokens these are, as the service knows it. */
export interface AccountRef {
  id: number;
  username: string;
}

/** Where a token lives: its kind, its group or project (or user), and the routes that reach it. */
export class TokenTarget<K extends TargetKind = TargetKind> {
  constructor(
    readonly kind: K,
    /**
     * Group or project ID or path as given; the user's ID for impersonation tokens; empty for personal tokens; a
     * service account's group as given, or empty for an instance's.
     */
    readonly resource: string,
    /** The user as given (a username or an ID), for impersonation tokens; the service account as given. */
    private readonly user?: string,
    /** The service account, once looked up (resolved()). */
    readonly account?: AccountRef,
  ) {}

  /** "group acme", "project acme/api", "personal", "user alice", "service account ci-bot of group acme". */
  get label(): string {
    if (this.kind === 'impersonation') return `user ${this.user ?? this.resource}`;
    if (this.kind === 'service-account') return `service account ${this.account?.username ?? this.user}${this.resource ? ` of group ${this.resource}` : ''}`;
    return this.kind === 'personal' ? 'personal' : `${this.kind} ${this.resource}`;
  }

  /**
   * The flags that name these tokens on the command line: `--group acme`, `--personal`, `--personal --user alice
   * --impersonation`, `--service-account ci-bot --group acme`.
   */
  get flags(): string {
    if (this.kind === 'impersonation') return `--personal --user ${this.user ?? this.resource} --impersonation`;
    if (this.kind === 'service-account') return `--service-account ${this.account?.username ?? this.user}${this.resource ? ` --group ${this.resource}` : ''}`;
    return this.kind === 'personal' ? '--personal' : `--${this.kind} ${this.resource}`;
  }

  /** The flags of `self` here: a service account's token reads itself as the personal token it is. */
  get selfFlags(): string {
    return this.kind === 'service-account' ? '--personal' : this.flags;
  }

  /** The same tokens with their service account looked up (by username or ID, in its owner's list); others as they are. */
  async resolved(api: Api): Promise<TokenTarget<K>> {
    if (this.kind !== 'service-account' || this.account) return this;
    const account = await findServiceAccount(api, this.resource ? { group: this.resource } : {}, this.user!);
    return new TokenTarget(this.kind, this.resource, this.user, { id: account.id, username: account.username });
  }

  private get accountId(): number {
    if (!this.account) throw new Error(`${this.label}: not looked up yet`);
    return this.account.id;
  }

  describe(id: number | 'self'): string {
    const which = id === 'self' ? 'the token in use' : `token ${id}`;
    if (this.kind === 'impersonation') return `impersonation ${which} of ${this.label}`;
    return this.kind === 'personal' ? `personal ${which.replace(/^the /, '')}` : `${which} of ${this.label}`;
  }

  /**
   * A declared route of these tokens (src/resources/access-tokens/resource.ts; a group's service accounts' in
   * src/resources/service-accounts/resource.ts), for api.call with params(). An instance's service account's tokens
   * are personal tokens. One token is read with read(): a group's service account's has no route of its own.
   */
  route(name: 'list' | 'get' | 'create' | 'delete' | 'rotate'): string {
    const kind: TargetKind = this.kind;
    if (kind === 'service-account') {
      if (!this.resource) return accessTokens.parents.personal.routes[name];
      if (name === 'get') throw new Error('a group\'s service account\'s token is read with read()');
      return groupServiceAccountTokens.routes[name];
    }
    if (kind !== 'impersonation') return accessTokens.parents[kind].routes[name];
    if (name === 'rotate') throw new UsageError('impersonation tokens are not rotated by the service: create a new one, then revoke the old one');
    return impersonationTokens.routes[name];
  }

  /**
   * The route parameters that name these tokens (the group, project or user; an instance's service account's list
   * is the personal one narrowed to it), and one token (its id, or `self`) when given.
   */
  params(id?: number | 'self'): Record<string, string | number> {
    const one: Record<string, string | number> = id === undefined ? {} : { token_id: id };
    if (this.kind === 'impersonation') return { user: this.resource, ...(id === undefined ? {} : { impersonation_token_id: id }) };
    if (this.kind === 'service-account') {
      if (this.resource) return { group: this.resource, user: this.accountId, ...one };
      return id === undefined ? { user_id: this.accountId } : one;
    }
    return { ...(this.kind === 'personal' ? {} : { [this.kind]: this.resource }), ...one };
  }

  /** The parameters of the create route: personal tokens (and an instance's service account's) are made under their user. */
  createParams(userId?: number): Record<string, string | number> {
    if (this.kind === 'personal') return userId === undefined ? {} : { user: userId };
    if (this.kind === 'service-account' && !this.resource) return { user: this.accountId };
    return this.params();
  }

  /**
   * One token's record: by its route, or (a service account's) checked to be the account's, its own record as
   * itself for `self`.
   */
  async read(api: Api, id: number | 'self'): Promise<TokenRecord> {
    if (this.kind !== 'service-account') return api.call<TokenRecord>(this.route('get'), this.params(id));
    if (id === 'self') return api.call<TokenRecord>(accessTokens.parents.personal.routes.get, { token_id: 'self' });
    const found = this.resource ? await this.findInList(api, id) : await api.call<TokenRecord>(this.route('get'), this.params(id));
    if (found?.user_id === this.accountId) return found;
    throw new CliError(`token ${id} is not a token of ${this.label}`, ExitCode.notFound, `forgectl tokens list ${this.flags} lists them`);
  }

  private async findInList(api: Api, id: number): Promise<TokenRecord | undefined> {
    for await (const token of api.list<TokenRecord>(this.route('list'), this.params(), { all: true, perPage: 100 })) if (token.id === id) return token;
    return undefined;
  }
}

/**
 * A token named by what it is, for confirmations and notes: `token "deploy-bot" (id 22, scopes api, expires
 * 2026-12-01) of project acme/api`.
 */
export function describeToken(target: TokenTarget, record: Pick<TokenFields, 'id' | 'name' | 'scopes' | 'expires_at'>, inUse = false): string {
  const facts = [`id ${record.id}`, inUse ? 'the token in use' : '', record.scopes?.length ? `scopes ${record.scopes.join(' ')}` : '', `expires ${record.expires_at ?? 'never'}`];
  const which = `token "${record.name}" (${facts.filter(Boolean).join(', ')})`;
  if (target.kind === 'impersonation') return `impersonation ${which} of ${target.label}`;
  return target.kind === 'personal' ? `personal ${which}` : `${which} of ${target.label}`;
}

/**
 * Off a terminal, a confirmation without --yes fails before anything is sent, reads included: `question` names the
 * token as far as it is known without asking the service. At a terminal this passes, and the question asked later
 * names the token by what the service says it is.
 */
export async function confirmedBeforeReading(ctx: Context, question: string): Promise<void> {
  if (!ctx.io.interactive) await ctx.confirm(question);
}

export const targetOptions: OptionDef[] = [
  { flags: '--group <id|path>', description: 'group access tokens of this group (with --service-account: the group whose account it is)' },
  { flags: '--project <id|path>', description: 'project access tokens of this project' },
  { flags: '--personal', description: 'personal access tokens' },
  { flags: '--service-account <name|id>', description: 'the tokens of this service account of the instance (administrators), or with --group of that top-level group (its Owners)' },
];

/** Where tokens live, for the hint of a token that is not there (`tokens list --project acme/api lists its access tokens`). */
export const tokenRecord = {
  nouns: 'access tokens',
  placement: [['--group', 'group'], ['--project', 'project'], ['--personal', 'personal'], ['--service-account', 'serviceAccount'], ['--user', 'user']].map(([flag, key]) => ({ flag, key })),
};

export interface UserOptions {
  user?: string;
  impersonation?: boolean;
}

/** --user and --impersonation, for personal tokens (administrators). */
export const userOptions: OptionDef[] = [
  { flags: '--user <name|id>', description: 'with --personal: the tokens of this user, by username or ID (administrators)' },
  { flags: '--impersonation', description: 'with --personal --user: the user\'s impersonation tokens (administrators)' },
];

/**
 * The tokens --group, --project or --personal name, with --user (a username or an ID) and --impersonation for
 * personal ones: the user's impersonation tokens, or (without --impersonation) `userId` to narrow personal tokens to.
 * `needsUser`: --impersonation without --user is refused (a user's impersonation tokens are reached by the user).
 * A service account is looked up in its owner's list unless `lookUpAccount` is false (then: target.resolved() later).
 */
export async function resolveUserTarget(opts: TargetOptions & UserOptions, ctx: Context, lookUpAccount = true): Promise<{ target: TokenTarget; userId?: number }> {
  const target = resolveTarget(opts);
  if (target.kind === 'service-account') {
    if (opts.user !== undefined || opts.impersonation) throw new UsageError(`${opts.user !== undefined ? '--user' : '--impersonation'} goes with --personal, not with --service-account`);
    return { target: lookUpAccount ? await target.resolved(ctx.api) : target };
  }
  if (target.kind !== 'personal') {
    if (opts.user !== undefined || opts.impersonation) throw new UsageError(`${opts.user !== undefined ? '--user' : '--impersonation'} goes with --personal`);
    return { target };
  }
  if (opts.impersonation && opts.user === undefined) throw new UsageError('--impersonation needs --user NAME|ID: impersonation tokens are listed by user');
  if (opts.user === undefined) return { target };
  const [userId] = await userIds(ctx.api, [opts.user]);
  return opts.impersonation ? { target: new TokenTarget('impersonation', String(userId), opts.user), userId } : { target, userId };
}

/** One personal token is named by its id alone: --user goes with --impersonation there. */
export function personalByUser(opts: UserOptions, target: TokenTarget): void {
  if (opts.user !== undefined && target.kind === 'personal') throw new UsageError('--user goes with --impersonation here: a personal token is named by its id alone');
}

/**
 * Exactly one of --group, --project, --personal, or --service-account (with --group for a group's account); the
 * profile's default group or project is never guessed here. A service account is looked up later (resolved()).
 */
export function resolveTarget(opts: TargetOptions, id?: string): TokenTarget<RotatableKind> {
  if (opts.serviceAccount !== undefined) {
    if (opts.project !== undefined || opts.personal) {
      throw new UsageError(`--service-account goes alone (an account of the instance) or with --group (a group's), not with ${opts.personal ? '--personal' : '--project'}`);
    }
    if (!opts.serviceAccount.trim()) throw new UsageError('--service-account must not be empty');
    return new TokenTarget('service-account', opts.group === undefined ? '' : topLevelGroup(opts.group), opts.serviceAccount);
  }
  const given = [opts.group !== undefined, opts.project !== undefined, Boolean(opts.personal)].filter(Boolean).length;
  if (given !== 1) {
    throw new UsageError(
      given ? 'give only one of --group, --project and --personal' : 'which tokens? pass --group ID|PATH, --project ID|PATH, --personal or --service-account NAME',
      !given && id === 'self' ? 'self is the token in use: --personal for a personal token, --group G or --project P for an access token of G or P (forgectl auth status shows whose it is)' : undefined,
    );
  }
  if (opts.personal) return new TokenTarget('personal', '');
  if (opts.group !== undefined) return new TokenTarget('group', opts.group);
  return new TokenTarget('project', opts.project!);
}

/**
 * The service's 404 for `self` under a group or project whose token is not the one in use (a personal token,
 * another group's), with a hint saying so; any other error as it is.
 */
export function selfElsewhere(error: unknown, target: TokenTarget, id: number | 'self'): unknown {
  if (id !== 'self' || target.kind === 'personal' || !(error instanceof ApiError) || error.status !== 404 || !/token/i.test(error.message)) return error;
  const hint = `the token in use is not an access token of ${target.label}; a personal token reads itself with --personal`;
  return new ApiError(error.message, error.status, error.method, error.path, error.requestId, hint, error.body);
}

/**
 * The token id of a command on these tokens: `self` where the token in use can be named so (not an impersonation
 * token; a service account's token in use is the personal token it is).
 */
export function tokenIdOf(target: TokenTarget, verb: string, value: string, allowSelf = target.kind !== 'impersonation'): number | 'self' {
  if (value === 'self' && target.kind === 'service-account') {
    throw new UsageError('a service account\'s token in use is a personal token of its own: name it with --personal, not --service-account', `as the service account: forgectl -p PROFILE tokens ${verb} self --personal`);
  }
  return parseTokenId(value, allowSelf);
}

/** A token id: a positive integer, or `self` where the service accepts it. */
export function parseTokenId(value: string, allowSelf = true): number | 'self' {
  if (allowSelf && value === 'self') return 'self';
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new UsageError(`token id must be a positive whole number${allowSelf ? ' or "self"' : ''}, got "${value}"`);
  }
  return Number(value);
}

export const MAX_LIFETIME_DAYS = 365;
const DAY_MS = 86_400_000;

export function isoDay(date: Date, plusDays = 0): string {
  return new Date(date.getTime() + plusDays * DAY_MS).toISOString().slice(0, 10);
}

/**
 * An expiry date (YYYY-MM-DD): today at the earliest (a token stays valid through its expiry day, so the service
 * accepts today) and at most a year ahead, the service's limits (contract §7).
 */
export function checkExpiry(flag: string, date: string, now: Date): string {
  parseDate(flag)(date);
  if (date < isoDay(now)) throw new UsageError(`${flag} must be today (${isoDay(now)}) or later, got ${date}`);
  const max = isoDay(now, MAX_LIFETIME_DAYS);
  if (date > max) throw new UsageError(`${flag} must be at most one year ahead (${max} at the latest), got ${date}`);
  return date;
}

/** --expires-at DATE or --expires-in 30d, as one date (undefined when neither is given: the service's default). */
export function expiryFrom(opts: { expiresAt?: string; expiresIn?: string }, now: Date): string | undefined {
  if (opts.expiresAt !== undefined && opts.expiresIn !== undefined) throw new UsageError('give --expires-at or --expires-in, not both');
  if (opts.expiresAt !== undefined) return checkExpiry('--expires-at', opts.expiresAt, now);
  if (opts.expiresIn !== undefined) {
    const ms = parseDuration('--expires-in')(opts.expiresIn);
    return checkExpiry('--expires-in', isoDay(new Date(now.getTime() + ms)), now);
  }
  return undefined;
}

/**
 * The lifetime of a token (from the day it was made to its expiry, in whole days) as an expiry from today: at least a
 * day, at most the service's year. Undefined for a token that never expires.
 */
export function lifetimeOf(token: { created_at?: string | null; expires_at?: string | null }, now: Date): { days: number; expiresAt: string } | undefined {
  if (!token.expires_at || !token.created_at) return undefined;
  const made = Date.parse(`${String(token.created_at).slice(0, 10)}T00:00:00Z`);
  const ends = Date.parse(`${String(token.expires_at).slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(made) || Number.isNaN(ends)) return undefined;
  const days = Math.min(MAX_LIFETIME_DAYS, Math.max(1, Math.round((ends - made) / DAY_MS)));
  return { days, expiresAt: isoDay(now, days) };
}

/** Days from today until an expiry date (0: expires today). */
export function daysLeft(expiresAt: string, now: Date): number {
  return Math.round((Date.parse(`${expiresAt.slice(0, 10)}T00:00:00Z`) - Date.parse(`${isoDay(now)}T00:00:00Z`)) / DAY_MS);
}

/**
 * Adds the access level by name beside the number (lists and tables show the name); a personal token has no level,
 * so nothing is added to it (an empty name would read as a level the service never gave).
 */
export function withLevelName<T extends Record<string, unknown>>(record: T): T & { access_level_name?: string } {
  return typeof record.access_level === 'number' ? { ...record, access_level_name: accessLevelName(record.access_level) } : record;
}

export const tokenColumns = ['id', 'name', 'scopes', 'access_level_name', 'active', 'expires_at', 'last_used_at'];
/** Personal tokens have no access level; whose they are matters instead (administrators list everyone's). */
export const personalTokenColumns = ['id', 'name', 'user_id', 'scopes', 'active', 'expires_at', 'last_used_at'];

/** The token record without its secret value. */
export function withoutSecret<T extends { token?: string }>(record: T): Omit<T, 'token'> {
  const { token: _secret, ...rest } = record;
  return rest;
}

/** A warning shown once on a terminal when a token value is handed over. */
export function warnStoreNow(ctx: Context): void {
  if (ctx.io.stdoutIsTTY) ctx.io.warn('store this token now: it cannot be shown again');
}

/**
 * What an earlier rotation may have left, said the same way wherever a token turns out rejected or revoked: one
 * stopped after the service answered kept the new token in a recovery file; one whose outcome is unknown (exit 8)
 * kept nothing, because its answer never arrived. `flags` name the tokens (`--group acme`), for the check.
 */
export function afterRotationHint(flags = '…'): string {
  return `If a rotation of it stopped after the service answered, the new token waits in a recovery file: forgectl tokens recover --list. If one ended with exit 8 (outcome unknown), no file holds its new token and it cannot be recovered: ${lostRotationCheck(flags)}`;
}

/** After a rotation with an unknown outcome: how to tell what happened, and what to do then. */
export const lostRotationCheck = (flags = '…'): string =>
  `check the token's state in the web UI or with another credential (forgectl -p OTHER tokens list ${flags} --state active); if it was revoked, create a new token (forgectl tokens create)`;
