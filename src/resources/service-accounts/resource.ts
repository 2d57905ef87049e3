import { f, kindField } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';
import { PERSONAL_TOKEN_FIELDS, TOKEN_LIST } from '../access-tokens/resource.js';
import { checkEmail, checkUsername } from '../users/resource.js';

// For this resource's sandbox module, which reads its own declaration only.
export { USERNAME_PATTERN } from '../users/resource.js';

const username = kindField<string>({ name: 'username', type: 'string', placeholder: '<username>', parse: checkUsername });

const email = kindField<string>({ name: 'email', type: 'string', placeholder: '<email>', parse: checkEmail });

/**
 * Service accounts: users that no person signs in as, made for automation, with personal access tokens of their own.
 * An instance's (administrators; `--instance`) or a top-level group's (its Owners, where the instance lets group
 * Owners make them; `--group`). Premium and Ultimate. The service generates what is not given: the username
 * (`service_account_…`, `service_account_group_<id>_…` for a group's), the name ("Service account user") and a no-reply
 * email on the instance's host. An instance's account is deleted as any user is (`DELETE /users/:id`); the service
 * has no route that reads one account, so commands find it in the list.
 */
export const serviceAccounts = defineResource({
  noun: 'service account',
  command: 'service-accounts',
  id: { param: 'user', field: 'id' },
  parents: {
    instance: {
      parent: 'instance',
      where: () => 'the instance',
      routes: {
        list: 'GET /service_accounts',
        create: 'POST /service_accounts',
        update: 'PATCH /service_accounts/{user}',
        /** `hard_delete` also deletes what it made (instead of handing it to the ghost user) and the groups it alone owns. */
        delete: 'DELETE /users/{user}',
      },
    },
    group: {
      parent: 'group',
      routes: {
        list: 'GET /groups/{group}/service_accounts',
        create: 'POST /groups/{group}/service_accounts',
        update: 'PATCH /groups/{group}/service_accounts/{user}',
        delete: 'DELETE /groups/{group}/service_accounts/{user}',
      },
    },
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    username: username({ help: 'username (default: one the service makes up, service_account_…)' }),
    name: f.string({ help: 'display name (default: "Service account user")' }),
    email: email({ help: 'email address (default: a no-reply address of the instance); the service asks to confirm another one unless confirmation is off' }),
    /** Only while a changed email waits for its confirmation. */
    unconfirmed_email: f.string({ readOnly: true }),
  },
  filters: {
    order_by: f.enum(['id', 'username'], { help: 'sort by id (default) or username' }),
    sort: f.enum(['asc', 'desc'], { help: 'asc, or desc (default)' }),
  },
  columns: ['id', 'username', 'name', 'email'],
  identity: ['username'],
  // Of the instance: administrators; of a group: its Owners.
  roles: { read: 'owner', write: 'owner' },
  tier: 'premium',
});

/**
 * The personal access tokens of a group's service account, by the group's routes (its Owners manage them; the service
 * reads no single token here, so commands find one in the list). An instance's service account's tokens are personal
 * access tokens like anyone's: the personal routes of the access tokens, `user_id` narrowing the list.
 */
export const groupServiceAccountTokens = defineResource({
  noun: 'personal access token',
  command: 'tokens',
  parent: 'group',
  scope: { user: f.int({ min: 1, flag: 'service-account', placeholder: '<id>' }) },
  id: { param: 'token_id', field: 'id' },
  routes: {
    list: 'GET /groups/{group}/service_accounts/{user}/personal_access_tokens',
    create: 'POST /groups/{group}/service_accounts/{user}/personal_access_tokens',
    delete: 'DELETE /groups/{group}/service_accounts/{user}/personal_access_tokens/{token_id}',
    rotate: 'POST /groups/{group}/service_accounts/{user}/personal_access_tokens/{token_id}/rotate',
  },
  fields: PERSONAL_TOKEN_FIELDS,
  ...TOKEN_LIST,
  roles: { read: 'owner', write: 'owner' },
  tier: 'premium',
});
