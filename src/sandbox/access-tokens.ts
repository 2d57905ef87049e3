import { accessTokens, PERSONAL_TOKEN_FIELDS, RESOURCE_SCOPES, TOKEN_LIST, USER_SCOPES } from '../resources/access-tokens/resource.js';
import { authenticate, isExpired, presentedToken, Role } from './auth.js';
import { newTokenValue, type Db } from './db.js';
import { array, bool, errors, required, type SandboxRequest } from './http.js';
import { tokens, type AccessToken, type User } from './model.js';
import { withinTimes } from './listing.js';
import { presentRecord, type Values } from './records.js';
import { addToken, isoDate } from './seed.js';

/**
 * The token machinery every module with access tokens shares (group, project and personal tokens; the tokens of
 * service accounts): scopes, expiry limits, list filters, and rotation with reuse detection (spec document 1
 * "States and transitions"; api-facts §1.1 and §5).
 */

export const MAX_LIFETIME_DAYS = 365;
const ROTATION_DEFAULT_DAYS = 7;

const PERSONAL_TOKENS = { fields: PERSONAL_TOKEN_FIELDS };

/** A personal access token as the token endpoints present it (never its value), as its declaration says. */
export const presentPersonalToken = (token: AccessToken): Values => presentRecord(PERSONAL_TOKENS, token);

/** A token as its own endpoints present it: a personal one, or a group's or project's with its role (Maintainer when none was given). */
export const presentToken = (token: AccessToken): Values =>
  token.kind === 'personal' ? presentPersonalToken(token) : presentRecord(accessTokens, token, { access_level: token.access_level ?? Role.maintainer });

/** The plaintext value is part of the answer only when a token is created or rotated. */
export function withValue(token: AccessToken): Record<string, unknown> {
  return { ...presentToken(token), token: token.token };
}

/** expires_at of a create or rotate request: a real date, today or later, at most a year ahead. */
export function expiryFrom(req: SandboxRequest, defaultDays: number): string {
  const value = req.input.expires_at;
  if (value === undefined || value === null || value === '') return isoDate(req.now(), defaultDays);
  const text = String(value);
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00Z`) : undefined;
  if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text) throw errors.invalid('expires_at');
  // A token may expire today (it stays valid through its expiry day); only past dates are refused.
  if (text < isoDate(req.now())) throw errors.validation({ expires_at: ['must be today or later'] });
  const max = isoDate(req.now(), MAX_LIFETIME_DAYS);
  if (text > max) throw errors.validation({ expires_at: [`must be before ${max}`] });
  return text;
}

export function scopesFrom(req: SandboxRequest, allowUserScopes: boolean): string[] {
  const scopes = array(required(req, 'scopes')) ?? [];
  if (!scopes.length) throw errors.missing('scopes');
  // A group or project token may not have the scopes that belong to users.
  if (scopes.some((s) => !RESOURCE_SCOPES.includes(s) && !(allowUserScopes && USER_SCOPES.includes(s)))) throw errors.invalid('scopes');
  return [...new Set(scopes)];
}

/** Reuse detection: every still-active token of the family is revoked. */
function revokeFamily(db: Db, familyId: number): void {
  for (const token of tokens(db)) {
    if (token.family_id === familyId && !token.revoked) revokeToken(token);
  }
}

/** Revokes a token: 400 when it is revoked already, as a revoke endpoint answers (rotation and reuse detection revoke live ones only). */
export function revokeToken(token: AccessToken): void {
  if (token.revoked) throw errors.badRequest('Token already revoked');
  token.revoked = true;
  token.active = false;
}

/**
 * Authenticates a rotation request itself (the route skips the generic check): a revoked token that was already
 * rotated, presented again, revokes its whole family before the 401 (spec "States and transitions").
 */
export function authenticateRotation(req: SandboxRequest): void {
  const value = presentedToken(req);
  const presented = value ? tokens(req.db).find((t) => t.token === value) : undefined;
  if (presented?.revoked && presented.rotated) revokeFamily(req.db, presented.family_id);
  authenticate(req);
}

/**
 * Rotates `old`: it is revoked at once and a new token of the same family, user and scopes is returned. A revoked
 * token presented again revokes its family (reuse detection) and is refused with `refused` (401 on the access token
 * routes, 400 "Token already revoked" on those of service accounts).
 */
export function rotate(req: SandboxRequest, old: AccessToken, refused: () => Error = errors.unauthorized): AccessToken {
  if (old.revoked) {
    if (old.rotated) revokeFamily(req.db, old.family_id);
    throw refused();
  }
  if (isExpired(old, req.now())) throw errors.unauthorized();
  const expiresAt = expiryFrom(req, ROTATION_DEFAULT_DAYS);
  revokeToken(old);
  old.rotated = true;
  const fresh: AccessToken = {
    ...old,
    id: req.db.nextId('tokens'),
    revoked: false,
    active: true,
    created_at: req.now().toISOString(),
    expires_at: expiresAt,
    last_used_at: null,
    token: newTokenValue(),
  };
  delete fresh.rotated;
  tokens(req.db).push(fresh);
  return fresh;
}

/** A personal token of `user` from a create request (name, scopes, expiry, description), as an administrator makes one. */
export function createPersonalToken(req: SandboxRequest, user: User): AccessToken {
  const name = String(required(req, 'name'));
  const scopes = scopesFrom(req, true);
  const expiresAt = expiryFrom(req, MAX_LIFETIME_DAYS);
  return addToken(req.db, user, { name, description: String(req.input.description ?? ''), scopes, expires_at: expiresAt }, req.now());
}

/** The list filters shared by every token list (spec endpoint 1, api-facts §5). */
export function filterTokens(req: SandboxRequest, list: AccessToken[]): AccessToken[] {
  const q = req.query;
  const now = req.now();
  const isActive = (t: AccessToken) => !t.revoked && !isExpired(t, now);
  if (q.state !== undefined) {
    if (!TOKEN_LIST.filters.state.kind.choices!.includes(String(q.state))) throw errors.invalid('state');
    list = list.filter((t) => (q.state === 'active' ? isActive(t) : !isActive(t)));
  }
  const revoked = bool(q.revoked);
  if (revoked !== undefined) list = list.filter((t) => t.revoked === revoked);
  if (q.search) list = list.filter((t) => t.name.toLowerCase().includes(String(q.search).toLowerCase()));
  list = withinTimes(req, list, { created: (t) => t.created_at, expires: (t) => t.expires_at, last_used: (t) => t.last_used_at });
  const sort = q.sort === undefined ? 'created_desc' : String(q.sort);
  const match = /^(created|expires|last_used|name)_(asc|desc)$/.exec(sort);
  if (!match) throw errors.invalid('sort');
  const key = (match[1] === 'name' ? 'name' : `${match[1]}_at`) as keyof AccessToken;
  const sign = match[2] === 'asc' ? 1 : -1;
  return [...list].sort((a, b) => {
    const x = (a[key] ?? '') as string;
    const y = (b[key] ?? '') as string;
    return (x < y ? -1 : x > y ? 1 : a.id - b.id) * sign;
  });
}
