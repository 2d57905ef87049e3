import type { Field } from '../api/fields.js';
import type { ListResult } from '../api/paginate.js';
import { creatableFields, idField, nounsOf, placed, routeOf, selectorOf, settableFields, updatableFields, type MultiParentDef, type SingletonDef, type ParentKind, type Placement, type ResourceDef, type Verb } from '../api/resource.js';
import { UsageError } from '../errors.js';
import { withChoices } from '../parse.js';
import { defineCommand, type ArgDef, type CommandDef, type Context, type OptionDef } from './command.js';
import { groupOption, projectOption, userOption } from './options.js';
import type { RecordLookup } from './not-found.js';

/**
 * The plain verbs of a declared resource (list, get, create, update, delete), generated from its declaration:
 * options from its fields (the field kind parses and checks each value), `<id>` parsed by the id field's kind, the
 * "nothing to change" guard on update, and confirm-then-delete. A command module exports
 * `plainCommands(resource, { list: { examples }, … })`; a verb that needs more is an ordinary defineCommand that
 * takes its route from the declaration.
 */

export interface VerbSpec {
  /** At least one, shown under --help. */
  examples: string[];
  /** Said before the generated "Needs the Maintainer role." */
  description?: string;
}

export interface ListSpec extends VerbSpec {
  /** Applied to each record as it streams: adds the declaration's computed columns. */
  map?: (record: any) => unknown;
  /**
   * Instead of map, when the computed columns need requests of their own (the names of the users records name):
   * applied to each page as it arrives.
   */
  mapPage?: (records: any[], ctx: Context) => Promise<unknown[]>;
  /** Default columns when map adds some (instead of the declaration's). */
  columns?: string[];
}

export interface GetSpec extends VerbSpec {
  /** Applied to the record (the list's computed columns, so --fields takes them here too). */
  map?: (record: any, ctx: Context) => unknown;
}

export interface DeleteSpec extends VerbSpec {
  /**
   * Fetch the record first: returns a label for the question and the notice ("badge 3 (ci)"), or throws to refuse
   * before asking (a group badge seen through a project, a protected branch the caller may not delete).
   */
  inspect?: (record: any, where: string, ctx: Context, params: Record<string, unknown>) => string | undefined | Promise<string | undefined>;
}

export interface PlainVerbs {
  list?: ListSpec;
  get?: GetSpec;
  create?: VerbSpec;
  update?: VerbSpec;
  delete?: DeleteSpec;
}

/** `freeze_start` → `--freeze-start`; the field's own flag name when it has one. */
export const flagOf = (name: string, field: Field): string => `--${field.flag ?? name.replace(/_/g, '-')}`;

/** Where commander puts an option's value: `--freeze-start` → freezeStart. */
const optsKey = (flag: string): string => flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The options of some fields; booleans get `--no-…` too when `negatable` (update). */
export function fieldOptions(fields: Array<[string, Field]>, mode: { required?: (field: Field) => boolean; negatable?: boolean; defaults?: boolean } = {}): OptionDef[] {
  return fields.flatMap(([name, field]): OptionDef[] => {
    const flag = flagOf(name, field);
    const shownDefault = mode.defaults && field.default !== undefined ? ` (default ${String(field.default)})` : '';
    const description = `${field.help ?? name.replace(/_/g, ' ')}${shownDefault}`;
    if (field.kind.type === 'bool') {
      const on: OptionDef = { flags: flag, description };
      return mode.negatable ? [on, { flags: `--no-${flag.slice(2)}`, description: `the opposite of ${flag}` }] : [on];
    }
    return [{ flags: `${flag} ${field.placeholder ?? field.kind.placeholder}`, description, parse: fieldParser(field, flag), required: mode.required?.(field) }];
  });
}

/** The parser of a field's option: its kind's, naming the values when the kind takes one of a list. */
export function fieldParser(field: Field, flag: string): (value: string, previous?: unknown) => unknown {
  const parse = (value: string, previous?: unknown) => field.kind.parse(value, flag, previous);
  return field.kind.choices ? withChoices(parse, field.kind.choices) : parse;
}

/** The values of some fields' options, by field name (undefined when not given). */
export function fieldValues(fields: Array<[string, Field]>, opts: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(fields.map(([name, field]) => [name, opts[optsKey(flagOf(name, field))]]));
}

