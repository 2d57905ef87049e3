import { placed, routeOf, type ResourceDef } from '../../api/resource.js';
import { ALL_ENVIRONMENTS, MAX_VALUE_LENGTH, secretEnvName, valueProblem, variables, type Variable } from './resource.js';
import { isSecretRef, type FieldSpec, type Level, type LiveObject, type Owner, type SectionIo } from '../../desired/model.js';
import { refuse, specOf, type Section } from '../../desired/section.js';
import { collectionSection } from '../../desired/sections/generic.js';

/**
 * CI/CD variables of projects, groups and the instance, paired by key and environment scope (by key alone on the
 * instance, whose variables have no scope). A plain value is written in the file and compared. A masked or hidden
 * value is a secret reference ({env: …}, {file: …} or {command: …}, never the value): the service shows a hidden
 * value to nobody, and forgectl never prints a masked one, so such a value is never compared and never reported as
 * drift (the plan counts what it did not compare). It is written when the variable is created, and, with
 * `rewrite: always`, again by every apply; the other attributes (protected, scope, type …) are compared as usual.
 * Read from the instance, a masked or hidden value is the reference export writes: {env: KEY} (KEY__SCOPE in a scope).
 */

type Values = Record<string, unknown>;

const REWRITE = ['always', 'on_create'] as const;

/** The file's fields of a level's variables. */
function fieldsOf(level: Level): Record<string, FieldSpec> {
  const fields = variables.fields;
  const all: Record<string, FieldSpec> = {
    key: specOf(fields.key),
    value: {
      schema: { anyOf: [{ type: 'string' }, { $ref: '#/definitions/secret' }] },
      help: 'the value: text for a plain variable; {env: …}, {file: …} or {command: …} for a masked or hidden one (never compared)',
      parse: (value) => (typeof value === 'number' || typeof value === 'boolean' ? String(value) : value),
      exportsRef: true,
    },
    variable_type: specOf(fields.variable_type),
    protected: specOf(fields.protected),
    masked: specOf(fields.masked),
    hidden: { ...specOf(fields.hidden), help: 'masked and never shown again; changing it deletes the variable and creates it again' },
    raw: specOf(fields.raw),
    environment_scope: specOf(fields.environment_scope),
    description: specOf(fields.description, { nullable: true }),
    rewrite: {
      schema: { enum: [...REWRITE] },
      help: 'on_create (default): a secret value is written when the variable is created; always: by every apply too',
    },
  };
  if (level === 'instance') {
    delete all.hidden;
    delete all.environment_scope;
  }
  return all;
}

const secretValue = (values: Values): boolean => isSecretRef(values.value);

