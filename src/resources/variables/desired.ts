import { placed, routeOf, type ResourceDef } from '../../api/resource.js';
import { ALL_ENVIRONMENTS, MAX_VALUE_LENGTH, secretEnvName, valueProblem, valueSayable, valueSize, variables, type Variable } from './resource.js';
import { isSecretRef, type Change, type FieldChange, type FieldSpec, type Level, type LiveObject, type Owner, type SecretRef, type SectionIo } from '../../desired/model.js';
import { refuse, specOf, type Section } from '../../desired/section.js';
import { collectionSection } from '../../desired/sections/generic.js';
import { UsageError } from '../../errors.js';

/**
 * CI/CD variables of projects, groups and the instance, paired by key and environment scope (by key alone on the
 * instance, whose variables have no scope). A plain value is written in the file and compared. A masked or hidden
 * value is a secret reference ({env: …}, {file: …} or {command: …}, never the value): the service shows a hidden
 * value to nobody, and forgectl never prints a masked one, so such a value is never compared and never reported as
 * drift (the plan counts what it did not compare). It is written when the variable is created, and, with
 * `rewrite: always`, again by every apply; the other attributes (protected, scope, type …) are compared as usual.
 * Read from the instance, a masked or hidden value is the reference export writes: {env: KEY} (KEY__SCOPE in a scope).
 * Export writes a protected or file variable's value (a kubeconfig, a key) as such a reference too, so that an exported
 * file, which people commit, holds no value a plan would not show; the service shows that value, so a plan reads the
 * reference and compares it (shown by its size only) when the secret is there, and counts it as not compared when not.
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
      help: 'the value: text for a plain variable; {env: …}, {file: …} or {command: …} for a masked or hidden one (never compared) or a protected or file one (compared when plan can read it)',
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
/** The service shows the value to whoever may read the variable, but forgectl prints it only by size: a protected or file variable's. */
const shownBySize = (values: Values): boolean => values.masked !== true && values.hidden !== true && !valueSayable(values);
/** A value given by reference that cannot be read back (masked or hidden), or that is plain: never compared. */
const uncomparedValue = (values: Values): boolean => secretValue(values) && !shownBySize(values);

/** How the variables of one level are read and written: its placement's routes, its parent, what pairs them. */
class LevelVariables {
  readonly def: ResourceDef;
  readonly instance: boolean;
  // As identityKey() writes it: KEY … SCOPE.
  readonly identity: string[];

  constructor(private readonly level: Level) {
    this.def = placed(variables, level);
    this.instance = level === 'instance';
    this.identity = this.instance ? ['key'] : ['key', 'environment_scope'];
  }

  scopeOf(values: Values): string | undefined {
    return this.instance ? undefined : String(values.environment_scope ?? ALL_ENVIRONMENTS);
  }

  /** Read here, not by the generic read: the instance's route has no parent, and a variable is found by key and scope. */
  async read(io: SectionIo, owner: Owner): Promise<LiveObject[]> {
    const live: LiveObject[] = [];
    for await (const variable of io.api.list<Variable>(routeOf(this.def, 'list'), this.parent(owner), { all: true })) {
      const values = this.valuesOf(variable);
      const scope = this.scopeOf(values);
      live.push({ key: this.identity.map((name) => String(values[name])).join(' … '), values, ref: { key: variable.key, ...(scope === undefined ? {} : { filter: { environment_scope: scope } }) } });
    }
    return live;
  }

  async create(io: SectionIo, owner: Owner, desired: Values): Promise<void> {
    const sent = await body(io, desired, Object.keys(desired));
    if (!this.instance) sent.environment_scope = this.scopeOf(desired);
    if (desired.hidden === true) Object.assign(sent, { masked: undefined, masked_and_hidden: true });
    await io.api.call(routeOf(this.def, 'create'), { ...this.parent(owner), ...sent }, { redact: ['value'] });
  }

  /** The changed fields, and with `rewrite: always` a secret value too. */
  async update(io: SectionIo, owner: Owner, live: LiveObject, changed: string[], desired: Values): Promise<void> {
    const names = [...changed, ...(desired.rewrite === 'always' && secretValue(desired) && !changed.includes('value') ? ['value'] : [])];
    const sent = await body(io, desired, names);
    await io.api.call(routeOf(this.def, 'update'), { ...this.parent(owner), ...sent, ...live.ref }, { redact: ['value'] });
  }

  async remove(io: SectionIo, owner: Owner, live: LiveObject): Promise<void> {
    await io.api.call(routeOf(this.def, 'delete'), { ...this.parent(owner), ...live.ref });
  }

  /** The old value, read before the delete so that a failed create can put the variable back; a hidden one cannot be read. */
  async keepOld(io: SectionIo, owner: Owner, live: LiveObject): Promise<(() => Promise<void>) | undefined> {
    const variable = await io.api.call<Variable>(routeOf(this.def, 'get'), { ...this.parent(owner), ...live.ref });
    if (variable.hidden || typeof variable.value !== 'string') return undefined;
    const old = { ...this.valuesOf(variable), value: variable.value };
    return () => this.create(io, owner, old);
  }

  private parent(owner: Owner): Values {
    return this.instance ? {} : { [this.level]: owner.path };
  }

  /** A variable as export writes it: a protected or file variable's value as a reference too, as a masked one's. */
  exportAs(values: Values): Values {
    return shownBySize(values) ? { ...values, value: { env: secretEnvName({ key: String(values.key), environment_scope: this.scopeOf(values) }) } } : values;
  }