/** The name of the `<id>` argument: `<id>`, or the id field's name (`<name>` of protected tags). */
const idName = (resource: ResourceDef): string => (resource.id.field === 'id' ? 'id' : resource.id.field.replace(/_/g, '-'));

/** Parses the `<id>` argument of a hand-written verb as the generated ones do: `parseId(protectedTags, text)`. */
export function parseId(resource: ResourceDef, text: string): string | number {
  return idField(resource).kind.parse(text, `${resource.noun} ${idName(resource)}`) as string | number;
}

/** "Needs Premium and the Maintainer role." */
function needs(resource: { tier?: string; roles: ResourceDef['roles'] }, writes: boolean): string {
  const role = writes ? resource.roles.write : resource.roles.read;
  const tier = resource.tier ? `${resource.tier[0].toUpperCase()}${resource.tier.slice(1)} and ` : '';
  return `Needs ${tier}the ${role[0].toUpperCase()}${role.slice(1)} role.`;
}

/** The option of a parent kind: --project, --group, --user; none for the instance. */
function parentOptions(parent: ParentKind, required = false): OptionDef[] {
  if (parent === 'project') return [projectOption];
  if (parent === 'group') return [groupOption];
  if (parent === 'user') return [{ ...userOption, required }];
  return [];
}

/** The route parameters that say where records live, from the parent option and the scope options. */
function location(resource: Placement, opts: Record<string, unknown>, ctx: Context): { params: Record<string, unknown>; where: string } {
  const scope = fieldValues(Object.entries(resource.scope ?? {}), opts);
  if (resource.parent === 'instance') return { params: scope, where: resource.where?.(scope) ?? 'the instance' };
  const parent = resource.parent === 'project' ? ctx.project(opts.project as string | undefined) : resource.parent === 'group' ? ctx.group(opts.group as string | undefined) : String(opts.user);
  const params = { [resource.parent]: parent, ...scope };
  return { params, where: resource.where?.(params) ?? `${resource.parent} ${parent}` };
}

/**
 * The plain verbs of a resource under several parents: each verb takes every placement's options, and the option
 * given selects the placement (`--group acme`, `--project acme/api` or `--personal`); none or two is a usage error
 * before anything is sent.
 */
/** The options of a resource under several parents: each placement's parent, scope and switch, none required. */
export function placementOptions(resource: MultiParentDef): OptionDef[] {
  const options = new Map<string, OptionDef>();
  for (const [key, placement] of Object.entries(resource.parents)) {
    const selector = selectorOf(key, placement);
    if (selector.kind === 'switch') options.set(selector.flag, { flags: selector.flag, description: `${resource.noun}s of ${placement.where?.({}) ?? `the ${key}`}` });
    for (const option of [...parentOptions(placement.parent), ...fieldOptions(Object.entries(placement.scope ?? {}))]) options.set(option.flags.split(' ')[0], option);
  }
  return [...options.values()];
}

/**
 * Where a hand-written verb of a resource under several parents acts: the placement the option given selects (none
 * or two is a usage error before anything is sent), seen as an ordinary declaration, with its route parameters and
 * its place in words ("issue #1 in acme/api").
 */
export function placementFor(resource: MultiParentDef, given: object, ctx: Context): { key: string; resource: ResourceDef; params: Record<string, unknown>; where: string } {
  const opts = given as Record<string, unknown>;
  const selectors = Object.entries(resource.parents).map(([key, placement]) => ({ key, ...selectorOf(key, placement) }));
  const flags = selectors.map((selector) => selector.flag);
  const choice = `${flags.slice(0, -1).join(', ')} or ${flags[flags.length - 1]}`;
  const named = selectors.filter((selector) => opts[optsKey(selector.flag)] !== undefined && opts[optsKey(selector.flag)] !== false);
  // --project with --mr: the project is where the merge request is, not a placement of its own.
  const chosen = named.filter((selector) => selector.kind !== 'parent' || !named.some((other) => other.kind === 'scope' && resource.parents[other.key].parent === selector.key));
  if (!chosen.length && resource.default) chosen.push(selectors.find((selector) => selector.key === resource.default)!);
  if (!chosen.length) chosen.push(...profileDefaultPlacement(selectors, ctx));
  if (chosen.length !== 1) throw new UsageError(chosen.length ? `give only one of ${choice}` : `which ${nounsOf(resource.noun)}? give ${choice}`);
  const placedResource = placed(resource, chosen[0].key);
  return { key: chosen[0].key, resource: placedResource, ...location(placedResource, opts, ctx) };
}

