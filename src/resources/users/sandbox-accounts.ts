import { emails } from '../emails/resource.js';
import { users as declared } from './resource.js';
import { requireAdmin, requireUser } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { bool, created, errors, HttpError, int, noContent, ok, type SandboxRequest } from '../../sandbox/http.js';
import { groups, members, projects, tokens, userNamespaceId, users, type User, type Email, emailTable } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { paginate } from '../../sandbox/pagination.js';
import { addUser } from '../../sandbox/seed.js';
import { deleteProjectNow } from '../../sandbox/deletion.js';
import { presentFullUser } from '../../sandbox/users.js';

/**
 * Administering user accounts (the service's users API): create, update, delete; block, unblock, ban, unban,
 * deactivate, activate; secondary emails; identities. SSH keys live in keys.ts.
 */

/** Profile fields an administrator sets on create and update, stored on the user record as given. */
const PROFILE_TEXT = ['bio', 'location', 'public_email', 'skype', 'linkedin', 'twitter', 'discord', 'website_url', 'organization', 'job_title', 'pronouns', 'note', 'commit_email'];
const PROFILE_BOOL = ['can_create_group', 'private_profile', 'external', 'auditor', 'view_diffs_file_by_file'];
const PROFILE_INT = ['projects_limit', 'theme_id', 'color_scheme_id', 'shared_runners_minutes_limit', 'extra_shared_runners_minutes_limit'];

