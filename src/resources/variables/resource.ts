import { UsageError } from '../../errors.js';
import { f, fieldOf, type FieldKind } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';
import { plural } from '../../parse.js';

/**
 * CI/CD variables of a project, of a group, or of the instance (administrators): one record and one set of verbs
 * under three parents, chosen by --project, --group or --instance. What the service does, from its API
 * documentation (project-level, group-level and instance-level CI/CD variables), python-gitlab's variables objects
 * and functional tests, and the Terraform provider's gitlab_project_variable:
 *
 * - The key names a variable in the routes (`/projects/:id/variables/:key`), but a project or group may hold the
 *   same key once per environment scope: two variables. When a key is in several scopes, get, update and delete
 *   need `filter[environment_scope]=<scope>` (409 "There are multiple variables with provided parameters. Please
 *   use 'filter[environment_scope]'" otherwise). Creating a key again in a scope it is already in is 400
 *   `{"message":{"key":["(KEY) has already been taken"]}}`.
 * - key: letters, digits and `_` only, at most 255 characters (400 `{"message":{"key":["can contain only letters,
 *   digits and '_'."]}}`). value: required on create (an empty string is a value), at most 10,000 characters.
 * - variable_type `env_var` (default) or `file` (the job gets a file holding the value; the variable is its path).
 * - masked: the value is hidden in job logs. The service accepts it only when the value is at least 8 characters,
 *   a single word (no whitespace), and, unless raw, only characters of the Base64 alphabet plus `@ : . ~ -`
 *   (400 `{"message":{"value":["is invalid"]}}` otherwise). A masked value is still returned by the API.
 * - hidden: masked and never shown again, in the UI or the API: set only on create, with `masked_and_hidden=true`
 *   (project and group variables); every answer then carries `"value": null` and `"hidden": true`. It cannot be
 *   undone (an update that unmasks it is refused), only deleted. So a hidden value can never be compared.
 * - raw: the value is not expanded (`$OTHER` stays as written). protected: only pipelines of protected branches and
 *   tags get it. description: free text, null when not set.
 * - Instance variables live under /admin/ci/variables, need an administrator, and have no environment scope and no
 *   hidden values; at most 25 of them (the plan limit ci_instance_level_variables).
 * - Reading and changing project and group variables needs the Maintainer role (the Developer role gets 403).
 */

/** What a variable's key may be: letters, digits and `_`, 1 to 255 characters. */
export const VARIABLE_KEY = /^[A-Za-z0-9_]{1,255}$/;

/** The characters of a masked value that is expanded (not raw): the Base64 alphabet and `@ : . ~ -`. */
export const MASKABLE = /^[A-Za-z0-9_+=/@:.~-]{8,}$/;
/** A masked raw value: at least 8 characters, no whitespace. */
export const MASKABLE_RAW = /^\S{8,}$/;

/** The longest value the service stores. */
export const MAX_VALUE_LENGTH = 10_000;

/** Why a value cannot be masked, in words; undefined when it can. */
export function unmaskable(value: string, raw = false): string | undefined {
  if (value.length < 8) return 'must be at least 8 characters to be masked';
  if (/\s/.test(value)) return 'cannot be masked: it contains whitespace';
  if (!raw && !MASKABLE.test(value)) {
    const bad = [...new Set(value.replace(/[A-Za-z0-9_+=/@:.~-]/g, ''))].join(' ');
    return `cannot be masked: it contains ${bad} (only letters, digits and _ + = / @ : . ~ - unless --raw)`;
  }
  return undefined;
}

/** Why the service would refuse a value (too long, or masked and not maskable), in words; undefined when it takes it. */
export function valueProblem(value: string, masked: boolean, raw: boolean): string | undefined {
  if (value.length > MAX_VALUE_LENGTH) return `is ${value.length.toLocaleString('en-US')} characters; the service takes at most ${MAX_VALUE_LENGTH.toLocaleString('en-US')}`;
  return masked ? unmaskable(value, raw) : undefined;
}

const keyKind: FieldKind = {
  name: 'variable key',
  type: 'string',
  placeholder: '<key>',
  schema: { pattern: VARIABLE_KEY.source },
  parse(text, label) {
    if (!VARIABLE_KEY.test(text)) throw new UsageError(`${label} "${text}": a key holds only letters, digits and _ (1 to 255 of them)`);
    return text;
  },
};

/** The environment scope of variables created without one: every environment. */
export const ALL_ENVIRONMENTS = '*';

const placement = (base: string) => ({
  list: `GET ${base}`,
  get: `GET ${base}/{key}`,
  create: `POST ${base}`,
  update: `PUT ${base}/{key}`,
  delete: `DELETE ${base}/{key}`,
});

