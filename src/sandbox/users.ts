import type { Db } from './db.js';
import { requireAdmin, requireUser, Role, userFor } from './auth.js';
import { deleteGroupNow, deleteProjectNow, keepWhere } from './deletion.js';
import { groupChain } from './hierarchy.js';
import { bool, errors, noContent, ok, type SandboxRequest, type SandboxResponse } from './http.js';
import {
  commitComments, emailTable, gpgKeys, groups, issues, members, mergeRequests, notesTable as notes, projects, snippets, sshKeyTable, tokens, userNamespaceId,
  userAvatarUrl, users as usersTable, type Group, type Identity, type User,
} from './model.js';
import { addUser } from './seed.js';
import { timeParam } from './listing.js';
import { presentUserBasic } from './present.js';
import { paginate } from './pagination.js';
import { presentRecord, type Values } from './records.js';
import type { Router } from './router.js';
import { placed, type MultiParentDef } from '../api/resource.js';
import { PREMIUM_USER_FIELDS, USER_FIELDS, USER_PROFILE_FIELDS, users as declaredUsers } from '../resources/users/resource.js';

/**
 * Users as the instance sees them, shared by the modules that show, count or delete them: the type of a user,
 * whether it takes a license seat, the full user record (users, SSH keys, user accounts), and deleting one (user
 * accounts, service accounts).
 */

/** Group and project access token bots are both of type project_bot, as on real instances. */
export function userType(user: User): string {
  return (user.user_type as string | undefined) ?? (user.bot ? 'project_bot' : 'human');
}

/** A user's external identities (LDAP, SAML …). */
export const identities = (user: User): Identity[] => (user.identities as Identity[] | undefined) ?? [];
export const isPremium = (req: SandboxRequest): boolean => req.tier !== 'free';

/** A user who takes a license seat: an active human. */
export function isBillable(user: User): boolean {
  return user.state === 'active' && userType(user) === 'human';
}

/** What another user sees of a user: the basic fields and the public profile. */
const PUBLIC_USER = { fields: { ...USER_FIELDS, ...USER_PROFILE_FIELDS } };
/** The whole record on the free edition, which goes without the Premium fields. */
const FREE_USER = { fields: declaredUsers.fields, without: PREMIUM_USER_FIELDS };

/**
 * The user record as its declaration presents it: the public profile for others, the whole record (the private and
 * administrator's fields) for administrators and for the user themself.
 */
export function presentFullUser(user: User, req: SandboxRequest): Record<string, unknown> {
  const own = req.user?.is_admin || req.user?.id === user.id;
  const record = presentRecord(!own ? PUBLIC_USER : isPremium(req) ? declaredUsers : FREE_USER, user, derivedUserFields(user, req));
  if (own && bool(req.query.with_custom_attributes)) {
    record.custom_attributes = Object.entries((user.custom_attributes as Record<string, string> | undefined) ?? {}).map(([key, value]) => ({ key, value }));
  }
  return record;
}

/** A profile's text as the service answers it when unset: empty. */
const textOf = (value: unknown): unknown => value ?? '';

/** What the user record has that the sandbox does not store: the defaults of what is unset, and what it derives. */
function derivedUserFields(user: User, req: SandboxRequest): Values {
  const creator = user.created_by_id === undefined ? undefined : usersTable(req.db).find((u) => u.id === user.created_by_id);
  // One object literal, neither spread nor assigned to: presenting long lists of users stays fast (see presentRecord).
  return {
    locked: false, avatar_url: userAvatarUrl(user, req.rootUrl), web_url: `${req.rootUrl}/${user.username}`,
    bio: textOf(user.bio), location: textOf(user.location), skype: textOf(user.skype), linkedin: textOf(user.linkedin), twitter: textOf(user.twitter),
    discord: textOf(user.discord), website_url: textOf(user.website_url), organization: textOf(user.organization), job_title: textOf(user.job_title),
    followers: 0, following: 0, is_followed: false,
    // What the sandbox does not keep track of (sign-ins, CI minutes, plans): none, whatever a user record holds.
    work_information: null, local_time: null, email_reset_offered_at: null, last_sign_in_at: null, current_sign_in_at: null,
    current_sign_in_ip: null, last_sign_in_ip: null, plan: null, shared_runners_minutes_limit: null, extra_shared_runners_minutes_limit: null,
    identities: identities(user).map((i) => ({ provider: i.provider, extern_uid: i.extern_uid, saml_provider_id: i.saml_provider_id ?? null })),
    namespace_id: userNamespaceId(user),
    created_by: creator ? presentUserBasic(creator, req.rootUrl) : null,
    confirmed_at: user.created_at,
    sign_in_count: 0,
    theme_id: user.theme_id ?? 1,
    color_scheme_id: user.color_scheme_id ?? 1,
    projects_limit: user.projects_limit ?? 100000,
    can_create_group: user.can_create_group !== false,
    can_create_project: true,
    two_factor_enabled: user.two_factor_enabled === true,
    private_profile: user.private_profile === true,
    commit_email: user.commit_email ?? user.email,
    scim_identities: [],
    trial: false,
    is_auditor: user.is_auditor === true,
    using_license_seat: isBillable(user),
  };
}