/**
 * Without an option naming the placement, the profile's default_project (then its default_group) names it, as the
 * options' help says.
 */
function profileDefaultPlacement<S extends { key: string; kind: string }>(selectors: S[], ctx: Context): S[] {
  const defaults = ctx.defaults();
  const parent = (key: 'project' | 'group') => selectors.find((selector) => selector.key === key && selector.kind === 'parent');
  const fallback = (defaults.project !== undefined && parent('project')) || (defaults.group !== undefined && parent('group'));
  return fallback ? [fallback] : [];
}

/**
 * The plain verbs of a resource under several parents: each verb takes every placement's options, and the option
 * given selects the placement (`--group acme`, `--project acme/api` or `--personal`).
 */
function multiParentCommands(resource: MultiParentDef, verbs: PlainVerbs): Partial<Record<Verb, CommandDef>> {
  const keys = Object.keys(resource.parents);
  const flags = keys.map((key) => selectorOf(key, resource.parents[key]).flag);
  const byKey = Object.fromEntries(keys.map((key) => [key, plainCommands(placed(resource, key), verbs)]));
  const options = placementOptions(resource);
  const taken = new Set(options.map((option) => option.flags.split(' ')[0]));
  const commands: Partial<Record<Verb, CommandDef>> = {};
  for (const verb of Object.keys(verbs) as Verb[]) {
    const first = byKey[keys[0]][verb]!;
    commands[verb] = defineCommand({
      ...first,
      description: [first.description, `Give ${flags.slice(0, -1).join(', ')} or ${flags[flags.length - 1]}.`].filter(Boolean).join(' '),
      options: [...options, ...(first.options ?? []).filter((option) => !taken.has(option.flags.split(' ')[0]))],
      ...(first.record ? { record: recordOf(resource) } : {}),
      async run(opts, ctx) {
        return byKey[placementFor(resource, opts, ctx).key][verb]!.run(opts, ctx);
      },
    });
  }
  return commands;
}

/** A list whose pages go through an async map as they arrive; its notice (more pages) is said at the end, as a list's is. */
async function* mappedPages(list: ListResult<any>, mapPage: (records: any[], ctx: Context) => Promise<unknown[]>, ctx: Context): AsyncGenerator<unknown> {
  for await (const page of list.pages()) yield* await mapPage(page, ctx);
  if (list.notice) ctx.io.note(list.notice);
}

export function plainCommands(resource: ResourceDef | MultiParentDef, verbs: PlainVerbs): Partial<Record<Verb, CommandDef>> {
  if ('parents' in resource) return multiParentCommands(resource, verbs);
  const kit = new VerbKit(resource);
  const commands: Partial<Record<Verb, CommandDef>> = {};
  if (verbs.list) commands.list = listCommand(kit, verbs.list);
  if (verbs.get) commands.get = getCommand(kit, verbs.get);
  if (verbs.create) commands.create = createCommand(kit, verbs.create);
  if (verbs.update) commands.update = updateCommand(kit, verbs.update);
  if (verbs.delete) commands.delete = deleteCommand(kit, verbs.delete);
  return commands;
}

/**
 * What a verb of one record of a declared resource says of its records, for its 404's hint: their noun, and the
 * options that place them (every placement's, under several parents). Generated verbs have it; a hand-written one
 * of a declared resource takes it as `record: recordOf(resource)`.
 */
export function recordOf(resource: ResourceDef | MultiParentDef): RecordLookup {
  const options = 'parents' in resource ? placementOptions(resource) : placeOptions(resource);
  return { nouns: nounsOf(resource.noun), placement: options.map((option) => option.flags.split(' ')[0]).map((flag) => ({ flag, key: optsKey(flag) })) };
}

/** The options that say where a resource's records live: its parent's, and its scope's (all required). */
function placeOptions(resource: Pick<ResourceDef, 'parent' | 'scope'>): OptionDef[] {
  return [...parentOptions(resource.parent, true), ...fieldOptions(Object.entries(resource.scope ?? {}), { required: () => true })];
}

/** What every plain verb of one resource takes from its declaration: its parent's options, its `<id>`, its routes. */
class VerbKit {
  readonly parentOptions: OptionDef[];
  readonly idArgs: ArgDef[];
  readonly recordFields: string[];
  readonly record: RecordLookup;