const USERNAME = /^[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*[a-zA-Z0-9_-]$|^[a-zA-Z0-9_]$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const MIN_PASSWORD = 8;

function findUser(req: SandboxRequest, raw = req.params.user): User {
  const user = /^\d+$/.test(raw) ? users(req.db).find((u) => u.id === Number(raw)) : undefined;
  if (!user) throw errors.notFound('User');
  return user;
}

/** Whether an address is someone's primary or secondary email (case-insensitive). */
function emailTaken(db: Db, email: string, except?: { userId?: number; emailId?: number }): boolean {
  const wanted = email.toLowerCase();
  return users(db).some((u) => u.id !== except?.userId && u.email.toLowerCase() === wanted)
    || emailTable(db).some((e) => e.id !== except?.emailId && e.email.toLowerCase() === wanted);
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
    else if (emailTaken(req.db, email, { userId: user?.id })) throw errors.message(409, 'Email has already been taken');
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

/** The answer of block and its kin: `true` when the state changed; block and unblock answer as the service does otherwise. */
function changeState(req: SandboxRequest, to: User['state'], allowed: Array<User['state']>, unchanged: unknown) {
  const admin = requireAdmin(req);
  const user = findUser(req);
  if (user.id === admin.id && to !== 'active') throw errors.forbidden(`The API you are using cannot be used to ${to === 'blocked' ? 'block' : to === 'banned' ? 'ban' : 'deactivate'} yourself`);
  if (user.state === to) return created(unchanged);
  if (!allowed.includes(user.state)) {
    throw errors.forbidden(`A user in the ${user.state} state cannot be ${to === 'active' ? 'activated' : to}`);
  }
  user.state = to;
  return created(true);
}

/** Deletes the user and what is theirs: memberships, tokens, emails, personal projects; with hard_delete, the groups they alone own. */
function deleteUser(db: Db, user: User, hard: boolean): void {
  const soleOwned = groups(db).filter((g) => {
    const owners = members(db).filter((m) => m.source_type === 'group' && m.source_id === g.id && m.access_level === 50);
    return owners.length === 1 && owners[0].user_id === user.id;
  });
  // Without hard_delete the service keeps a user who alone owns a group (the deletion job fails).
  if (soleOwned.length && !hard) return;
  for (const project of projects(db).filter((p) => p.namespace_id === userNamespaceId(user))) deleteProjectNow(db, project);
  const keepWhere = <T>(table: T[], keep: (record: T) => boolean) => table.splice(0, table.length, ...table.filter(keep));
  const doomedGroups = new Set(soleOwned.map((g) => g.id));
  keepWhere(groups(db), (g) => !doomedGroups.has(g.id));
  keepWhere(members(db), (m) => m.user_id !== user.id && !(m.source_type === 'group' && doomedGroups.has(m.source_id)));
  keepWhere(tokens(db), (t) => t.user_id !== user.id);
  keepWhere(emailTable(db), (e) => e.user_id !== user.id);
  keepWhere(users(db), (u) => u.id !== user.id);
}

function presentEmail(email: Email): Record<string, unknown> {
  return { id: email.id, email: email.email, confirmed_at: email.confirmed_at };
}

function addEmail(req: SandboxRequest, user: User) {
  const value = req.input.email;
  if (value === undefined || value === null || value === '') throw errors.missing('email');
  const email = String(value);
  if (!EMAIL.test(email)) throw errors.validation({ email: ['is invalid'] });
  if (emailTaken(req.db, email)) throw errors.validation({ email: ['has already been taken'] });
  const record: Email = {
    id: req.db.nextId('emails'), user_id: user.id, email, confirmed_at: bool(req.input.skip_confirmation) ? req.now().toISOString() : null,
  };
  emailTable(req.db).push(record);
  return created(presentEmail(record));
}

function findEmail(req: SandboxRequest, user: User): Email {
  const email = emailTable(req.db).find((e) => e.user_id === user.id && String(e.id) === req.params.email_id);
  if (!email) throw errors.notFound('Email');
  return email;
}

export const userAccounts: SandboxModule = {
  routes(api, web) {
    // Uploaded avatars, where the user records' avatar_url points.
    web.get('/uploads/-/system/user/avatar/:user_id/:file', (req) => {
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
      if (req.files.avatar) user.avatar = { type: req.files.avatar.contentType, data: req.files.avatar.data.toString('base64') };
      identityFrom(req, user);
      return created(presentFullUser(user, req));
    });

    api.route(declared.routes.update, (req) => {
      requireAdmin(req);
      const user = findUser(req);
      Object.assign(user, profileFrom(req, user), { updated_at: req.now().toISOString() });
      if (req.files.avatar) user.avatar = { type: req.files.avatar.contentType, data: req.files.avatar.data.toString('base64') };
      if (req.input.avatar === '') delete user.avatar;
      identityFrom(req, user);
      return ok(presentFullUser(user, req));
    });

    api.route(declared.routes.delete, (req) => {
      const admin = requireAdmin(req);
      const user = findUser(req);
      if (user.id === admin.id) throw errors.forbidden();
      deleteUser(req.db, user, Boolean(bool(req.input.hard_delete)));
      return noContent();
    });

    // Blocking an already blocked user answers null; unblocking an active one, false (as the service's endpoints return).
    api.route(declared.routes.block, (req) => changeState(req, 'blocked', ['active', 'deactivated'], null));
    api.route(declared.routes.unblock, (req) => {
      const user = findUser(req);
      if (user.state === 'deactivated') throw errors.forbidden('Deactivated users cannot be unblocked by the API');
      if (user.state === 'banned') throw errors.forbidden('Banned users cannot be unblocked by the API');
      return user.state === 'blocked' ? changeState(req, 'active', ['blocked'], true) : (requireAdmin(req), created(false));
    });
    api.route(declared.routes.ban, (req) => changeState(req, 'banned', ['active'], true));
    api.route(declared.routes.unban, (req) => {
      if (findUser(req).state !== 'banned') throw errors.forbidden('You cannot unban active users.');
      return changeState(req, 'active', ['banned'], true);
    });
    api.route(declared.routes.deactivate, (req) => changeState(req, 'deactivated', ['active'], true));
    api.route(declared.routes.activate, (req) => {
      if (findUser(req).state === 'blocked') throw errors.forbidden('A blocked user must be unblocked to be activated');
      return changeState(req, 'active', ['deactivated'], true);
    });

    api.route(declared.routes.deleteIdentity, (req) => {
      requireAdmin(req);
      const user = findUser(req);
      const identities = (user.identities as Array<{ provider: string }> | undefined) ?? [];
      if (!identities.some((i) => i.provider === req.params.provider)) throw errors.notFound('Identity');
      user.identities = identities.filter((i) => i.provider !== req.params.provider);
      return noContent();
    });

    // Secondary emails: your own under /user/emails, anyone's for administrators under /users/{user}/emails.
    const { current, user: ofUser } = emails.parents;
    api.route(current.routes.list, (req) => paginate(req, emailTable(req.db).filter((e) => e.user_id === requireUser(req).id), { present: presentEmail }), { scope: 'read_user' });
    api.route(current.routes.get, (req) => ok(presentEmail(findEmail(req, requireUser(req)))), { scope: 'read_user' });
    api.route(current.routes.create, (req) => addEmail(req, requireUser(req)));
    api.route(current.routes.delete, (req) => {
      const email = findEmail(req, requireUser(req));
      emailTable(req.db).splice(emailTable(req.db).indexOf(email), 1);
      return noContent();
    });
    api.route(ofUser.routes.list, (req) => {
      requireAdmin(req);
      const user = findUser(req);
      return paginate(req, emailTable(req.db).filter((e) => e.user_id === user.id), { present: presentEmail });
    });
    api.route(ofUser.routes.create, (req) => {
      requireAdmin(req);
      return addEmail(req, findUser(req));
    });
    api.route(ofUser.routes.delete, (req) => {
      requireAdmin(req);
      const email = findEmail(req, findUser(req));
      emailTable(req.db).splice(emailTable(req.db).indexOf(email), 1);
      return noContent();
    });
  },
};

