import type { Field } from '../api/fields.js';
import { creatableFields, idField, updatableFields, type ResourceDef, type Verb } from '../api/resource.js';
import { UsageError } from '../errors.js';
import { defineCommand, type CommandDef, type Context, type OptionDef } from './command.js';
import { groupOption, projectOption } from './options.js';

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
  /** Default columns when map adds some (instead of the declaration's). */
  columns?: string[];
}

export interface DeleteSpec extends VerbSpec {
  /**
   * Fetch the record first: returns a label for the question and the notice ("badge 3 (ci)"), or throws to refuse
   * before asking (a group badge seen through a project).
   */
  inspect?: (record: any, where: string) => string | undefined;
}

export interface PlainVerbs {
  list?: ListSpec;
  get?: VerbSpec;
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
    return [{
      flags: `${flag} ${field.placeholder ?? field.kind.placeholder}`,
      description,
      parse: (value: string, previous?: unknown) => field.kind.parse(value, flag, previous),
      required: mode.required?.(field),
    }];
  });
}

/** The values of some fields' options, by field name (undefined when not given). */
export function fieldValues(fields: Array<[string, Field]>, opts: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(fields.map(([name, field]) => [name, opts[optsKey(flagOf(name, field))]]));
}

/** The name of the `<id>` argument: `<id>`, or the id field's name (`<name>` of protected tags). */
const idName = (resource: ResourceDef): string => (resource.id.field === 'id' ? 'id' : resource.id.field.replace(/_/g, '-'));

/** Parses the `<id>` argument of a hand-written verb as the generated ones do: `parseId(protectedTags, text)`. */
export function parseId(resource: ResourceDef, text: string): unknown {
  return idField(resource).kind.parse(text, `${resource.noun} ${idName(resource)}`);
}

/** "Needs Premium and the Maintainer role." */
function needs(resource: ResourceDef, writes: boolean): string {
  const role = writes ? resource.roles.write : resource.roles.read;
  const tier = resource.tier ? `${resource.tier[0].toUpperCase()}${resource.tier.slice(1)} and ` : '';
  return `Needs ${tier}the ${role[0].toUpperCase()}${role.slice(1)} role.`;
}

/** The route parameters that say where records live, from --project/--group and the scope options. */
function location(resource: ResourceDef, opts: Record<string, unknown>, ctx: Context): { params: Record<string, unknown>; where: string } {
  const parent = resource.parent === 'project' ? ctx.project(opts.project as string | undefined) : ctx.group(opts.group as string | undefined);
  const scope = fieldValues(Object.entries(resource.scope ?? {}), opts);
  const params = { [resource.parent]: parent, ...scope };
  return { params, where: resource.where?.(params) ?? `${resource.parent} ${parent}` };
}

export function plainCommands(resource: ResourceDef, verbs: PlainVerbs): Partial<Record<Verb, CommandDef>> {
  const parentOptions = [resource.parent === 'project' ? projectOption : groupOption, ...fieldOptions(Object.entries(resource.scope ?? {}), { required: () => true })];
  const idArgs = [`<${idName(resource)}>`];
  const idOf = (opts: Record<string, unknown>): unknown => parseId(resource, String(opts[optsKey(`--${idName(resource)}`)]));
  const describe = (spec: VerbSpec, writes: boolean): string => [spec.description, needs(resource, writes)].filter(Boolean).join(' ');
  const route = (verb: Verb): string => {
    const found = resource.routes[verb];
    if (!found) throw new Error(`resource ${resource.noun} declares no ${verb} route`);
    return found;
  };
  const commands: Partial<Record<Verb, CommandDef>> = {};
  const recordFields = [...Object.keys(resource.fields), ...(resource.computed ?? [])];

  if (verbs.list) {
    const spec = verbs.list;
    if (resource.computed?.length && !spec.map) throw new Error(`resource ${resource.noun}: the list computes ${resource.computed.join(', ')}; give it a map`);
    const filters = Object.entries(resource.filters ?? {});
    commands.list = defineCommand({
      description: describe(spec, false),
      examples: spec.examples,
      options: [...parentOptions, ...fieldOptions(filters)],
      list: true,
      columns: spec.columns ?? resource.columns,
      recordFields,
      async run(opts, ctx) {
        const list = ctx.api.list(route('list'), { ...location(resource, opts, ctx).params, ...fieldValues(filters, opts) }, ctx.paging);
        return spec.map ? list.map(spec.map) : list;
      },
    });
  }

  if (verbs.get) {
    commands.get = defineCommand({
      description: describe(verbs.get, false),
      examples: verbs.get.examples,
      args: idArgs,
      options: parentOptions,
      recordFields,
      async run(opts, ctx) {
        const id = idOf(opts);
        return ctx.api.call(route('get'), { ...location(resource, opts, ctx).params, [resource.id.param]: id });
      },
    });
  }

  if (verbs.create) {
    const fields = creatableFields(resource);
    commands.create = defineCommand({
      description: describe(verbs.create, true),
      examples: verbs.create.examples,
      recordFields,
      options: [...parentOptions, ...fieldOptions(fields, { required: (field) => field.create === 'required', defaults: true })],
      async run(opts, ctx) {
        return ctx.api.call(route('create'), { ...location(resource, opts, ctx).params, ...fieldValues(fields, opts) });
      },
    });
  }

  if (verbs.update) {
    const fields = updatableFields(resource);
    commands.update = defineCommand({
      description: describe(verbs.update, true),
      examples: verbs.update.examples,
      args: idArgs,
      recordFields,
      options: [...parentOptions, ...fieldOptions(fields, { negatable: true })],
      async run(opts, ctx) {
        const id = idOf(opts);
        const changes = fieldValues(fields, opts);
        if (Object.values(changes).every((value) => value === undefined)) {
          const flags = fields.map(([name, field]) => flagOf(name, field));
          throw new UsageError('nothing to change', `give ${flags.slice(0, -1).join(', ')}${flags.length > 1 ? ' or ' : ''}${flags[flags.length - 1]}`);
        }
        return ctx.api.call(route('update'), { ...location(resource, opts, ctx).params, ...changes, [resource.id.param]: id });
      },
    });
  }

  if (verbs.delete) {
    const spec = verbs.delete;
    commands.delete = defineCommand({
      description: describe(spec, true),
      examples: spec.examples,
      args: idArgs,
      options: parentOptions,
      async run(opts, ctx) {
        const id = idOf(opts);
        const { params, where } = location(resource, opts, ctx);
        const target = { ...params, [resource.id.param]: id };
        const label = spec.inspect ? spec.inspect(await ctx.api.call(route('get'), target), where) : undefined;
        const what = `${resource.noun} ${String(id)}${label ? ` (${label})` : ''}`;
        await ctx.confirm(`Delete ${what} of ${where}?`);
        await ctx.api.call(route('delete'), target);
        ctx.io.note(`Deleted ${what} of ${where}`);
        return undefined;
      },
    });
  }
  return commands;
}