export const variables = defineResource({
  noun: 'variable',
  command: 'variables',
  id: { param: 'key', field: 'key' },
  parents: {
    project: { parent: 'project', routes: placement('/projects/{project}/variables') },
    group: { parent: 'group', routes: placement('/groups/{group}/variables') },
    // Administrators only; instance variables have no environment scope and cannot be hidden.
    instance: { parent: 'instance', where: () => 'the instance', routes: placement('/admin/ci/variables'), roles: { read: 'owner', write: 'owner' }, without: ['environment_scope', 'hidden'] },
  },
  fields: {                                    // in the order the service presents them
    variable_type: f.enum(['env_var', 'file'], { default: 'env_var', flag: 'type', help: 'env_var, or file: the job gets a file holding the value' }),
    key: fieldOf<string, { create: 'required'; update: false; help: string }>(keyKind, { create: 'required', update: false, help: 'letters, digits and _' }),
    value: f.string({ create: 'required', nullable: true, blank: true, help: 'the value (null in answers when hidden)' }),
    protected: f.bool({ default: false, help: 'only pipelines of protected branches and tags get it' }),
    masked: f.bool({ default: false, help: 'hidden in job logs (8+ characters, no whitespace)' }),
    hidden: f.bool({ readOnly: true, default: false }),
    masked_and_hidden: f.bool({ writeOnly: true, update: false, help: 'masked, and never shown again (create only)' }),
    raw: f.bool({ default: false, help: 'not expanded: $OTHER stays as written' }),
    environment_scope: f.string({ default: ALL_ENVIRONMENTS, flag: 'scope', placeholder: '<scope>', help: 'the environments that get it (* for all, production, review/*)' }),
    description: f.string({ nullable: true, help: 'what it is for' }),
  },
  columns: ['key', 'environment_scope', 'variable_type', 'protected', 'masked', 'hidden', 'raw', 'value'],
  identity: ['key', 'environment_scope'],
  roles: { read: 'maintainer', write: 'maintainer' },
});

export interface Variable {
  variable_type: 'env_var' | 'file';
  key: string;
  value: string | null;
  protected: boolean;
  masked: boolean;
  hidden?: boolean;
  raw: boolean;
  /** Absent on instance variables. */
  environment_scope?: string;
  description: string | null;
}

/** Masked and hidden values are secrets: never taken from argv, never shown unless asked for at a terminal. */
export const isSecret = (variable: { masked?: unknown; hidden?: unknown }): boolean => variable.masked === true || variable.hidden === true;

/**
 * Whether a question or notice may print a variable's value: never a masked, hidden or protected one's, nor a file
 * variable's (a kubeconfig or a key: a credential the service cannot mask). Those are named by their size instead.
 */
export const valueSayable = (variable: { masked?: unknown; hidden?: unknown; protected?: unknown; variable_type?: unknown }): boolean =>
  !isSecret(variable) && variable.protected !== true && variable.variable_type !== 'file';

/** "143 characters": a value as a question or notice names one it may not print. */
export const valueSize = (value: string | null | undefined): string => (value === null || value === undefined ? 'unreadable' : plural([...value].length, 'character'));

/**
 * An answer of the service with the value of every masked or hidden CI/CD variable in it null: one record, the
 * records of a list, or records inside others (project, group and instance variables alike). The one redaction of
 * variable values: the variables commands, api and every result of the agent interface pass their records through it.
 * In a GraphQL answer the variables are what a `ciVariables` field holds, and a query chooses their fields: a value
 * whose variable does not say `masked: false` there is taken for a masked one.
 *
 * A group's or project's runner registration token (`runners_token`, GraphQL `runnersToken`), which the service puts
 * in the answers its owners and maintainers get, is nulled too: it registers runners that then receive the group's
 * jobs and their CI/CD variables, and nobody reading a group's settings asked for it. The groups and projects
 * commands that print one record pass it through here as well.
 */
export function withoutSecretValues<T>(body: T): T {
  return redactValues(body, false);
}

/** Keys whose value is a runner registration token. */
const RUNNER_REGISTRATION_TOKENS = new Set(['runners_token', 'runnersToken']);

function redactValues<T>(body: T, graphqlVariables: boolean): T {
  if (Array.isArray(body)) return body.map((item) => redactValues(item, graphqlVariables)) as T;
  if (!body || typeof body !== 'object') return body;
  const record = Object.fromEntries(Object.entries(body).map(([key, value]) => [key, RUNNER_REGISTRATION_TOKENS.has(key) && value != null ? null : redactValues(value, graphqlVariables || key === 'ciVariables')]));
  const secret = isSecret(record) || (graphqlVariables && record.masked !== false);
  return ('value' in record && secret ? { ...record, value: null } : record) as T;
}

/** A variable as printed: its masked or hidden value null unless `show` (a hidden one the service never returns). */
export const shown = <T>(variable: T, show: boolean): T => (show ? variable : withoutSecretValues(variable));

/** How many variables the instance may have (plan limit ci_instance_level_variables). */
export const MAX_INSTANCE_VARIABLES = 25;

/**
 * The environment variable an exported masked or hidden value is read from when the export is applied or imported
 * (its value is never exported): DEPLOY_TOKEN for the scope *, DEPLOY_TOKEN__PRODUCTION, DEPLOY_TOKEN__REVIEW for review/*.
 */
export function secretEnvName(variable: { key: string; environment_scope?: string }): string {
  const scope = variable.environment_scope ?? ALL_ENVIRONMENTS;
  if (scope === ALL_ENVIRONMENTS) return variable.key;
  const suffix = scope.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return suffix ? `${variable.key}__${suffix}` : `${variable.key}__SCOPED`;
}
