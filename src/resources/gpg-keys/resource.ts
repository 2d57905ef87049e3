import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/**
 * A user's GPG public keys (signed commits): your own (`/user/gpg_keys`), or anyone's, public to read and changed
 * by administrators. No command calls these routes; the sandbox serves them for other clients (python-gitlab).
 */
export const gpgKeys = defineResource({
  noun: 'GPG key',
  id: { param: 'key_id', field: 'id' },
  parents: {
    current: {
      parent: 'instance',
      where: () => 'your account',
      routes: {
        list: 'GET /user/gpg_keys',
        get: 'GET /user/gpg_keys/{key_id}',
        create: 'POST /user/gpg_keys',
        delete: 'DELETE /user/gpg_keys/{key_id}',
      },
    },
    user: {
      parent: 'user',
      routes: {
        list: 'GET /users/{user}/gpg_keys',
        get: 'GET /users/{user}/gpg_keys/{key_id}',
        create: 'POST /users/{user}/gpg_keys',
        delete: 'DELETE /users/{user}/gpg_keys/{key_id}',
      },
      roles: { read: 'guest', write: 'owner' },
    },
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    key: f.string({ create: 'required', update: false, help: 'the armored public key block' }),
    created_at: f.time({ readOnly: true }),
  },
  columns: ['id', 'created_at'],
  identity: ['key'],
  roles: { read: 'guest', write: 'guest' },
});
