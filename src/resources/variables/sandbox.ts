import { PLAN_LIMITS } from '../plan-limits/values.js';
import { findGroup, findProject } from '../../sandbox/auth.js';
import { crudModule, type Where } from '../../sandbox/crud.js';
import type { Db } from '../../sandbox/db.js';
import { errors, type SandboxRequest } from '../../sandbox/http.js';
import { planLimitsByPlan, type StoredRecord } from '../../sandbox/model.js';
import { parentKey } from '../../sandbox/records.js';
import { fleetProjectPath } from '../../sandbox/seed.js';
import { ALL_ENVIRONMENTS, MASKABLE, MASKABLE_RAW, MAX_VALUE_LENGTH, VARIABLE_KEY, variables as declared } from './resource.js';

/**
 * CI/CD variables of projects, groups and the instance, served from their declaration (resource.ts beside this file,
 * which says what the service does): a key once per environment scope, `filter[environment_scope]` choosing among
 * them (409 when a key is in several scopes and none is given), the masking rules, hidden values presented as null,
 * and the instance's own shape (no environment scope, no hidden values, administrators only, at most the plan's
 * limit of them).
 */

/** A variable as stored: the declared fields but `masked_and_hidden`, which a create asks for and does not keep. */
export type StoredVariable = StoredRecord<typeof declared, unknown, 'masked_and_hidden'>;

const atInstance = (where: Where): boolean => where.placement.parent === 'instance';
const ownedThere = (db: Db, where: Where): StoredVariable[] => variables.table(db).filter((v) => v[parentKey(where.placement.parent)] === where.parent.id);

/** `filter[environment_scope]` of a request (query or body). */
function scopeFilter(req: SandboxRequest): string | undefined {
  const filter = req.input.filter as Record<string, unknown> | undefined;
  const scope = filter && typeof filter === 'object' ? filter.environment_scope : undefined;
  return scope === undefined || scope === null ? undefined : String(scope);
}

/** What the service derives on create and update: a hidden variable (create only), the scope (none at the instance), a value kept when null is sent. */
function derive(variable: StoredVariable & { masked_and_hidden?: boolean }, previous: StoredVariable | undefined, where: Where): void {
  if (!previous && variable.masked_and_hidden && !atInstance(where)) Object.assign(variable, { masked: true, hidden: true });
  delete variable.masked_and_hidden;
  if (atInstance(where) || !variable.environment_scope) variable.environment_scope = previous?.environment_scope ?? ALL_ENVIRONMENTS;
  variable.value ??= previous?.value ?? '';
}

/** The model's checks, as the service words them (400 {"message":{"field":["…"]}}). */
function check(db: Db, variable: StoredVariable, previous: StoredVariable | undefined, where: Where): void {
  const problems: Record<string, string[]> = {};
  const add = (field: string, message: string): void => void (problems[field] ??= []).push(message);
  const value = variable.value ?? '';
  if (variable.key.length > 255) add('key', 'is too long (maximum is 255 characters)');
  else if (!VARIABLE_KEY.test(variable.key)) add('key', "can contain only letters, digits and '_'.");
  if (value.length > MAX_VALUE_LENGTH) add('value', `is too long (maximum is ${MAX_VALUE_LENGTH} characters)`);
  if (variable.masked && !(variable.raw ? MASKABLE_RAW : MASKABLE).test(value)) add('value', 'is invalid');
  if (previous?.hidden && !variable.masked) add('masked', 'Updating masked attribute is not allowed on updates for hidden variables.');
  const taken = ownedThere(db, where).some((v) => v !== previous && v.key === variable.key && v.environment_scope === variable.environment_scope);
  if (taken) add('key', `(${variable.key}) has already been taken`);
  if (Object.keys(problems).length) throw errors.validation(problems);
}

function instanceLimit(db: Db): number {
  const limits = planLimitsByPlan(db);
  return limits.default?.ci_instance_level_variables ?? PLAN_LIMITS.ci_instance_level_variables;
}

type Seeded = Partial<StoredVariable> & { key: string; value: string };

/** The seeded production kubeconfig of acme/api (a protected file variable), which tests give as its secret reference. */
export const SEEDED_KUBECONFIG = 'apiVersion: v1\nkind: Config\nclusters:\n  - name: production\n    cluster:\n      server: https://k8s.acme.example.com\n';

export const variables = crudModule<StoredVariable>(declared, {
  table: 'ci_variables',
  // The fleet's projects get variables too.
  seedAfter: ['fleet'],
  choose(matches, req, where) {
    const scope = atInstance(where) ? undefined : scopeFilter(req);
    const found = matches.filter((v) => scope === undefined || v.environment_scope === scope);
    if (found.length > 1) throw errors.message(409, "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'");
    return found[0];
  },
  validate(variable, req, previous, where) {
    if (!['env_var', 'file'].includes(variable.variable_type)) throw errors.invalid('variable_type');
    derive(variable, previous, where);
    check(req.db, variable, previous, where);
    if (!previous && atInstance(where) && ownedThere(req.db, where).length >= instanceLimit(req.db)) {
      throw errors.validation({ base: [`Maximum number of Ci Instance Variables (${instanceLimit(req.db)}) exceeded`] });
    }
  },
  computed: (variable) => ({ value: variable.hidden ? null : variable.value }),
  seed(db, { fleet = 0 }, insert) {
    const seed = (where: 'project' | 'group' | 'instance', id: number, list: Seeded[]): void => list.forEach((values) => void insert(id, values, where));
    const project = (path: string): number => findProject(db, path).id;
    seed('project', project('acme/api'), [
      { key: 'LOG_LEVEL', value: 'info', description: 'log verbosity of the service' },
      { key: 'API_URL', value: 'https://staging.api.acme.example.com', environment_scope: 'staging' },
      { key: 'API_URL', value: 'https://api.acme.example.com', environment_scope: 'production' },
      { key: 'DEPLOY_TOKEN', value: 'dpl-stg-41b8e0d6c2', masked: true, environment_scope: 'staging' },
      { key: 'DEPLOY_TOKEN', value: 'dpl-prod-7f3a9c2e55', masked: true, protected: true, environment_scope: 'production', description: 'deploys to production' },
      { key: 'SIGNING_KEY', value: 'sk_live_9Qx2LmP4vR7tWz', masked: true, hidden: true, protected: true, description: 'signs release artifacts' },
      { key: 'KUBECONFIG', value: SEEDED_KUBECONFIG, variable_type: 'file', protected: true, environment_scope: 'production' },
    ]);
    seed('project', project('acme/web'), [
      { key: 'NODE_ENV', value: 'production' },
      { key: 'SENTRY_DSN', value: 'https://4f2a9c@sentry.acme.example.com/7', description: 'error reporting' },
      { key: 'CDN_PURGE_KEY', value: 'cdn-9d1e7b3a4f', masked: true },
    ]);
    seed('group', findGroup(db, 'acme').id, [
      { key: 'REGISTRY_USER', value: 'acme-ci' },
      { key: 'REGISTRY_PASSWORD', value: 'rg-Zt8qW2nV5xK1', masked: true, hidden: true, protected: true, description: 'pushes images to the registry' },
      { key: 'DOCKER_AUTH_CONFIG', value: '{"auths":{"registry.acme.example.com":{"auth":"YWNtZS1jaTpzZWNyZXQ="}}}', variable_type: 'file', masked: true, raw: true },
    ]);
    seed('instance', 0, [
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
      seed('project', project(path), list);
    }
  },
});
