import { f } from '../fields.js';
import { defineResource } from '../resource.js';

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

/**
 * Users of the instance, by id (`users get` looks a username up with the list's `username` filter); `current` is the
 * user the token belongs to.
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
  },
  fields: USER_FIELDS,
  filters: { username: f.string() },
  columns: ['id', 'username', 'name', 'state', 'web_url'],
  identity: ['username'],
  roles: { read: 'guest', write: 'owner' },
});

/** SSH and deploy keys of the instance with their owners (administrators): by id, or found by fingerprint. */
export const sshKeys = defineResource({
  noun: 'key',
  command: 'keys',
  parent: 'instance',
  id: { param: 'key_id', field: 'id' },
  routes: { get: 'GET /keys/{key_id}', find: 'GET /keys' },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    title: f.string({ readOnly: true }),
    key: f.string({ readOnly: true }),
    created_at: f.time({ readOnly: true }),
    expires_at: f.time({ readOnly: true, nullable: true }),
    last_used_at: f.time({ readOnly: true, nullable: true }),
    usage_type: f.string({ readOnly: true }),
    user: f.object(),
  },
  columns: ['id', 'title', 'usage_type', 'user.username'],
  identity: ['key'],
  roles: { read: 'owner', write: 'owner' },
});
