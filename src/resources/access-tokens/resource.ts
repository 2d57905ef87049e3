import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** Scopes the service knows (`tokens create` checks them, the sandbox too); personal tokens may also carry the user-only ones. */
export const RESOURCE_SCOPES = [
  'api', 'read_api', 'read_repository', 'write_repository', 'read_registry', 'write_registry', 'read_virtual_registry',
  'write_virtual_registry', 'create_runner', 'manage_runner', 'k8s_proxy', 'ai_features', 'self_rotate',
];
export const USER_SCOPES = ['read_user', 'sudo', 'admin_mode', 'read_service_ping'];

/**
 * An access token as the service presents one, in the service's order; `token`, the secret, only in the answer of a
 * create or a rotate.
 */
const TOKEN_FIELDS = {
  id: f.int({ min: 1, readOnly: true }),
  name: f.string({ create: 'required', help: 'the token name' }),
  revoked: f.bool({ readOnly: true }),
  created_at: f.time({ readOnly: true }),
  description: f.string({ nullable: true, help: 'what the token is for' }),
  scopes: f.list({ create: 'required', help: 'scopes (api, read_api, read_repository, self_rotate …)' }),
  user_id: f.int({ readOnly: true }),
  last_used_at: f.time({ readOnly: true, nullable: true }),
  active: f.bool({ readOnly: true }),
  expires_at: f.date({ nullable: true, help: 'YYYY-MM-DD' }),
  access_level: f.accessLevel(undefined, { help: 'role of the token (group and project tokens)' }),
};
/** Personal and impersonation tokens (and those of service accounts) have no access level. */
const { access_level: _accessLevel, ...PERSONAL_TOKEN_FIELDS } = TOKEN_FIELDS;
export { PERSONAL_TOKEN_FIELDS };

/** What a list of tokens is filtered by, and shows, wherever the tokens live (a service account's too). */
export const TOKEN_LIST = {
  filters: {
    state: f.enum(['active', 'inactive']),
    revoked: f.bool(),
    search: f.string(),
  },
  columns: ['id', 'name', 'scopes', 'active', 'expires_at', 'last_used_at'],
  identity: ['name'],
};

/**
 * Access tokens of a group, of a project, or personal ones: one record and one set of verbs under three parents,
 * chosen by --group, --project or --personal. `self` may stand for the token id (the token in use). The secret
 * value comes back only in the answers of create and rotate (`token`), never in a read.
 */
export const accessTokens = defineResource({
  noun: 'access token',
  command: 'tokens',
  id: { param: 'token_id', field: 'id' },
  parents: {
    group: {
      parent: 'group',
      routes: {
        list: 'GET /groups/{group}/access_tokens',
        get: 'GET /groups/{group}/access_tokens/{token_id}',
        create: 'POST /groups/{group}/access_tokens',
        delete: 'DELETE /groups/{group}/access_tokens/{token_id}',
        rotate: 'POST /groups/{group}/access_tokens/{token_id}/rotate',
      },
    },
    project: {
      parent: 'project',
      routes: {
        list: 'GET /projects/{project}/access_tokens',
        get: 'GET /projects/{project}/access_tokens/{token_id}',
        create: 'POST /projects/{project}/access_tokens',
        delete: 'DELETE /projects/{project}/access_tokens/{token_id}',
        rotate: 'POST /projects/{project}/access_tokens/{token_id}/rotate',
      },
    },
    personal: {
      parent: 'instance',
      where: () => 'personal',
      routes: {
        list: 'GET /personal_access_tokens',
        get: 'GET /personal_access_tokens/{token_id}',
        // Administrators create personal tokens for a user.
        create: 'POST /users/{user}/personal_access_tokens',
        delete: 'DELETE /personal_access_tokens/{token_id}',
        rotate: 'POST /personal_access_tokens/{token_id}/rotate',
        /** The groups and projects the user of the token in use is a direct member of (a bot: where its token belongs). */
        associations: 'GET /personal_access_tokens/self/associations',
        /** The token in use reads itself, whatever its scopes (the sandbox serves it for other clients). */
        self: 'GET /personal_access_tokens/self',
        /**
         * Administrators: what any token of the instance is, from its value (`token` in the body); group, project and
         * impersonation tokens answer as their user's personal token, a deploy token as itself.
         */
        identify: 'POST /admin/token',
        /** Administrators: revokes any token by its value, sent in the body (never in the URL). */
        revoke_by_value: 'DELETE /admin/token',
      },
    },
  },
  fields: TOKEN_FIELDS,
  ...TOKEN_LIST,
  roles: { read: 'maintainer', write: 'maintainer' },
});

/**
 * Impersonation tokens of a user (administrators): personal tokens an administrator makes to act as that user, listed
 * apart from the personal ones. No access level; the token's value only in the answer of a create.
 */
export const impersonationTokens = defineResource({
  noun: 'impersonation token',
  command: 'tokens',
  parent: 'instance',
  scope: { user: f.int({ min: 1, help: 'the user (administrators)' }) },
  where: ({ user }) => `user ${String(user)}`,
  id: { param: 'impersonation_token_id', field: 'id' },
  routes: {
    list: 'GET /users/{user}/impersonation_tokens',
    get: 'GET /users/{user}/impersonation_tokens/{impersonation_token_id}',
    create: 'POST /users/{user}/impersonation_tokens',
    delete: 'DELETE /users/{user}/impersonation_tokens/{impersonation_token_id}',
  },
  fields: { ...PERSONAL_TOKEN_FIELDS, impersonation: f.bool({ readOnly: true }) },
  filters: { state: f.enum(['active', 'inactive']) },
  columns: ['id', 'name', 'scopes', 'active', 'expires_at', 'last_used_at'],
  identity: ['name'],
  roles: { read: 'owner', write: 'owner' },
});
