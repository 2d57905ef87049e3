import { DEPLOY_TOKEN_SCOPES, deployTokens as declared } from './resource.js';
import { findGroup, findProject, groupFor, projectFor, requireAdmin, Role } from '../../sandbox/auth.js';
import { newTokenValue, type Db } from '../../sandbox/db.js';
import { array, bool, created, errors, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { deployTokenTable, type DeployToken } from '../../sandbox/model.js';
import { paginate } from '../../sandbox/pagination.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { fleetProjectPath } from '../../sandbox/seed.js';

/**
 * Deploy tokens of projects and groups, and the instance-wide list (src/resources/deploy-tokens/resource.ts), as the
 * service serves them: Maintainer of the project or group, administrators for the instance list; the token's value
 * only in the answer of create; `expired` from the sandbox's clock; deleting destroys the token: it leaves its
 * project's or group's list and the instance list (a token revoked in the web interface stays listed, revoked).
 */

const isExpired = (token: DeployToken, now: Date): boolean => token.expires_at !== null && token.expires_at <= now.toISOString();

function present(token: DeployToken, now: Date): Record<string, unknown> {
  return { id: token.id, name: token.name, username: token.username, expires_at: token.expires_at, revoked: token.revoked, expired: isExpired(token, now), scopes: token.scopes };
}

/** `2026-01-31` or a date-time → the service's form, `2026-01-31T00:00:00.000Z`; 400 when it is no date. */
function expiryOf(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  const text = String(value);
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(date.getTime())) throw errors.error(400, 'expires_at is invalid');
  return date.toISOString();
}

const USERNAME = /^[a-zA-Z0-9.+_-]+$/;

export function addDeployToken(db: Db, owner: DeployToken['owner'], fields: { name: string; scopes: string[]; username?: string; expires_at?: string | null; revoked?: boolean }, now: Date): DeployToken {
  const id = db.nextId('deploy_tokens');
  const token: DeployToken = {
    id, name: fields.name, username: fields.username || `gitlab+deploy-token-${id}`, expires_at: fields.expires_at ?? null, revoked: fields.revoked ?? false,
    scopes: fields.scopes, token: newTokenValue('gldt-'), owner, created_at: now.toISOString(),
  };
  deployTokenTable(db).push(token);
  return token;
}

type OwnerKind = 'project' | 'group';

function ownerOf(req: SandboxRequest, kind: OwnerKind): DeployToken['owner'] {
  const record = kind === 'project' ? projectFor(req, Role.maintainer) : groupFor(req, Role.maintainer);
  return { kind, id: record.id };
}

const ownedBy = (db: Db, owner: DeployToken['owner']): DeployToken[] =>
  deployTokenTable(db).filter((t) => t.owner.kind === owner.kind && t.owner.id === owner.id);

/** `active=true`: neither revoked nor expired; `active=false`: the others. */
function byActive(req: SandboxRequest, list: DeployToken[]): DeployToken[] {
  const active = bool(req.input.active);
  if (active === undefined) return list;
  return list.filter((t) => (!t.revoked && !isExpired(t, req.now())) === active);
}

function find(req: SandboxRequest, owner: DeployToken['owner']): DeployToken {
  const token = ownedBy(req.db, owner).find((t) => String(t.id) === req.params.token_id);
  if (!token) throw errors.notFound('Deploy Token');
  return token;
}

function create(req: SandboxRequest, owner: DeployToken['owner']): DeployToken {
  const name = String(required(req, 'name'));
  const scopes = array(required(req, 'scopes')) ?? [];
  if (!scopes.length || scopes.some((scope) => !(DEPLOY_TOKEN_SCOPES as readonly string[]).includes(scope))) throw errors.invalid('scopes');
  const expires_at = expiryOf(req.input.expires_at);
  const username = req.input.username === undefined || req.input.username === null ? '' : String(req.input.username);
  if (username && (!USERNAME.test(username) || username.length > 255)) {
    throw errors.message(400, "Username can contain only letters, digits, '_', '-', '+', and '.'");
  }
  return addDeployToken(req.db, owner, { name, scopes: [...new Set(scopes)], username, expires_at }, req.now());
}

export const deployTokens: SandboxModule = {
  // Its seed gives some of the --fleet projects one.
  seedAfter: ['fleet'],
  routes(api) {
    for (const kind of ['project', 'group'] as const) {
      const routes = declared.parents[kind].routes;
      api.route(routes.list, (req) => {
        const owner = ownerOf(req, kind);
        return paginate(req, byActive(req, ownedBy(req.db, owner)), { present: (t) => present(t, req.now()) });
      });
      api.route(routes.get, (req) => ok(present(find(req, ownerOf(req, kind)), req.now())));
      api.route(routes.create, (req) => {
        const token = create(req, ownerOf(req, kind));
        return created({ ...present(token, req.now()), token: token.token });
      });
      api.route(routes.delete, (req) => {
        // The service destroys the token: gone from the instance list too (one revoked in the web interface stays).
        const token = find(req, ownerOf(req, kind));
        const table = deployTokenTable(req.db);
        table.splice(table.indexOf(token), 1);
        return noContent();
      });
    }
    api.route(declared.parents.instance.routes.list, (req) => {
      requireAdmin(req);
      return paginate(req, byActive(req, deployTokenTable(req.db)), { present: (t) => present(t, req.now()) });
    });
  },
  seed(db, { now, fleet }) {
    const day = 86_400_000;
    const at = (days: number): string => new Date(now.getTime() + days * day).toISOString().replace(/T.*/, 'T00:00:00.000Z');
    const api = { kind: 'project', id: findProject(db, 'acme/api').id } as const;
    const web = { kind: 'project', id: findProject(db, 'acme/web').id } as const;
    const acme = { kind: 'group', id: findGroup(db, 'acme').id } as const;
    addDeployToken(db, api, { name: 'k8s-pull', username: 'k8s-pull', scopes: ['read_registry'], expires_at: at(90) }, now);
    addDeployToken(db, api, { name: 'release-mirror', scopes: ['read_repository'], expires_at: at(-10) }, now);
    addDeployToken(db, web, { name: 'old-deployer', scopes: ['read_repository', 'read_registry'], revoked: true }, now);
    addDeployToken(db, acme, { name: 'packages-ci', scopes: ['read_package_registry', 'write_package_registry'], expires_at: at(180) }, now);
    // One fleet project in ten reads its registry with a deploy token.
    for (let n = 1; n <= (fleet ?? 0); n += 10) {
      addDeployToken(db, { kind: 'project', id: findProject(db, fleetProjectPath(n)).id }, { name: 'registry-pull', scopes: ['read_registry'], expires_at: at(60) }, now);
    }
  },
};
