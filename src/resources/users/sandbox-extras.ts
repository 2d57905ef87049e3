import { createHash } from 'node:crypto';
import { impersonationTokens as declared } from '../access-tokens/resource.js';
import { gpgKeys as declaredGpgKeys } from '../gpg-keys/resource.js';
import { userStatus } from '../user-status/resource.js';
import { requireAdmin, requireUser, Role, userFor } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { created, errors, int, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { gpgKeys, tokens, userStatuses, type AccessToken, type GpgKey, type User, type UserStatus } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { paginate } from '../../sandbox/pagination.js';
import { found, presentRecord, type Values } from '../../sandbox/records.js';
import { addToken } from '../../sandbox/seed.js';
import { userRecordRoutes } from '../../sandbox/users.js';

/**
 * What else clients call on users: impersonation tokens (administrators make a personal token that acts as a user),
 * GPG keys (the caller's and, public, anyone's; administrators add and remove them), and the user status (emoji,
 * message, availability, clear_status_at).
 */


// Impersonation tokens ---------------------------------------------------------------------------------------------

const IMPERSONATION_SCOPES = ['api', 'read_api', 'read_user', 'read_repository', 'write_repository', 'read_registry', 'write_registry', 'sudo', 'admin_mode', 'create_runner', 'manage_runner', 'ai_features', 'k8s_proxy'];

/** An impersonation token as its declaration presents it (a personal token's fields and `impersonation`). */
const presentImpersonation = (token: AccessToken): Values => presentRecord(declared, token);

function impersonationTokens(db: Db, user: User): AccessToken[] {
  return tokens(db).filter((t) => t.kind === 'personal' && t.impersonation === true && t.user_id === user.id);
}

function impersonationToken(req: SandboxRequest, user: User): AccessToken {
  const id = int(req.params.impersonation_token_id, 'impersonation_token_id');
  return found(impersonationTokens(req.db, user).find((t) => t.id === id), 'Impersonation Token');
}

// GPG keys ---------------------------------------------------------------------------------------------------------

const ARMOR = /^-----BEGIN PGP PUBLIC KEY BLOCK-----[\s\S]+-----END PGP PUBLIC KEY BLOCK-----\s*$/;

/** A GPG key as its declaration presents it. */
const presentGpgKey = (key: GpgKey): Values => presentRecord(declaredGpgKeys, key);

function addGpgKey(req: SandboxRequest, user: User) {
  const text = String(required(req, 'key')).trim();
  if (!ARMOR.test(text)) throw errors.validation({ key: ['does not appear to be a valid PGP public key'] });
  // The service keys GPG keys by their primary key id; the sandbox by the armored text's digest.
  const digest = (k: string) => createHash('sha1').update(k.replace(/\s+/g, '')).digest('hex');
  if (gpgKeys(req.db).some((k) => digest(k.key) === digest(text))) throw errors.validation({ fingerprint: ['has already been taken'], primary_keyid: ['has already been taken'] });
  const key: GpgKey = { id: req.db.nextId('gpg_keys'), user_id: user.id, key: text, created_at: req.now().toISOString() };
  gpgKeys(req.db).push(key);
  return created(presentGpgKey(key));
}

// User status ------------------------------------------------------------------------------------------------------

const CLEAR_AFTER: Record<string, number> = { '30_minutes': 30, '3_hours': 180, '8_hours': 480, '1_day': 1440, '3_days': 4320, '7_days': 10080, '30_days': 43200 };

/** A user's status while it lasts: none, or one whose time is up, is the empty one. */
function liveStatus(req: SandboxRequest, user: User): Partial<UserStatus> {
  const status = userStatuses(req.db).find((s) => s.user_id === user.id);
  return status && (!status.clear_status_at || status.clear_status_at > req.now().toISOString()) ? status : {};
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A user's status as its declaration presents it, with the message rendered. */
const presentStatus = (req: SandboxRequest, user: User): Values => {
  const live = liveStatus(req, user);
  return presentRecord(userStatus, live, { availability: live.availability ?? 'not_set', message_html: live.message ? `<p>${escapeHtml(live.message)}</p>` : '' });
};

export const userExtras: SandboxModule = {
  routes(api) {
    const { routes } = declared;
    api.route(routes.list, (req) => {
      requireAdmin(req);
      const state = String(req.query.state ?? 'all');
      if (!['all', 'active', 'inactive'].includes(state)) throw errors.invalid('state');
      const list = impersonationTokens(req.db, userFor(req)).filter((t) => state === 'all' || t.active === (state === 'active'));
      return paginate(req, list, { present: presentImpersonation });
    });
    api.route(routes.get, (req) => ok(presentImpersonation(impersonationToken(req, userFor(req, Role.owner)))));
    api.route(routes.create, (req) => {
      const user = userFor(req, Role.owner);
      const name = String(required(req, 'name'));
      const given = req.input.scopes;
      const scopes = (Array.isArray(given) ? given : given === undefined || given === '' ? [] : String(given).split(',')).map(String);
      if (!scopes.length) throw errors.missing('scopes');
      if (scopes.some((scope) => !IMPERSONATION_SCOPES.includes(scope))) throw errors.invalid('scopes');
      const expires = req.input.expires_at === undefined || req.input.expires_at === '' ? null : String(req.input.expires_at);
      if (expires !== null && !/^\d{4}-\d{2}-\d{2}$/.test(expires)) throw errors.invalid('expires_at');
      if (expires !== null && expires < req.now().toISOString().slice(0, 10)) throw errors.validation({ expires_at: ['must not be in the past'] });
      const token = addToken(req.db, user, { impersonation: true, name, description: String(req.input.description ?? ''), scopes, expires_at: expires }, req.now());
      return created({ ...presentImpersonation(token), token: token.token });
    });
    api.route(routes.delete, (req) => {
      const token = impersonationToken(req, userFor(req, Role.owner));
      Object.assign(token, { revoked: true, active: false });
      return noContent();
    });

    userRecordRoutes(api, declaredGpgKeys, { table: gpgKeys, notFound: 'GPG Key', present: presentGpgKey, add: addGpgKey });

    api.route(userStatus.routes.get, (req) => ok(presentStatus(req, requireUser(req))), { scope: 'read_user' });
    api.route(userStatus.routes.update, (req) => {
      const user = requireUser(req);
      const availability = req.input.availability === undefined ? 'not_set' : String(req.input.availability);
      if (!['not_set', 'busy'].includes(availability)) throw errors.invalid('availability');
      const clear = req.input.clear_status_after === undefined || req.input.clear_status_after === '' ? undefined : String(req.input.clear_status_after);
      if (clear !== undefined && !(clear in CLEAR_AFTER)) throw errors.invalid('clear_status_after');
      const table = userStatuses(req.db);
      const index = table.findIndex((s) => s.user_id === user.id);
      if (index >= 0) table.splice(index, 1);
      // PUT replaces the whole status: parameters left out are cleared.
      table.push({
        user_id: user.id,
        emoji: req.input.emoji ? String(req.input.emoji) : (req.input.message ? 'speech_balloon' : null),
        message: req.input.message ? String(req.input.message) : null,
        availability: availability as UserStatus['availability'],
        clear_status_at: clear ? new Date(req.now().getTime() + CLEAR_AFTER[clear] * 60_000).toISOString() : null,
      });
      return ok(presentStatus(req, user));
    });
    api.route(userStatus.routes.ofUser, (req) => ok(presentStatus(req, userFor(req))), { auth: 'optional' });
  },
};