/** User types the service counts as internal (ghost, bots the instance runs itself). */
const INTERNAL_TYPES = ['ghost', 'support_bot', 'alert_bot', 'visual_review_bot', 'migration_bot', 'security_bot', 'automation_bot', 'admin_bot', 'llm_bot', 'placeholder', 'import_user'];

/** A user the instance runs itself (the ghost user, its bots): never blocked, deactivated or deleted through the API. */
export const isInternal = (user: User): boolean => INTERNAL_TYPES.includes(userType(user));

/** States whose users only administrators find: everyone else finds every other user, bots and service accounts too. */
const HIDDEN_FROM_SEARCH: Array<User['state']> = ['blocked', 'banned', 'ldap_blocked'];

/**
 * Users visible to the caller with the filters every user may use: administrators find everyone, others every user
 * but the blocked and banned ones, and their created_after and created_before are ignored. Without any filter an
 * administrator gets the table itself, not a copy (a page of a long list costs one page's worth): the result is
 * never changed in place.
 */
export function filterUsers(req: SandboxRequest): readonly User[] {
  const q = req.query;
  const admin = Boolean(req.user?.is_admin);
  const table = usersTable(req.db);
  let list: readonly User[] = admin ? table : table.filter((u) => !HIDDEN_FROM_SEARCH.includes(u.state));
  if (q.username) list = list.filter((u) => u.username.toLowerCase() === String(q.username).toLowerCase());
  if (q.search) {
    // Names and usernames match in part; emails only whole, private ones only for administrators.
    const s = String(q.search).toLowerCase();
    const email = (value: unknown): boolean => typeof value === 'string' && value.toLowerCase() === s;
    list = list.filter((u) => u.username.toLowerCase().includes(s) || u.name.toLowerCase().includes(s) || email(u.public_email) || (admin && email(u.email)));
  }
  // Only `true` has an effect for active, blocked and external.
  if (bool(q.active)) list = list.filter((u) => u.state === 'active');
  if (bool(q.blocked)) list = list.filter((u) => u.state === 'blocked' || u.state === 'ldap_blocked');
  if (bool(q.external)) list = list.filter((u) => u.external);
  if (bool(q.exclude_active)) list = list.filter((u) => u.state !== 'active');
  if (bool(q.exclude_external)) list = list.filter((u) => !u.external);
  if (bool(q.humans)) list = list.filter((u) => userType(u) === 'human');
  if (bool(q.exclude_humans)) list = list.filter((u) => userType(u) !== 'human');
  if (bool(q.exclude_internal)) list = list.filter((u) => !INTERNAL_TYPES.includes(userType(u)));
  if (bool(q.without_project_bots)) list = list.filter((u) => userType(u) !== 'project_bot');
  // Checked for everyone ("created_after is invalid", as the users API words it), applied for administrators only.
  const isInvalid = (name: string) => errors.error(400, `${name} is invalid`);
  const after = timeParam(req, 'created_after', isInvalid);
  const before = timeParam(req, 'created_before', isInvalid);
  if (!admin) return list;
  if (after !== undefined) list = list.filter((u) => Date.parse(u.created_at) > after);
  if (before !== undefined) list = list.filter((u) => Date.parse(u.created_at) < before);
  return list;
}

/**
 * The groups a user alone owns: those where they are a direct owner and no other owner is found in the group or
 * its ancestors (the service refuses to delete such a user unless hard_delete, which deletes the groups too).
 */
function soloOwnedGroups(db: Db, user: User): Group[] {
  const owners = (group: Group) => members(db).filter((m) => m.source_type === 'group' && m.source_id === group.id && m.access_level === Role.owner);
  return groups(db).filter((group) => {
    if (!owners(group).some((m) => m.user_id === user.id)) return false;
    return groupChain(db, group.id).flatMap(owners).every((m) => m.user_id === user.id);
  });
}

/** The user the service gives a deleted user's contributions to (made on first use, as the service does). */
function ghostUser(db: Db, now: Date): User {
  return usersTable(db).find((u) => u.user_type === 'ghost') ?? addUser(db, { username: 'ghost', name: 'Ghost User', user_type: 'ghost', bio: 'This is a "Ghost User", created to hold all issues authored by users that have since been deleted. This user cannot be removed.' }, now);
}

/**
 * Deletes what is the user's: memberships, tokens, keys, emails, personal projects. Their contributions (issues,
 * merge requests, notes, snippets, commit comments) go to the ghost user; with hard_delete they are deleted, and so
 * are the groups the user alone owns. Without hard_delete, a user who alone owns a group is kept: 409, as the users
 * and service accounts APIs answer. The user record itself is the caller's to remove (deleteUser, or a generated
 * module's delete).
 */
