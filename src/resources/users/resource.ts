import { UsageError } from '../../errors.js';
import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** A user as the service shows one anywhere (a member, an author, the list of users). */
export const USER_FIELDS = {
  id: f.int({ min: 1, readOnly: true }),
  username: f.string({ readOnly: true }),
  name: f.string({ readOnly: true }),
  state: f.string({ readOnly: true }),
  locked: f.bool({ readOnly: true }),
  avatar_url: f.url({ readOnly: true, nullable: true }),
  web_url: f.url({ readOnly: true }),
};

const text = { readOnly: true } as const;
const maybe = { readOnly: true, nullable: true } as const;

/** A user's public profile: what anyone signed in sees of another user, after the fields above. */
export const USER_PROFILE_FIELDS = {
  created_at: f.time(text),
  bio: f.string(text),
  bot: f.bool(text),
  location: f.string(text),
  public_email: f.string(maybe),
  skype: f.string(text),
  linkedin: f.string(text),
  twitter: f.string(text),
  discord: f.string(text),
  website_url: f.string(text),
  organization: f.string(text),
  job_title: f.string(text),
  pronouns: f.string(maybe),
  work_information: f.string(maybe),
  followers: f.int(text),
  following: f.int(text),
  local_time: f.string(maybe),
  is_followed: f.bool(text),
};

/** What administrators, and the user themself, see beside the profile; the last five only on Premium and Ultimate. */
const USER_ACCOUNT_FIELDS = {
  email: f.string(text),
  is_admin: f.bool(text),
  note: f.string(maybe),
  identities: f.object(text),
  namespace_id: f.int(text),
  created_by: f.object(maybe),
  email_reset_offered_at: f.time(maybe),
  last_sign_in_at: f.time(maybe),
  confirmed_at: f.time(maybe),
  current_sign_in_at: f.time(maybe),
  last_activity_on: f.date(maybe),
  current_sign_in_ip: f.string(maybe),
  last_sign_in_ip: f.string(maybe),
  sign_in_count: f.int(text),
  theme_id: f.int(text),
  color_scheme_id: f.int(text),
  projects_limit: f.int(text),
  can_create_group: f.bool(text),
  can_create_project: f.bool(text),
  two_factor_enabled: f.bool(text),
  external: f.bool(text),
  private_profile: f.bool(text),
  commit_email: f.string(text),
  scim_identities: f.object(text),
  plan: f.string(maybe),
  trial: f.bool(text),
  shared_runners_minutes_limit: f.int(maybe),
  extra_shared_runners_minutes_limit: f.int(maybe),
  is_auditor: f.bool(text),
  using_license_seat: f.bool(text),
  provisioned_by_group_id: f.int(maybe),
};

/** The user record's fields only Premium and Ultimate present. */
export const PREMIUM_USER_FIELDS = ['shared_runners_minutes_limit', 'extra_shared_runners_minutes_limit', 'is_auditor', 'using_license_seat', 'provisioned_by_group_id'];

/**
 * Users of the instance, by id (`users get` looks a username up with the list's `username` filter); `current` is the
 * user the token belongs to. Administrators create, delete and moderate accounts (block, deactivate, ban and their
 * reverses; approve or reject a pending sign-up). Everyone sees the basic fields of a user in a list and the public
 * profile of one user; administrators, and the user themself, the whole record (create and update answer it too).
 */
export const users = defineResource({
  noun: 'user',
  command: 'users',
  parent: 'instance',
  id: { param: 'user', field: 'id' },
  routes: {
    list: 'GET /users',
    get: 'GET /users/{user}',
    current: 'GET /user',
    /** The groups and projects a user is a direct member of (administrators). */
    memberships: 'GET /users/{user}/memberships',
    create: 'POST /users',
    update: 'PUT /users/{user}',
    delete: 'DELETE /users/{user}',
    /** State changes answer true (or the service's false/null when there was nothing to change), 201. */
    block: 'POST /users/{user}/block',
    unblock: 'POST /users/{user}/unblock',
    ban: 'POST /users/{user}/ban',
    unban: 'POST /users/{user}/unban',
    deactivate: 'POST /users/{user}/deactivate',
    activate: 'POST /users/{user}/activate',
    /** A sign-up pending an administrator's approval: approve answers 201 `{"message":"Success"}`; reject deletes the account (200). */
    approve: 'POST /users/{user}/approve',
    reject: 'POST /users/{user}/reject',
    /** Removes the user's identity of an external provider (LDAP, SAML …). */
    deleteIdentity: 'DELETE /users/{user}/identities/{provider}',
  },
  fields: { ...USER_FIELDS, ...USER_PROFILE_FIELDS, ...USER_ACCOUNT_FIELDS },
  filters: { username: f.string() },
  columns: ['id', 'username', 'name', 'state', 'web_url'],
  identity: ['username'],
  roles: { read: 'guest', write: 'owner' },
});

/**
 * The service's rules for a new account's username and email, checked before anything is sent (users create,
 * service-accounts create and update): a refusal after the request would be exit 6 for what is bad input.
 */

/** Letters, digits, '_', '-' and '.'; not starting with '-'; not ending in '.' (nor, below, in '.git' or '.atom'). */
export const USERNAME_PATTERN = /^[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*[a-zA-Z0-9_-]$|^[a-zA-Z0-9_]$/;

export function checkUsername(text: string, label: string): string {
  if (!USERNAME_PATTERN.test(text) || /\.(git|atom)$/.test(text)) {
    throw new UsageError(`${label} "${text}" is not a username the service takes`, "letters, digits, '_', '-' and '.'; not starting with '-', not ending in '.', '.git' or '.atom'");
  }
  return text;
}

export function checkEmail(text: string, label: string): string {
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(text)) throw new UsageError(`${label} "${text}" is not an email address`);
  return text;
}
