import { findGroup, findProject } from '../../sandbox/auth.js';
import { crudModule } from '../../sandbox/crud.js';
import { newTokenValue } from '../../sandbox/db.js';
import { errors } from '../../sandbox/http.js';
import { deployTokenTable, type StoredDeployToken } from '../../sandbox/model.js';
import { parentKey } from '../../sandbox/records.js';
import { fleetProjectPath } from '../../sandbox/seed.js';
import { DEPLOY_TOKEN_SCOPES, deployTokens as declared } from './resource.js';

/**
 * Deploy tokens of projects and groups, and the instance's list of them all (administrators), served from their
 * declaration: the token's value only in the answer of create; `expired` from the sandbox's clock; deleting destroys
 * the token, gone from its project's or group's list and the instance's (one revoked in the web interface stays, revoked).
 */

const isExpired = (token: StoredDeployToken, now: Date): boolean => Boolean(token.expires_at) && token.expires_at! <= now.toISOString();

const USERNAME = /^[a-zA-Z0-9.+_-]{1,255}$/;

export const deployTokens = crudModule<StoredDeployToken>(declared, {
  // Its seed gives some of the --fleet projects one.
  seedAfter: ['fleet'],
  // The instance's list holds every project's and group's tokens.
  visible: (db, parent, { placement }) => deployTokenTable(db).filter((t) => placement.parent === 'instance' || t[parentKey(placement.parent)] === parent.id),
  filters: { active: (token, wanted, req) => (!token.revoked && !isExpired(token, req.now())) === wanted },
  validate(token) {
    if (!token.scopes.length || token.scopes.some((scope) => !(DEPLOY_TOKEN_SCOPES as readonly string[]).includes(scope))) throw errors.invalid('scopes');
    token.scopes = [...new Set(token.scopes)];
    if (token.username && !USERNAME.test(token.username)) throw errors.message(400, "Username can contain only letters, digits, '_', '-', '+', and '.'");
  },
  onInsert(token, { now }) {
    Object.assign(token, { username: token.username || `gitlab+deploy-token-${token.id}`, token: newTokenValue('gldt-'), created_at: now.toISOString() });
  },
  computed: (token, req) => ({ expired: isExpired(token, req.now()) }),
  created: (token) => ({ token: token.token }),
  seed(db, { now, fleet }, insert) {
    const at = (days: number): string => new Date(now.getTime() + days * 86_400_000).toISOString().replace(/T.*/, 'T00:00:00.000Z');
    const [api, web] = ['acme/api', 'acme/web'].map((path) => findProject(db, path).id);
    insert(api, { name: 'k8s-pull', username: 'k8s-pull', scopes: ['read_registry'], expires_at: at(90) }, 'project');
    insert(api, { name: 'release-mirror', scopes: ['read_repository'], expires_at: at(-10) }, 'project');
    insert(web, { name: 'old-deployer', scopes: ['read_repository', 'read_registry'], revoked: true }, 'project');
    insert(findGroup(db, 'acme').id, { name: 'packages-ci', scopes: ['read_package_registry', 'write_package_registry'], expires_at: at(180) }, 'group');
    // One fleet project in ten reads its registry with a deploy token.
    for (let n = 1; n <= (fleet ?? 0); n += 10) insert(findProject(db, fleetProjectPath(n)).id, { name: 'registry-pull', scopes: ['read_registry'], expires_at: at(60) }, 'project');
  },
});