  constructor(readonly resource: ResourceDef) {
    this.parentOptions = placeOptions(resource);
    this.record = recordOf(resource);
    this.idArgs = [{ spec: `<${idName(resource)}>`, description: `the ${resource.noun}'s ${idName(resource) === 'id' ? 'ID' : idName(resource).replace(/[-_]/g, ' ')}` }];
    this.recordFields = [...Object.keys(resource.fields), ...(resource.computed ?? [])];
  }

  idOf(opts: Record<string, unknown>): unknown {
    return parseId(this.resource, String(opts[optsKey(`--${idName(this.resource)}`)]));
  }

  /** What every verb's definition says alike: its effect, its description with the role it needs, its examples. */
  head(spec: VerbSpec, effect: 'read' | 'write' | 'destructive'): Pick<CommandDef, 'effect' | 'description' | 'examples'> {
    return { effect, description: [spec.description, needs(this.resource, effect !== 'read')].filter(Boolean).join(' '), examples: spec.examples };
  }

  route(verb: Verb): string {
    return routeOf(this.resource, verb);
  }
}

function listCommand(kit: VerbKit, spec: ListSpec): CommandDef {
  const { resource } = kit;
  if (resource.computed?.length && !spec.map && !spec.mapPage) throw new Error(`resource ${resource.noun}: the list computes ${resource.computed.join(', ')}; give it a map`);
  const filters = Object.entries(resource.filters ?? {});
  return defineCommand({
    ...kit.head(spec, 'read'),
    options: [...kit.parentOptions, ...fieldOptions(filters)],
    list: true,
    columns: spec.columns ?? resource.columns,
    recordFields: kit.recordFields,
    async run(opts, ctx) {
      const list = ctx.api.list(kit.route('list'), { ...location(resource, opts, ctx).params, ...fieldValues(filters, opts) }, ctx.paging);
      if (spec.mapPage) return mappedPages(list, spec.mapPage, ctx);
      return spec.map ? list.map(spec.map) : list;
    },
  });
}

function getCommand(kit: VerbKit, spec: GetSpec): CommandDef {
  const { resource } = kit;
  return defineCommand({
    ...kit.head(spec, 'read'),
    args: kit.idArgs,
    record: kit.record,
    options: kit.parentOptions,
    recordFields: kit.recordFields,
    async run(opts, ctx) {
      const record = await ctx.api.call(kit.route('get'), { ...location(resource, opts, ctx).params, [resource.id.param]: kit.idOf(opts) });
      return spec.map ? spec.map(record, ctx) : record;
    },
  });
}

function createCommand(kit: VerbKit, spec: VerbSpec): CommandDef {
  const { resource } = kit;
  const fields = creatableFields(resource);
  return defineCommand({
    ...kit.head(spec, 'write'),
    recordFields: kit.recordFields,
    options: [...kit.parentOptions, ...fieldOptions(fields, { required: (field) => field.create === 'required', defaults: true })],
    async run(opts, ctx) {
      return ctx.api.call(kit.route('create'), { ...location(resource, opts, ctx).params, ...fieldValues(fields, opts) });
    },
  });
}

function updateCommand(kit: VerbKit, spec: VerbSpec): CommandDef {
  const { resource } = kit;
  const fields = updatableFields(resource);
  return defineCommand({
    ...kit.head(spec, 'write'),
    args: kit.idArgs,
    record: kit.record,
    recordFields: kit.recordFields,
    options: [...kit.parentOptions, ...fieldOptions(fields, { negatable: true })],
    async run(opts, ctx) {
      const id = kit.idOf(opts);
      const changes = fieldValues(fields, opts);
      if (Object.values(changes).every((value) => value === undefined)) {
        const flags = fields.map(([name, field]) => flagOf(name, field));
        throw new UsageError('nothing to change', `give ${flags.slice(0, -1).join(', ')}${flags.length > 1 ? ' or ' : ''}${flags[flags.length - 1]}`);
      }
      return ctx.api.call(kit.route('update'), { ...location(resource, opts, ctx).params, ...changes, [resource.id.param]: id });
    },
  });
}

