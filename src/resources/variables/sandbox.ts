import { PLAN_LIMITS } from '../plan-limits/values.js';
import { placements, presentedFields, type Placement } from '../../api/resource.js';
import { ALL_ENVIRONMENTS, MASKABLE, MASKABLE_RAW, MAX_VALUE_LENGTH, VARIABLE_KEY, variables as declared } from './resource.js';
import { findGroup, findProject, groupFor, projectFor, requireAdmin, Role } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { bool, created, errors, noContent, ok, type SandboxRequest } from '../../sandbox/http.js';
import { planLimitsByPlan, variableTable, type StoredVariable } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { paginate } from '../../sandbox/pagination.js';
import { fleetProjectPath } from '../../sandbox/seed.js';

/**
 * CI/CD variables of projects, groups and the instance, served from their declaration (resource.ts beside
 * this file, which says what the service does): a key once per environment scope, `filter[environment_scope]`
 * choosing among them (409 when a key is in several scopes and none is given), the masking rules, hidden values
 * presented as null, and the instance's own shape (no environment scope, no hidden values, administrators only).
 */

type Owner = StoredVariable['owner'];

/** The fields each owner's answers carry, in the declared order: the instance's have no scope and no hidden. */
const INSTANCE_HIDES = new Set(['environment_scope', 'hidden']);
const shownFields = (owner: Owner): string[] =>
  presentedFields(declared).map(([name]) => name).filter((name) => owner !== 'instance' || !INSTANCE_HIDES.has(name));

function present(variable: StoredVariable): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const name of shownFields(variable.owner)) {
    record[name] = name === 'value' && variable.hidden ? null : ((variable as unknown as Record<string, unknown>)[name] ?? null);
  }
  return record;
}

/** The owner a request names, checked for the Maintainer role (administrators for the instance). */
function ownerOf(kind: Owner, req: SandboxRequest): number {
  if (kind === 'project') return projectFor(req, Role[declared.roles.write]).id;
  if (kind === 'group') return groupFor(req, Role[declared.roles.write]).id;
  requireAdmin(req);
  return 0;
}

const ownedBy = (db: Db, kind: Owner, id: number): StoredVariable[] => variableTable(db).filter((v) => v.owner === kind && v.owner_id === id);

/** `filter[environment_scope]` of a request (query or body). */
function scopeFilter(req: SandboxRequest): string | undefined {
  const filter = req.input.filter as Record<string, unknown> | undefined;
  const scope = filter && typeof filter === 'object' ? filter.environment_scope : undefined;
  return scope === undefined || scope === null ? undefined : String(scope);
}

/** The variable of the route's key (and the filter's scope): 404 when none, 409 when the key is in several scopes. */
function find(req: SandboxRequest, kind: Owner, ownerId: number): StoredVariable {
  const scope = kind === 'instance' ? undefined : scopeFilter(req);
  const found = ownedBy(req.db, kind, ownerId).filter((v) => v.key === req.params.key && (scope === undefined || v.environment_scope === scope));
  if (!found.length) throw errors.notFound('Variable');
  if (found.length > 1) throw errors.message(409, "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'");
  return found[0];
}

/** The model's checks, as the service words them (400 {"message":{"field":["…"]}}). */
function validate(db: Db, variable: StoredVariable, previous?: StoredVariable): void {
  const problems: Record<string, string[]> = {};
  const add = (field: string, message: string): void => void (problems[field] ??= []).push(message);
  if (variable.key.length > 255) add('key', 'is too long (maximum is 255 characters)');
  else if (!VARIABLE_KEY.test(variable.key)) add('key', "can contain only letters, digits and '_'.");
  if (variable.value.length > MAX_VALUE_LENGTH) add('value', `is too long (maximum is ${MAX_VALUE_LENGTH} characters)`);
  if (variable.masked && !(variable.raw ? MASKABLE_RAW : MASKABLE).test(variable.value)) add('value', 'is invalid');
  if (previous?.hidden && !variable.masked) add('masked', 'Updating masked attribute is not allowed on updates for hidden variables.');
  const taken = ownedBy(db, variable.owner, variable.owner_id).some((v) => v !== previous && v.key === variable.key && v.environment_scope === variable.environment_scope);
  if (taken) add('key', `(${variable.key}) has already been taken`);
  if (Object.keys(problems).length) throw errors.validation(problems);
}

