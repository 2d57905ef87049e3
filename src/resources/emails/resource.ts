import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/**
 * A user's secondary email addresses (the primary one is the user's `email`): your own (`/user/emails`), or any
 * user's for administrators. No command calls these routes; the sandbox serves them for other clients
 * (python-gitlab's functional tests).
 */
export const emails = defineResource({
  noun: 'email address',
  id: { param: 'email_id', field: 'id' },
  parents: {
    current: {
      parent: 'instance',
      where: () => 'your account',
      routes: {
        list: 'GET /user/emails',
        get: 'GET /user/emails/{email_id}',
        create: 'POST /user/emails',
        delete: 'DELETE /user/emails/{email_id}',
      },
    },
    user: {
      parent: 'user',
      routes: {
        list: 'GET /users/{user}/emails',
        create: 'POST /users/{user}/emails',
        delete: 'DELETE /users/{user}/emails/{email_id}',
      },
      roles: { read: 'owner', write: 'owner' },
    },
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    email: f.string({ create: 'required', update: false }),
    confirmed_at: f.time({ readOnly: true, nullable: true }),
  },
  columns: ['id', 'email', 'confirmed_at'],
  identity: ['email'],
  roles: { read: 'guest', write: 'guest' },
});