function deleteCommand(kit: VerbKit, spec: DeleteSpec): CommandDef {
  const { resource } = kit;
  return defineCommand({
    ...kit.head(spec, 'destructive'),
    args: kit.idArgs,
    record: kit.record,
    options: kit.parentOptions,
    async run(opts, ctx) {
      const id = kit.idOf(opts);
      const { params, where } = location(resource, opts, ctx);
      const target = { ...params, [resource.id.param]: id };
      const label = spec.inspect ? await spec.inspect(await ctx.api.call(kit.route('get'), target), where, ctx, params) : undefined;
      const what = `${resource.noun} ${String(id)}${label ? ` (${label})` : ''}`;
      await ctx.confirm(`Delete ${what} of ${where}?`);
      await ctx.api.call(kit.route('delete'), target);
      ctx.io.note(`Deleted ${what} of ${where}`);
      return undefined;
    },
  });
}

export interface SetSpec extends VerbSpec {
  /** Fields that get no option of their own (a password read from stdin by one of `options`). */
  omit?: string[];
  /** Options besides the fields' (`--auth-password-stdin`). */
  options?: OptionDef[];
  /** What to say when no option was given: "give at least one rule, for example …". */
  nothingHint?: string;
  /**
   * Called with the body before it is checked and sent: checks across options, values read otherwise (a secret
   * from stdin), warnings. Changes the body in place.
   */
  prepare?: (body: Record<string, unknown>, opts: Record<string, any>, ctx: Context) => Promise<void> | void;
  /** The question to confirm before sending, when the change needs one ("Configure pull mirroring of …?"). */
  question?: (body: Record<string, unknown>, where: string) => string;
}

export interface SingletonVerbs {
  get?: VerbSpec;
  set?: SetSpec;
  delete?: VerbSpec;
}

/**
 * The verbs of a declared singleton (a push rule, a pull mirror, application settings): `get` (none: says so on
 * stderr and prints nothing), `set` (the fields given; creates it first when the service has a create route and
 * there is none) and `delete` (asks first). Options come from the fields, under their declared flag names.
 */
export function singletonCommands(resource: SingletonDef, verbs: SingletonVerbs): Partial<Record<'get' | 'set' | 'delete', CommandDef>> {
  const parentOptionList = placeOptions(resource);
  const describe = (spec: VerbSpec, writes: boolean): string => [spec.description, needs(resource, writes)].filter(Boolean).join(' ');
  const commands: Partial<Record<'get' | 'set' | 'delete', CommandDef>> = {};
  const { get, create, update, delete: remove } = resource.routes;

  if (verbs.get) {
    commands.get = defineCommand({
      effect: 'read',
      description: describe(verbs.get, false),
      examples: verbs.get.examples,
      options: parentOptionList,
      async run(opts, ctx) {
        const { params, where } = location(resource, opts, ctx);
        const record = await ctx.api.call(get, params);
        if (record !== null && record !== undefined) return record;
        ctx.io.note(`${where} has no ${resource.noun}`);
        return undefined;
      },
    });
  }

  if (verbs.set) {
    const spec = verbs.set;
    const fields = settableFields(resource).filter(([name]) => !spec.omit?.includes(name));
    const flags = fields.map(([name, field]) => flagOf(name, field));
    commands.set = defineCommand({
      effect: 'write',
      description: describe(spec, true),
      examples: spec.examples,
      options: [...parentOptionList, ...fieldOptions(fields, { negatable: true }), ...(spec.options ?? [])],
      async run(opts, ctx) {
        const body = fieldValues(fields, opts);
        await spec.prepare?.(body, opts, ctx);
        const given = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
        if (!Object.keys(given).length) throw new UsageError('nothing to set', spec.nothingHint ?? `give ${flags.slice(0, 2).join(', ')} or another setting`);
        const { params, where } = location(resource, opts, ctx);
        if (spec.question) await ctx.confirm(spec.question(given, where));
        const exists = create && update ? (await ctx.api.call(get, params)) != null : undefined;
        const route = exists === false || !update ? create : update;
        if (!route) throw new Error(`resource ${resource.noun} declares no update or create route`);
        return ctx.api.call(route, { ...params, ...given });
      },
    });
  }

  if (verbs.delete) {
    if (!remove) throw new Error(`resource ${resource.noun} declares no delete route`);
    const spec = verbs.delete;
    commands.delete = defineCommand({
      effect: 'destructive',
      description: describe(spec, true),
      examples: spec.examples,
      options: parentOptionList,
      async run(opts, ctx) {
        const { params, where } = location(resource, opts, ctx);
        await ctx.confirm(`Delete the ${resource.noun} of ${where}?`);
        await ctx.api.call(remove, params);
        ctx.io.note(`Deleted the ${resource.noun} of ${where}`);
        return undefined;
      },
    });
  }
  return commands;
}
