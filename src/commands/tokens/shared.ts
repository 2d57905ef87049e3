import type { TokenFields, TokenKind } from '../../resources/access-tokens/values.js';
import { accessTokens, impersonationTokens } from '../../resources/access-tokens/resource.js';
import { userIds } from '../../api/lookups.js';
import type { Context, OptionDef } from '../../cli/command.js';
import { ApiError, UsageError } from '../../errors.js';
import { accessLevelName, parseDate, parseDuration } from '../../parse.js';


export interface TargetOptions {
  group?: string;
  project?: string;
  personal?: boolean;
}

/** Where tokens live: a group, a project, the personal ones, or a user's impersonation tokens (administrators). */
export type TargetKind = TokenKind | 'impersonation';

/** Where a token lives: its kind, its group or project (or user), and the routes that reach it. */
export class TokenTarget<K extends TargetKind = TargetKind> {
  constructor(
    readonly kind: K,
    /** Group or project ID or path as given; the user's ID for impersonation tokens; empty for personal tokens. */
    readonly resource: string,
    /** The user as given (a username or an ID), for impersonation tokens. */
    private readonly user?: string,
  ) {}

  /** "group acme", "project acme/api", "personal", "user alice". */
  get label(): string {
    if (this.kind === 'impersonation') return `user ${this.user ?? this.resource}`;
    return this.kind === 'personal' ? 'personal' : `${this.kind} ${this.resource}`;
  }

  /** The flags that name these tokens on the command line: `--group acme`, `--personal`, `--personal --user alice --impersonation`. */
  get flags(): string {
    if (this.kind === 'impersonation') return `--personal --user ${this.user ?? this.resource} --impersonation`;
    return this.kind === 'personal' ? '--personal' : `--${this.kind} ${this.resource}`;
  }

  describe(id: number | 'self'): string {
    const which = id === 'self' ? 'the token in use' : `token ${id}`;
    if (this.kind === 'impersonation') return `impersonation ${which} of ${this.label}`;
    return this.kind === 'personal' ? `personal ${which.replace(/^the /, '')}` : `${which} of ${this.label}`;
  }

  /** A declared route of these tokens (src/resources/access-tokens/resource.ts), for api.call with params(). */
  route(name: 'list' | 'get' | 'create' | 'delete' | 'rotate'): string {
    const kind: TargetKind = this.kind;
    if (kind !== 'impersonation') return accessTokens.parents[kind].routes[name];
    if (name === 'rotate') throw new UsageError('impersonation tokens are not rotated by the service: create a new one, then revoke the old one');
    return impersonationTokens.routes[name];
  }

  /** The route parameters that name these tokens (the group, project or user), and one token (its id, or `self`) when given. */
  params(id?: number | 'self'): Record<string, string | number> {
    if (this.kind === 'impersonation') return { user: this.resource, ...(id === undefined ? {} : { impersonation_token_id: id }) };
    return { ...(this.kind === 'personal' ? {} : { [this.kind]: this.resource }), ...(id === undefined ? {} : { token_id: id }) };
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
  { flags: '--group <id|path>', description: 'group access tokens of this group' },
  { flags: '--project <id|path>', description: 'project access tokens of this project' },
  { flags: '--personal', description: 'personal access tokens' },
];

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
 */
export async function resolveUserTarget(opts: TargetOptions & UserOptions, ctx: Context): Promise<{ target: TokenTarget; userId?: number }> {
  const target = resolveTarget(opts);
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

/** Exactly one of --group, --project, --personal; the profile's default group or project is never guessed here. */
export function resolveTarget(opts: TargetOptions): TokenTarget<TokenKind> {
  const given = [opts.group !== undefined, opts.project !== undefined, Boolean(opts.personal)].filter(Boolean).length;
  if (given !== 1) {
    throw new UsageError(
      given ? 'give only one of --group, --project and --personal' : 'which tokens? pass --group ID|PATH, --project ID|PATH or --personal',
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

/** Adds the access level by name beside the number (lists and tables show the name). */
export function withLevelName<T extends Record<string, unknown>>(record: T): T & { access_level_name: string } {
  return { ...record, access_level_name: accessLevelName(record.access_level as number | undefined) };
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
