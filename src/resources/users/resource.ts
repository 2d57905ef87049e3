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

/**
 * Users of the instance, by id (`users get` looks a username up with the list's `username` filter); `current` is the
 * user the token belongs to. Administrators create, delete and moderate accounts (block, deactivate, ban and their
 * reverses; approve or reject a pending sign-up); create and update answer the full user record, of which the
 * fields below are the list's.
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
  fields: USER_FIELDS,
  filters: { username: f.string() },
  columns: ['id', 'username', 'name', 'state', 'web_url'],
  identity: ['username'],
  roles: { read: 'guest', write: 'owner' },
});
