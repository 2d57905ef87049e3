import { accessTokens, PERSONAL_TOKEN_FIELDS } from '../resources/access-tokens/resource.js';
import { authenticate, isExpired, presentedToken, Role } from './auth.js';
import { newTokenValue, type Db } from './db.js';
import { array, bool, errors, required, type SandboxRequest } from './http.js';
import { tokens, type AccessToken, type User } from './model.js';
import { presentRecord, type Values } from './records.js';
import { addToken, isoDate } from './seed.js';

/**
 * The token machinery every module with access tokens shares (group, project and personal tokens; the tokens of
 * service accounts): scopes, expiry limits, list filters, and rotation with reuse detection (spec document 1
 * "States and transitions"; api-facts §1.1 and §5).
 */

const TOKEN_SCOPES = [
  'api', 'read_api', 'read_user', 'create_runner', 'manage_runner', 'k8s_proxy', 'read_repository', 'write_repository',
  'read_registry', 'write_registry', 'read_virtual_registry', 'write_virtual_registry', 'ai_features', 'self_rotate',
  'sudo', 'admin_mode', 'read_service_ping',
];
/** Scopes a group or project token may not have (they belong to users). */
const USER_ONLY_SCOPES = new Set(['sudo', 'admin_mode', 'read_user', 'read_service_ping']);
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

function today(req: SandboxRequest, plusDays = 0): string {
  return isoDate(req.now(), plusDays);
}

/** expires_at of a create or rotate request: a real date, today or later, at most a year ahead. */
export function expiryFrom(req: SandboxRequest, defaultDays: number): string {
  const value = req.input.expires_at;
  if (value === undefined || value === null || value === '') return today(req, defaultDays);
  const text = String(value);
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00Z`) : undefined;
  if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text) throw errors.invalid('expires_at');
  // A token may expire today (it stays valid through its expiry day); only past dates are refused.
  if (text < today(req)) throw errors.validation({ expires_at: ['must be today or later'] });
  const max = today(req, MAX_LIFETIME_DAYS);
  if (text > max) throw errors.validation({ expires_at: [`must be before ${max}`] });
  return text;
}

export function scopesFrom(req: SandboxRequest, allowUserScopes: boolean): string[] {
  const scopes = array(required(req, 'scopes')) ?? [];
  if (!scopes.length) throw errors.missing('scopes');
  if (scopes.some((s) => !TOKEN_SCOPES.includes(s) || (!allowUserScopes && USER_ONLY_SCOPES.has(s)))) throw errors.invalid('scopes');
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
    if (!['active', 'inactive'].includes(String(q.state))) throw errors.invalid('state');
    list = list.filter((t) => (q.state === 'active' ? isActive(t) : !isActive(t)));
  }
  const revoked = bool(q.revoked);
  if (revoked !== undefined) list = list.filter((t) => t.revoked === revoked);
  if (q.search) list = list.filter((t) => t.name.toLowerCase().includes(String(q.search).toLowerCase()));
  const time = (name: string): number | undefined => {
    if (q[name] === undefined || q[name] === '') return undefined;
    const value = Date.parse(String(q[name]));
    if (Number.isNaN(value)) throw errors.invalid(name);
    return value;
  };
  const bounds: Array<[string, (t: AccessToken) => string | null, 'after' | 'before']> = [
    ['created_after', (t) => t.created_at, 'after'], ['created_before', (t) => t.created_at, 'before'],
    ['expires_after', (t) => t.expires_at, 'after'], ['expires_before', (t) => t.expires_at, 'before'],
    ['last_used_after', (t) => t.last_used_at, 'after'], ['last_used_before', (t) => t.last_used_at, 'before'],
  ];
  for (const [name, field, direction] of bounds) {
    const bound = time(name);
    if (bound === undefined) continue;
    list = list.filter((t) => {
      const value = field(t);
      if (value === null) return false;
      const at = Date.parse(value);
      return direction === 'after' ? at > bound : at < bound;
    });
  }
  const sort = q.sort === undefined ? 'created_desc' : String(q.sort);
  const match = /^(created|expires|last_used|name)_(asc|desc)$/.exec(sort);
  if (!match) throw errors.invalid('sort');
  const key = { created: 'created_at', expires: 'expires_at', last_used: 'last_used_at', name: 'name' }[match[1]] as keyof AccessToken;
  const sign = match[2] === 'asc' ? 1 : -1;
  return [...list].sort((a, b) => {
    const x = (a[key] ?? '') as string;
    const y = (b[key] ?? '') as string;
    return (x < y ? -1 : x > y ? 1 : a.id - b.id) * sign;
  });
}