function sectionFor(level: Level): Section {
  const def: ResourceDef = placed(variables, level);
  const instance = level === 'instance';
  const scopeOf = (values: Values): string | undefined => (instance ? undefined : String(values.environment_scope ?? ALL_ENVIRONMENTS));
  const filter = (scope: string | undefined): Values => (scope === undefined ? {} : { filter: { environment_scope: scope } });
  const parent = (owner: Owner): Values => (instance ? {} : { [level]: owner.path });

  /** The request body of a create, or of the fields of an update: secret references resolved, write-only value redacted in --dry-run. */
  async function body(io: SectionIo, desired: Values, names: string[]): Promise<Values> {
    const out: Values = {};
    for (const name of names) {
      if (name === 'rewrite' || name === 'hidden' || desired[name] === undefined) continue;
      const value = desired[name];
      out[name] = isSecretRef(value) ? await io.secret(value, `variable ${desired.key} value`) : value;
    }
    return out;
  }

  async function create(io: SectionIo, owner: Owner, desired: Values): Promise<void> {
    const sent = await body(io, desired, Object.keys(desired));
    if (!instance) sent.environment_scope = scopeOf(desired);
    if (desired.hidden === true) Object.assign(sent, { masked: undefined, masked_and_hidden: true });
    await io.api.call(routeOf(def, 'create'), { ...parent(owner), ...sent }, { redact: ['value'] });
  }

  async function remove(io: SectionIo, owner: Owner, live: LiveObject): Promise<void> {
    await io.api.call(routeOf(def, 'delete'), { ...parent(owner), ...live.ref });
  }

  // As identityKey() writes it: KEY … SCOPE.
  const identity = instance ? ['key'] : ['key', 'environment_scope'];
  const valuesOf = (variable: Variable): Values => {
    const values: Values = {
      key: variable.key,
      value: variable.masked || variable.hidden ? { env: secretEnvName(variable) } : variable.value,
      variable_type: variable.variable_type,
      protected: variable.protected,
      masked: variable.masked,
      raw: variable.raw,
      description: variable.description ?? null,
    };
    if (!instance) Object.assign(values, { hidden: Boolean(variable.hidden), environment_scope: variable.environment_scope ?? ALL_ENVIRONMENTS });
    return values;
  };

  const section = collectionSection(def, {
    key: 'variables',
    help:
      'CI/CD variables, paired by key' + (instance ? '' : ' and environment_scope (default *: a key in two scopes is two variables)') + '. ' +
      'A masked or hidden value is a secret reference ({env: …}, {file: …} or {command: …}): never compared, written when the variable is created and, with rewrite: always, by every apply.',
    fields: fieldsOf(level),
    required: ['key', 'value'],
    overrides: {
      identity,
      check(values) {
        const secret = values.masked === true || values.hidden === true;
        if (secret && typeof values.value === 'string') {
          refuse('value', `of ${String(values.key)} is ${values.hidden === true ? 'hidden' : 'masked'} and must not be written in the file`, `give it as {env: ${secretEnvName({ key: String(values.key), environment_scope: scopeOf(values) })}}, {file: PATH} or {command: …}`);
        }
        if (typeof values.value === 'string' && values.value.length > MAX_VALUE_LENGTH) refuse('value', `of ${String(values.key)} ${valueProblem(values.value, false, false)!}`);
        if (values.rewrite !== undefined && !(REWRITE as readonly unknown[]).includes(values.rewrite)) refuse('rewrite', 'must be always or on_create');
        return values;
      },
      uncompared: (desired) => ({
        skip: ['rewrite'],
        secret: secretValue(desired),
        rewrite: secretValue(desired) && desired.rewrite === 'always' ? ['value'] : [],
      }),
      // Read here, not by the generic read: the instance's route has no parent, and a variable is found by key and scope.
      async read(io, owner) {
        const live: LiveObject[] = [];
        for await (const variable of io.api.list<Variable>(routeOf(def, 'list'), parent(owner), { all: true })) {
          const values = valuesOf(variable);
          live.push({ key: identity.map((name) => String(values[name])).join(' … '), values, ref: { key: variable.key, ...filter(scopeOf(values)) } });
        }
        return live;
      },
      create: (io, owner, desired) => create(io, owner, desired),
      remove,
      // hidden is set only when a variable is created: changing it deletes the variable and creates it again.
      replaces: (live, changed) =>
        changed.includes('hidden') ? { reason: 'hidden is set only when a variable is created', ...(live.values.hidden === true ? { oldUnreadable: true } : {}) } : undefined,
      // The old value, read before the delete so that a failed create can put the variable back; a hidden one cannot be read.
      async keepOld(io, owner, live) {
        const variable = await io.api.call<Variable>(routeOf(def, 'get'), { ...parent(owner), ...live.ref });
        if (variable.hidden || typeof variable.value !== 'string') return undefined;
        const old = { ...valuesOf(variable), value: variable.value };
        return () => create(io, owner, old);
      },
      // The service's checks of a value it is sent (its length, the mask rules), made before anything is written.
      async prepare(io, change) {
        const desired = change.desired ?? {};
        const sent = change.action !== 'update' || change.fields.some((field) => field.field === 'value');
        if (!sent || desired.value === undefined) return;
        const value = isSecretRef(desired.value) ? await io.secret(desired.value, `variable ${String(desired.key)} value`) : String(desired.value);
        const problem = valueProblem(value, desired.masked === true || desired.hidden === true, desired.raw === true);
        if (problem) refuse('value', problem, desired.masked === true || desired.hidden === true ? 'a masked value has 8 or more characters, no whitespace, and (unless raw: true) only letters, digits and _ + = / @ : . ~ -' : undefined);
      },
    },
  });
  // Set after the generic section is made, which gives declared collections its own update.
  section.update = async (io, owner, live, changed, desired) => {
    const names = [...changed, ...(desired.rewrite === 'always' && secretValue(desired) && !changed.includes('value') ? ['value'] : [])];
    const sent = await body(io, desired, names);
    await io.api.call(routeOf(def, 'update'), { ...parent(owner), ...sent, ...live.ref }, { redact: ['value'] });
  };
  return section;
}

export const projectVariablesSection = sectionFor('project');
export const groupVariablesSection = sectionFor('group');
export const instanceVariablesSection = sectionFor('instance');
