import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/**
 * SSH keys: those of the instance with their owners, by id or found by fingerprint (administrators; deploy keys
 * too), which the `keys` commands read; and a user's own, of your account (`/user/keys`) or of anyone's
 * (`/users/{user}/keys`: public to read, changed by administrators), which the sandbox serves for other clients.
 * A user's keys are presented without their owner (`user`).
 */
export const sshKeys = defineResource({
  noun: 'key',
  command: 'keys',
  id: { param: 'key_id', field: 'id' },
  parents: {
    instance: {
      parent: 'instance',
      where: () => 'the instance',
      routes: { get: 'GET /keys/{key_id}', find: 'GET /keys' },
    },
    current: {
      parent: 'instance',
      where: () => 'your account',
      routes: {
        list: 'GET /user/keys',
        get: 'GET /user/keys/{key_id}',
        create: 'POST /user/keys',
        delete: 'DELETE /user/keys/{key_id}',
      },
      roles: { read: 'guest', write: 'guest' },
    },
    user: {
      parent: 'user',
      routes: {
        list: 'GET /users/{user}/keys',
        get: 'GET /users/{user}/keys/{key_id}',
        create: 'POST /users/{user}/keys',
        delete: 'DELETE /users/{user}/keys/{key_id}',
      },
      roles: { read: 'guest', write: 'owner' },
    },
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    title: f.string({ create: 'required' }),
    key: f.string({ create: 'required', update: false }),
    created_at: f.time({ readOnly: true }),
    expires_at: f.time({ nullable: true }),
    last_used_at: f.time({ readOnly: true, nullable: true }),
    usage_type: f.enum(['auth', 'signing', 'auth_and_signing'], { default: 'auth_and_signing' }),
    user: f.object(),
  },
  columns: ['id', 'title', 'usage_type', 'user.username'],
  identity: ['key'],
  roles: { read: 'owner', write: 'owner' },
});
