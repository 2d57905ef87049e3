import { f, type RecordOf } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** The scopes a deploy token may have. */
export const DEPLOY_TOKEN_SCOPES = ['read_repository', 'read_registry', 'write_registry', 'read_package_registry', 'write_package_registry'] as const;

/**
 * Deploy tokens: a username and a token that read (or write) a project's repository, registry or package registry
 * without a user account. Under a project (Maintainer) or a group (Maintainer: every project of the group), and the
 * instance-wide list for administrators. The token's value is in the answer of create only, never in a read.
 * Deleting one revokes it for good: it leaves its project's or group's list and the instance list (only a token
 * revoked in the web interface stays listed, revoked).
 */
export const deployTokens = defineResource({
  noun: 'deploy token',
  command: 'deploy-tokens',
  id: { param: 'token_id', field: 'id' },
  parents: {
    project: {
      parent: 'project',
      routes: {
        list: 'GET /projects/{project}/deploy_tokens',
        get: 'GET /projects/{project}/deploy_tokens/{token_id}',
        create: 'POST /projects/{project}/deploy_tokens',
        delete: 'DELETE /projects/{project}/deploy_tokens/{token_id}',
      },
    },
    group: {
      parent: 'group',
      routes: {
        list: 'GET /groups/{group}/deploy_tokens',
        get: 'GET /groups/{group}/deploy_tokens/{token_id}',
        create: 'POST /groups/{group}/deploy_tokens',
        delete: 'DELETE /groups/{group}/deploy_tokens/{token_id}',
      },
    },
    instance: {
      parent: 'instance',
      where: () => 'the instance',
      routes: { list: 'GET /deploy_tokens' },
      // Every project's and group's tokens: administrators only.
      roles: { read: 'owner', write: 'owner' },
    },
  },
  fields: {                                    // in the order the service presents them
    id: f.int({ min: 1, readOnly: true }),
    name: f.string({ create: 'required', help: 'a name for the token' }),
    username: f.string({ help: 'the username it signs in with (default gitlab+deploy-token-N)' }),
    expires_at: f.time({ nullable: true, help: 'when it stops working (default: never)' }),
    revoked: f.bool({ readOnly: true, default: false }),
    expired: f.bool({ readOnly: true }),
    scopes: f.list({ create: 'required', help: `what it may do: ${DEPLOY_TOKEN_SCOPES.join(', ')}` }),
  },
  filters: {
    active: f.bool({ help: 'only tokens neither revoked nor expired' }),
  },
  columns: ['id', 'name', 'username', 'scopes', 'expires_at', 'revoked', 'expired'],
  identity: ['name'],
  roles: { read: 'maintainer', write: 'maintainer' },
});

/** A deploy token as the service presents it (its value only in the answer of create). */
export type DeployToken = RecordOf<typeof deployTokens>;