export function deleteBelongings(db: Db, user: User, hard: boolean, now = new Date()): void {
  const soloOwned = soloOwnedGroups(db, user);
  if (soloOwned.length && !hard) throw errors.message(409, 'User cannot be removed while is the sole-owner of a group');
  for (const project of projects(db).filter((p) => p.namespace_id === userNamespaceId(user))) deleteProjectNow(db, project);
  for (const group of soloOwned) deleteGroupNow(db, group);
  const contributions: Array<Array<{ author_id: number }>> = [issues(db), mergeRequests(db), notes(db), snippets(db), commitComments(db)];
  if (hard) for (const table of contributions) keepWhere(table, (record) => record.author_id !== user.id);
  else if (contributions.some((table) => table.some((record) => record.author_id === user.id))) {
    const ghost = ghostUser(db, now);
    for (const table of contributions) for (const record of table) if (record.author_id === user.id) record.author_id = ghost.id;
  }
  keepWhere(members(db), (m) => m.user_id !== user.id);
  keepWhere(tokens(db), (t) => t.user_id !== user.id);
  keepWhere(sshKeyTable(db), (k) => k.user_id !== user.id || k.deploy_keys_projects !== undefined || k.public === true);
  keepWhere(gpgKeys(db), (k) => k.user_id !== user.id);
  keepWhere(emailTable(db), (e) => e.user_id !== user.id);
}

/** Deletes the user and what is theirs (deleteBelongings). */
export function deleteUser(db: Db, user: User, hard: boolean, now = new Date()): void {
  deleteBelongings(db, user, hard, now);
  keepWhere(usersTable(db), (u) => u.id !== user.id);
}

/** How the routes of records a user has (userRecordRoutes) store, present and add them. */
export interface UserRecords<T extends { id: number; user_id: number }> {
  table(db: Db): T[];
  /** Whether a record of the table is a user's own (a deploy key, kept in the table of SSH keys, is not); default: all are. */
  owned?(record: T): boolean;
  /** "404 <this> Not Found" for an id the user has no record under. */
  notFound: string;
  present(record: T): Values;
  /** Adds a record to the user from a create request; its answer. */
  add(req: SandboxRequest, user: User): SandboxResponse;
  /** The user a `{user}` route names; default: by id or username (auth.ts userFor). */
  userOf?(req: SandboxRequest): User;
}

/**
 * The routes of records a user has, declared at two placements as the service serves SSH keys, GPG keys and
 * secondary emails: `current`, the caller's own (read with a read_user token too), and `user`, anyone's: public to
 * read where its declared read role is guest (anonymous callers too); read or changed by administrators only where
 * the declared role is owner. Records are listed oldest first; an id the user has no record under is 404.
 */
export function userRecordRoutes<T extends { id: number; user_id: number }>(api: Router, declared: MultiParentDef, records: UserRecords<T>): void {
  const { table, owned = () => true, notFound, present, add, userOf = (req: SandboxRequest) => userFor(req) } = records;
  const ofUser = (db: Db, user: User): T[] => table(db).filter((r) => r.user_id === user.id && owned(r));
  const find = (req: SandboxRequest, user: User): T => {
    const record = ofUser(req.db, user).find((r) => String(r.id) === req.params[declared.id.param]);
    if (!record) throw errors.notFound(notFound);
    return record;
  };
  const remove = (req: SandboxRequest, record: T): SandboxResponse => {
    table(req.db).splice(table(req.db).indexOf(record), 1);
    return noContent();
  };
  const own = placed(declared, 'current').routes;
  if (own.list) api.route(own.list, (req) => paginate(req, ofUser(req.db, requireUser(req)), { present }), { scope: 'read_user' });
  if (own.get) api.route(own.get, (req) => ok(present(find(req, requireUser(req)))), { scope: 'read_user' });
  if (own.create) api.route(own.create, (req) => add(req, requireUser(req)));
  if (own.delete) api.route(own.delete, (req) => remove(req, find(req, requireUser(req))));

  const anyones = placed(declared, 'user');
  const publicReads = anyones.roles.read === 'guest';
  const user = (req: SandboxRequest, minRole: number): User => {
    if (minRole >= Role.owner) requireAdmin(req);
    return userOf(req);
  };
  const read = Role[anyones.roles.read];
  const write = Role[anyones.roles.write];
  const readOptions = publicReads ? { auth: 'optional' as const } : {};
  const { list, get, create, delete: del } = anyones.routes;
  if (list) api.route(list, (req) => paginate(req, ofUser(req.db, user(req, read)), { present }), readOptions);
  if (get) api.route(get, (req) => ok(present(find(req, user(req, read)))), readOptions);
  if (create) api.route(create, (req) => add(req, user(req, write)));
  if (del) api.route(del, (req) => remove(req, find(req, user(req, write))));
}