const TYPES = ['env_var', 'file'];

/** The fields a create or update gives, typed as the service coerces them; 400 for a type it does not know. */
function given(req: SandboxRequest, kind: Owner): Partial<StoredVariable> {
  const input = req.input;
  const out: Partial<StoredVariable> = {};
  if (input.variable_type !== undefined && input.variable_type !== null) {
    if (!TYPES.includes(String(input.variable_type))) throw errors.invalid('variable_type');
    out.variable_type = String(input.variable_type) as StoredVariable['variable_type'];
  }
  if (input.value !== undefined && input.value !== null) out.value = String(input.value);
  for (const name of ['protected', 'masked', 'raw'] as const) {
    const value = bool(input[name]);
    if (value !== undefined) out[name] = value;
  }
  if (kind !== 'instance' && input.environment_scope !== undefined && input.environment_scope !== null && input.environment_scope !== '') out.environment_scope = String(input.environment_scope);
  if (input.description !== undefined) out.description = input.description === null ? null : String(input.description);
  return out;
}

function instanceLimit(db: Db): number {
  const limits = planLimitsByPlan(db);
  return limits.default?.ci_instance_level_variables ?? PLAN_LIMITS.ci_instance_level_variables;
}

function serve(api: Parameters<SandboxModule['routes']>[0], placement: Placement): void {
  const kind = placement.parent as Owner;
  const { list, get, create, update, delete: remove } = placement.routes as Record<string, string>;
  api.route(list, (req) => paginate(req, ownedBy(req.db, kind, ownerOf(kind, req)).sort((a, b) => a.id - b.id), { present }));
  api.route(get, (req) => ok(present(find(req, kind, ownerOf(kind, req)))));
  api.route(create, (req) => {
    const ownerId = ownerOf(kind, req);
    if (req.input.key === undefined || req.input.key === null || req.input.key === '') throw errors.missing('key');
    if (req.input.value === undefined || req.input.value === null) throw errors.missing('value');
    const hide = kind !== 'instance' && bool(req.input.masked_and_hidden) === true;
    const variable: StoredVariable = {
      id: 0, owner: kind, owner_id: ownerId, key: String(req.input.key), value: '',
      variable_type: 'env_var', protected: false, masked: false, hidden: false, raw: false, environment_scope: ALL_ENVIRONMENTS, description: null,
      ...given(req, kind),
    };
    if (hide) Object.assign(variable, { masked: true, hidden: true });
    validate(req.db, variable);
    if (kind === 'instance' && ownedBy(req.db, kind, 0).length >= instanceLimit(req.db)) {
      throw errors.validation({ base: [`Maximum number of Ci Instance Variables (${instanceLimit(req.db)}) exceeded`] });
    }
    variable.id = req.db.nextId('ci_variables');
    variableTable(req.db).push(variable);
    return created(present(variable));
  });
  api.route(update, (req) => {
    const variable = find(req, kind, ownerOf(kind, req));
    const next: StoredVariable = { ...variable, ...given(req, kind) };
    validate(req.db, next, variable);
    Object.assign(variable, next);
    return ok(present(variable));
  });
  api.route(remove, (req) => {
    const variable = find(req, kind, ownerOf(kind, req));
    variableTable(req.db).splice(variableTable(req.db).indexOf(variable), 1);
    return noContent();
  });
}

type Seeded = Partial<StoredVariable> & { key: string; value: string };

