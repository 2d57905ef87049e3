import { emails } from '../emails/resource.js';
import { users as declared } from './resource.js';
import { requireAdmin } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { bool, created, errors, HttpError, int, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { emailTable, users, type Email, type User } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { found, presentRecord, type Values } from '../../sandbox/records.js';
import { addUser } from '../../sandbox/seed.js';
import type { Router } from '../../sandbox/router.js';
import { deleteUser, isInternal, presentFullUser, userRecordRoutes } from '../../sandbox/users.js';

/**
 * Administering user accounts (the service's users API): create, update, delete; block, unblock, ban, unban,
 * deactivate, activate, approve and reject sign-ups; secondary emails; identities. SSH keys live in keys.ts.
 */

/** Profile fields an administrator sets on create and update, stored on the user record as given. */
const PROFILE_TEXT = ['bio', 'location', 'public_email', 'skype', 'linkedin', 'twitter', 'discord', 'website_url', 'organization', 'job_title', 'pronouns', 'note', 'commit_email'];
const PROFILE_BOOL = ['can_create_group', 'private_profile', 'external', 'auditor', 'view_diffs_file_by_file'];
const PROFILE_INT = ['projects_limit', 'theme_id', 'color_scheme_id', 'shared_runners_minutes_limit', 'extra_shared_runners_minutes_limit'];

const USERNAME = /^[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*[a-zA-Z0-9_-]$|^[a-zA-Z0-9_]$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const MIN_PASSWORD = 8;

function findUser(req: SandboxRequest, raw = req.params.user): User {
  return found(/^\d+$/.test(raw) ? users(req.db).find((u) => u.id === Number(raw)) : undefined, 'User');
}

/** Whether an address is someone's primary or secondary email (case-insensitive); a user's own primary one aside. */
function emailTaken(db: Db, email: string, exceptUserId?: number): boolean {
  const wanted = email.toLowerCase();
  return users(db).some((u) => u.id !== exceptUserId && u.email.toLowerCase() === wanted)
    || emailTable(db).some((e) => e.email.toLowerCase() === wanted);
}

/** The profile fields of a create or update request, checked as the service checks them. */
function profileFrom(req: SandboxRequest, user: User | undefined): Partial<User> {
  const input = req.input;
  const fields: Partial<User> = {};
  for (const name of PROFILE_TEXT) if (input[name] !== undefined) fields[name] = input[name] === null ? null : String(input[name]);
  for (const name of PROFILE_BOOL) if (input[name] !== undefined) fields[name === 'auditor' ? 'is_auditor' : name] = bool(input[name]);
  for (const name of PROFILE_INT) if (input[name] !== undefined) fields[name] = int(input[name], name);
  if (input.admin !== undefined) fields.is_admin = Boolean(bool(input.admin));
  if (input.name !== undefined) fields.name = String(input.name);
  const problems: Record<string, string[]> = {};
  if (input.password !== undefined) {
    if (String(input.password).length < MIN_PASSWORD) problems.password = [`is too short (minimum is ${MIN_PASSWORD} characters)`];
    else fields.password = String(input.password);
  }
  if (input.username !== undefined) {
    const username = String(input.username);
    if (!USERNAME.test(username)) problems.username = ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."];
    else if (users(req.db).some((u) => u.id !== user?.id && u.username.toLowerCase() === username.toLowerCase())) throw errors.message(409, 'Username has already been taken');
    fields.username = username;
  }
  if (input.email !== undefined) {
    const email = String(input.email);
    if (!EMAIL.test(email)) problems.email = ['is invalid'];
    else if (emailTaken(req.db, email, user?.id)) throw errors.message(409, 'Email has already been taken');
    fields.email = email;
  }
  if (fields.name !== undefined && !String(fields.name).trim()) problems.name = ["can't be blank"];
  if (Object.keys(problems).length) throw errors.validation(problems);
  return fields;
}

/** provider + extern_uid add (or replace) an identity of that provider. */
function identityFrom(req: SandboxRequest, user: User): void {
  const provider = req.input.provider;
  const externUid = req.input.extern_uid;
  if (provider === undefined || externUid === undefined) return;
  const identities = ((user.identities as Array<{ provider: string; extern_uid: string }> | undefined) ?? []).filter((i) => i.provider !== String(provider));
  user.identities = [...identities, { provider: String(provider), extern_uid: String(externUid) }];
}

/** An uploaded avatar replaces the user's; an empty `avatar` takes it away. */
function avatarFrom(req: SandboxRequest, user: User): void {
  if (req.files.avatar) user.avatar = { type: req.files.avatar.contentType, data: req.files.avatar.data.toString('base64') };
  if (req.input.avatar === '') delete user.avatar;
}

/** States the service counts as blocked: the user neither signs in nor uses a token, and cannot be deactivated. */
const BLOCKED: Array<User['state']> = ['blocked', 'ldap_blocked', 'banned', 'blocked_pending_approval'];
/** Deactivation needs this many days without activity (the service's minimum; also its default dormancy period). */
const MINIMUM_INACTIVE_DAYS = 90;

/** The user of a moderation request (administrators), and whether the caller is that user. */
function moderated(req: SandboxRequest): { user: User; self: boolean } {
  const admin = requireAdmin(req);
  const user = findUser(req);
  return { user, self: user.id === admin.id };
}

/** A state change answers 201 `true` (or what the service answers when there was nothing to change). */
function moveTo(user: User, state: User['state']) {
  user.state = state;
  return created(true);
}

/** Whether the user was active in the last MINIMUM_INACTIVE_DAYS days (a sign-in, a push, an API call). */
function recentlyActive(req: SandboxRequest, user: User): boolean {
  if (!user.last_activity_on) return false;
  return Date.parse(user.last_activity_on) > req.now().getTime() - MINIMUM_INACTIVE_DAYS * 86_400_000;
}

/**
 * The user-moderation routes, with the service's answers: block and deactivate answer null when the user is so
 * already (banned and pending users count as blocked), unblock and activate false when there was nothing to change;
 * each refusal is a 403 with its reason, approving or rejecting a user who is not pending a 409.
 */
function moderationRoutes(api: Router): void {
  const { routes } = declared;
  api.route(routes.block, (req) => {
    const { user, self } = moderated(req);
    if (user.state === 'ldap_blocked') throw errors.forbidden('LDAP blocked users cannot be modified by the API');
    if (self) throw errors.forbidden('The API initiating user cannot be blocked by the API');
    // Banned and pending users count as blocked: nothing changes.
    if (BLOCKED.includes(user.state)) return created(null);
    if (isInternal(user)) throw errors.message(403, 'An internal user cannot be blocked');
    return moveTo(user, 'blocked');
  });
  api.route(routes.unblock, (req) => {
    const { user } = moderated(req);
    if (user.state === 'ldap_blocked') throw errors.forbidden('LDAP blocked users cannot be unblocked by the API');
    if (user.state === 'deactivated') throw errors.forbidden('Deactivated users cannot be unblocked by the API');
    // Blocked, banned and pending users are activated; an active one is not (false).
    return user.state === 'active' ? created(false) : moveTo(user, 'active');
  });
  api.route(routes.deactivate, (req) => {
    const { user, self } = moderated(req);
    if (user.state === 'deactivated') return created(null);
    if (BLOCKED.includes(user.state)) throw errors.message(403, 'Error occurred. A blocked user cannot be deactivated');
    if (isInternal(user)) throw errors.message(403, 'Internal users cannot be deactivated');
    // The caller is active right now, whatever the record says.
    if (self || recentlyActive(req, user)) {
      throw errors.message(403, `The user you are trying to deactivate has been active in the past ${MINIMUM_INACTIVE_DAYS} days and cannot be deactivated`);
    }
    return moveTo(user, 'deactivated');
  });
  api.route(routes.activate, (req) => {
    const { user } = moderated(req);
    if (BLOCKED.includes(user.state)) throw errors.forbidden('A blocked user must be unblocked to be activated');
    return user.state === 'active' ? created(false) : moveTo(user, 'active');
  });
  api.route(routes.ban, (req) => {
    const { user } = moderated(req);
    if (user.state !== 'active') throw errors.message(403, `You cannot ban ${user.state} users.`);
    return moveTo(user, 'banned');
  });
  api.route(routes.unban, (req) => {
    const { user } = moderated(req);
    if (user.state !== 'banned') throw errors.message(403, `You cannot unban ${user.state} users.`);
    return moveTo(user, 'active');
  });
  api.route(routes.approve, (req) => {
    const { user } = moderated(req);
    if (user.state !== 'blocked_pending_approval') throw errors.message(409, 'The user you are trying to approve is not pending approval');
    user.state = 'active';
    return created({ message: 'Success' });
  });
  // Rejecting a sign-up deletes the account (with what little it holds).
  api.route(routes.reject, (req) => {
    const { user } = moderated(req);
    if (user.state !== 'blocked_pending_approval') throw errors.message(409, 'User does not have a pending request');
    deleteUser(req.db, user, true);
    return ok({ message: 'Success' });
  });
}

/** An email address as its declaration presents it. */
const presentEmail = (email: Email): Values => presentRecord(emails, email);

function addEmail(req: SandboxRequest, user: User) {
  const email = String(required(req, 'email'));
  if (!EMAIL.test(email)) throw errors.validation({ email: ['is invalid'] });
  if (emailTaken(req.db, email)) throw errors.validation({ email: ['has already been taken'] });
  const record: Email = {
    id: req.db.nextId('emails'), user_id: user.id, email, confirmed_at: bool(req.input.skip_confirmation) ? req.now().toISOString() : null,
  };
  emailTable(req.db).push(record);
  return created(presentEmail(record));
}

export const userAccounts: SandboxModule = {
  routes(api, web) {
    // Uploaded avatars, where the user records' avatar_url points.
    web.add('GET', '/uploads/-/system/user/avatar/:user_id/:file', (req) => {
      const avatar = users(req.db).find((u) => String(u.id) === req.params.user_id)?.avatar as { type: string; data: string } | undefined;
      if (!avatar) throw new HttpError(404, 'Not Found');
      return { status: 200, raw: { data: Buffer.from(avatar.data, 'base64'), contentType: avatar.type } };
    }, { auth: 'none' });

    api.route(declared.routes.create, (req) => {
      requireAdmin(req);
      const missing = ['email', 'name', 'username'].filter((name) => req.input[name] === undefined || req.input[name] === '');
      if (missing.length) throw errors.error(400, missing.map((name) => `${name} is missing`).join(', '));
      if (req.input.password === undefined && !bool(req.input.reset_password) && !bool(req.input.force_random_password)) {
        throw errors.error(400, 'password, reset_password, force_random_password are missing, at least one parameter must be provided');
      }
      const fields = profileFrom(req, undefined);
      const user = addUser(req.db, { ...fields, username: String(fields.username), created_by_id: req.user!.id }, req.now());
      avatarFrom(req, user);
      identityFrom(req, user);
      return created(presentFullUser(user, req));
    });

    api.route(declared.routes.update, (req) => {
      requireAdmin(req);
      const user = findUser(req);
      Object.assign(user, profileFrom(req, user), { updated_at: req.now().toISOString() });
      avatarFrom(req, user);
      identityFrom(req, user);
      return ok(presentFullUser(user, req));
    });

    api.route(declared.routes.delete, (req) => {
      const { user, self } = moderated(req);
      if (self) throw errors.forbidden();
      const hard = Boolean(bool(req.input.hard_delete));
      // A user who alone owns a group is kept without hard_delete (409).
      deleteUser(req.db, user, hard, req.now());
      return noContent();
    });

    moderationRoutes(api);

    api.route(declared.routes.deleteIdentity, (req) => {
      requireAdmin(req);
      const user = findUser(req);
      const identities = (user.identities as Array<{ provider: string }> | undefined) ?? [];
      if (!identities.some((i) => i.provider === req.params.provider)) throw errors.notFound('Identity');
      user.identities = identities.filter((i) => i.provider !== req.params.provider);
      return noContent();
    });

    // Secondary emails: your own under /user/emails, anyone's for administrators under /users/{user}/emails.
    userRecordRoutes(api, emails, { table: emailTable, notFound: 'Email', present: presentEmail, add: addEmail, userOf: (req) => findUser(req) });
  },
};