  /**
   * A protected or file variable's value given by reference, read to be compared. A reference that cannot be read
   * here (its environment variable not set, as after an export) leaves the value uncompared, as a masked one's, and
   * the plan counts it; an apply that has to write it still needs it. A secret read drops one trailing newline
   * (`$(cat kubeconfig)` does too): a live value with it is the same value.
   */
  async comparable(io: SectionIo, desired: Values, live: Values): Promise<{ values: Values; unread?: boolean }> {
    if (!secretValue(desired) || !shownBySize(desired)) return { values: desired };
    let value: string;
    try {
      value = await io.secret(desired.value as SecretRef, `variable ${String(desired.key)} value`);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      return { values: { ...desired, value: live.value }, unread: true };
    }
    return { values: { ...desired, value: typeof live.value === 'string' && live.value.replace(/\r?\n$/, '') === value ? live.value : value } };
  }

  /** A variable as the file writes it: a masked or hidden value as the reference export writes. */
  private valuesOf(variable: Variable): Values {
    const values: Values = {
      key: variable.key,
      value: variable.masked || variable.hidden ? { env: secretEnvName(variable) } : variable.value,
      variable_type: variable.variable_type,
      protected: variable.protected,
      masked: variable.masked,
      raw: variable.raw,
      description: variable.description ?? null,
    };
    if (!this.instance) Object.assign(values, { hidden: Boolean(variable.hidden), environment_scope: variable.environment_scope ?? ALL_ENVIRONMENTS });
    return values;
  }
}

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

/** A variable of the file: a masked or hidden value only by reference, a value the service takes, a known rewrite. */
function checkVariable(values: Values, scope: string | undefined): Values {
  const secret = values.masked === true || values.hidden === true;
  if (secret && typeof values.value === 'string') {
    refuse('value', `of ${String(values.key)} is ${values.hidden === true ? 'hidden' : 'masked'} and must not be written in the file`, `give it as {env: ${secretEnvName({ key: String(values.key), environment_scope: scope })}}, {file: PATH} or {command: …}`);
  }
  if (typeof values.value === 'string' && values.value.length > MAX_VALUE_LENGTH) refuse('value', `of ${String(values.key)} ${valueProblem(values.value, false, false)!}`);
  if (values.rewrite !== undefined && !(REWRITE as readonly unknown[]).includes(values.rewrite)) refuse('rewrite', 'must be always or on_create');
  return values;
}

/** The service's checks of a value it is sent (its length, the mask rules), made before anything is written. */
async function checkSentValue(io: SectionIo, change: Change): Promise<void> {
  const desired = change.desired ?? {};
  const sent = change.action !== 'update' || change.fields.some((field) => field.field === 'value');
  if (!sent || desired.value === undefined) return;
  const value = isSecretRef(desired.value) ? await io.secret(desired.value, `variable ${String(desired.key)} value`) : String(desired.value);
  const masked = desired.masked === true || desired.hidden === true;
  const problem = valueProblem(value, masked, desired.raw === true);
  if (problem) refuse('value', problem, masked ? 'a masked value has 8 or more characters, no whitespace, and (unless raw: true) only letters, digits and _ + = / @ : . ~ -' : undefined);
}

/** A protected, file, masked or hidden variable's value (live or in the file) as a plan shows it: by its size only. */
function shownFields(fields: FieldChange[], live: Values | undefined, desired: Values): FieldChange[] {
  if (valueSayable(desired) && (!live || valueSayable(live))) return fields;
  const size = (value: unknown): string => valueSize(typeof value === 'string' ? value : null);
  return fields.map((field) => (field.field !== 'value' || field.writeOnly ? field : { field: 'value', withheld: true, ...('from' in field ? { from: size(field.from) } : {}), to: size(field.to) }));
}

function sectionFor(level: Level): Section {
  const at = new LevelVariables(level);
  const section = collectionSection(at.def, {
    key: 'variables',
    help:
      'CI/CD variables, paired by key' + (at.instance ? '' : ' and environment_scope (default *: a key in two scopes is two variables)') + '. ' +
      'A masked or hidden value is a secret reference ({env: …}, {file: …} or {command: …}): never compared, written when the variable is created and, with rewrite: always, by every apply. ' +
      'Export writes a protected or file value as a reference too; plan compares it when the secret is set, and counts it as not compared when not.',
    fields: fieldsOf(level),
    required: ['key', 'value'],
    overrides: {
      identity: at.identity,
      check: (values) => checkVariable(values, at.scopeOf(values)),
      uncompared: (desired) => ({
        skip: ['rewrite'],
        secret: uncomparedValue(desired),
        rewrite: uncomparedValue(desired) && desired.rewrite === 'always' ? ['value'] : [],
      }),
      shown: shownFields,
      read: (io, owner) => at.read(io, owner),
      comparable: (io, desired, live) => at.comparable(io, desired, live),
      exportAs: (values) => at.exportAs(values),
      create: (io, owner, desired) => at.create(io, owner, desired),
      remove: (io, owner, live) => at.remove(io, owner, live),
      // hidden is set only when a variable is created: changing it deletes the variable and creates it again.
      replaces: (live, changed) =>
        changed.includes('hidden') ? { reason: 'hidden is set only when a variable is created', ...(live.values.hidden === true ? { oldUnreadable: true } : {}) } : undefined,
      lostWithDelete: (live) => (live.values.hidden === true ? 'its value is hidden and cannot be read back: deleting it loses the value for good' : undefined),
      keepOld: (io, owner, live) => at.keepOld(io, owner, live),
      prepare: checkSentValue,
    },
  });
  // Set after the generic section is made, which gives declared collections its own update.
  section.update = (io, owner, live, changed, desired) => at.update(io, owner, live, changed, desired);
  return section;
}

export const projectVariablesSection = sectionFor('project');
export const groupVariablesSection = sectionFor('group');
export const instanceVariablesSection = sectionFor('instance');