function seedVariables(db: Db, kind: Owner, ownerId: number, list: Seeded[]): void {
  for (const values of list) {
    variableTable(db).push({
      id: db.nextId('ci_variables'), owner: kind, owner_id: ownerId,
      variable_type: 'env_var', protected: false, masked: false, hidden: false, raw: false, environment_scope: ALL_ENVIRONMENTS, description: null,
      ...values,
    });
  }
}

const KUBECONFIG = 'apiVersion: v1\nkind: Config\nclusters:\n  - name: production\n    cluster:\n      server: https://k8s.acme.example.com\n';

export const variables: SandboxModule = {
  routes(api) {
    for (const placement of placements(declared)) serve(api, placement);
  },
  // The fleet's projects get variables too.
  seedAfter: ['fleet'],
  seed(db, { fleet = 0 }) {
    const project = (path: string): number => findProject(db, path).id;
    seedVariables(db, 'project', project('acme/api'), [
      { key: 'LOG_LEVEL', value: 'info', description: 'log verbosity of the service' },
      { key: 'API_URL', value: 'https://staging.api.acme.example.com', environment_scope: 'staging' },
      { key: 'API_URL', value: 'https://api.acme.example.com', environment_scope: 'production' },
      { key: 'DEPLOY_TOKEN', value: 'dpl-stg-41b8e0d6c2', masked: true, environment_scope: 'staging' },
      { key: 'DEPLOY_TOKEN', value: 'dpl-prod-7f3a9c2e55', masked: true, protected: true, environment_scope: 'production', description: 'deploys to production' },
      { key: 'SIGNING_KEY', value: 'sk_live_9Qx2LmP4vR7tWz', masked: true, hidden: true, protected: true, description: 'signs release artifacts' },
      { key: 'KUBECONFIG', value: KUBECONFIG, variable_type: 'file', protected: true, environment_scope: 'production' },
    ]);
    seedVariables(db, 'project', project('acme/web'), [
      { key: 'NODE_ENV', value: 'production' },
      { key: 'SENTRY_DSN', value: 'https://4f2a9c@sentry.acme.example.com/7', description: 'error reporting' },
      { key: 'CDN_PURGE_KEY', value: 'cdn-9d1e7b3a4f', masked: true },
    ]);
    seedVariables(db, 'group', findGroup(db, 'acme').id, [
      { key: 'REGISTRY_USER', value: 'acme-ci' },
      { key: 'REGISTRY_PASSWORD', value: 'rg-Zt8qW2nV5xK1', masked: true, hidden: true, protected: true, description: 'pushes images to the registry' },
      { key: 'DOCKER_AUTH_CONFIG', value: '{"auths":{"registry.acme.example.com":{"auth":"YWNtZS1jaTpzZWNyZXQ="}}}', variable_type: 'file', masked: true, raw: true },
    ]);
    seedVariables(db, 'instance', 0, [
      { key: 'HTTP_PROXY', value: 'http://proxy.acme.example.com:3128' },
      { key: 'NO_PROXY', value: 'localhost,.acme.example.com' },
      { key: 'SONAR_TOKEN', value: 'sqa_5e1f0c9b7a2d', masked: true, protected: true, description: 'code quality scans' },
    ]);
    // Every fleet project: its name, its database password (masked), and every tenth a hidden signing key.
    for (let n = 1; n <= fleet; n++) {
      const path = fleetProjectPath(n);
      const list: Seeded[] = [
        { key: 'SERVICE_NAME', value: path.split('/').pop()! },
        { key: 'DATABASE_PASSWORD', value: `db-${String(n).padStart(3, '0')}-pw-7c1e`, masked: true, protected: true, environment_scope: 'production' },
      ];
      if (n % 10 === 0) list.push({ key: 'SIGNING_KEY', value: `sk-fleet-${n}-q8Lz`, masked: true, hidden: true });
      seedVariables(db, 'project', project(path), list);
    }
  },
};
