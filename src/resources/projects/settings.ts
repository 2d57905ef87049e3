import { SETTINGS_ROUTES } from '../settings/resource.js';
import { creatableFields, updatableFields } from '../../api/resource.js';
import { GROUP_INPUTS, groups } from '../groups/resource.js';
import { PROJECT_INPUTS, projects } from './resource.js';
import { defineCommand, type CommandDef, type Context, type OptionDef } from '../../cli/command.js';
import { fieldOptions, fieldValues } from '../../cli/resource-commands.js';
import { ApiError, CliError, ExitCode, UsageError } from '../../errors.js';
import { plural } from '../../parse.js';
import { deletedArg, groupArg, namedForDeletion, projectArg } from '../../cli/options.js';
import { withoutSecretValues } from '../variables/resource.js';

/**
 * What the write commands of projects and groups share: their settings as options (the declarations' settable
 * fields), a group named by id or path, and what the service's delayed deletion means for a delete.
 */

type Fields = typeof PROJECT_INPUTS | typeof GROUP_INPUTS;

/** What a create or an update of one sends, in the order the commands offer it (the answers have their fields in the service's order). */
export const inputsOf = (def: typeof projects | typeof groups): { fields: Fields } => ({ fields: def === groups ? GROUP_INPUTS : PROJECT_INPUTS });

/** The options of a create (required fields required) or an update (switches with --no-…), from the declaration. */
export const settingOptions = (def: { fields: Fields }, mode: 'create' | 'update', except: string[] = []): OptionDef[] =>
  fieldOptions((mode === 'create' ? creatableFields(def) : updatableFields(def)).filter(([name]) => !except.includes(name)), mode === 'create' ? { required: (field) => field.create === 'required' } : { negatable: true });

/** The values of those options that were given, by field name. */
export function settingValues(def: { fields: Fields }, mode: 'create' | 'update', opts: Record<string, unknown>): Record<string, unknown> {
  const values = fieldValues(mode === 'create' ? creatableFields(def) : updatableFields(def), opts);
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

/**
 * `projects update` and `groups update`: the settings given (the others stay) of the project or group named as the
 * argument, sent in one PUT; `query` adds what the service should be told besides (a group's PUT need not answer
 * with its projects).
 */
export function updateCommand(def: typeof projects | typeof groups, help: { description: string; examples: string[] }, query: Record<string, unknown> = {}): CommandDef<Record<string, unknown>> {
  const scope = def.id.param;
  return defineCommand<Record<string, unknown>>({
    ...help,
    effect: 'write',
    args: [scope === 'project' ? projectArg : groupArg],
    options: settingOptions(inputsOf(def), 'update'),
    async run(opts, ctx) {
      const values = settingValues(inputsOf(def), 'update', opts);
      const given = opts[scope] as string | undefined;
      // A new visibility or path exposes or moves it: never on the profile's default (an empty "$PROJECT" in a script).
      const target = values.visibility !== undefined || values.path !== undefined ? namedForDeletion(given, scope, 'update') : ctx[scope](given, `the ${scope} as an argument (forgectl ${def.command} update ID|PATH)`);
      if (!Object.keys(values).length) throw new UsageError('nothing to change: give the settings to set', `forgectl ${def.command} update --help lists them`);
      if (values.visibility !== undefined) await confirmWider(ctx, def, target, String(values.visibility), query);
      const route: string = def.routes.update;
      return withoutSecretValues(await ctx.api.call(route, { [scope]: target, ...values, ...query }));
    },
  });
}

const REACH: Record<string, number> = { private: 0, internal: 1, public: 2 };

/** Asks before a visibility that shows the project or group to more people than now (internal: every signed-in user; public: anyone). */
async function confirmWider(ctx: Context, def: typeof projects | typeof groups, target: string, visibility: string, query: Record<string, unknown>): Promise<void> {
  const scope = def.id.param;
  const route: string = def.routes.get;
  const { visibility: now } = await ctx.api.call<{ visibility: string }>(route, { [scope]: target, ...query });
  if ((REACH[visibility] ?? 0) <= (REACH[now] ?? 0)) return;
  const who = visibility === 'public' ? 'anyone, signed in or not' : 'every signed-in user of the instance';
  await ctx.confirm(`Make ${scope} ${target} ${visibility} (now ${now})? It becomes visible to ${who}.`);
}

/** `projects archive` and `projects unarchive`: one call on the project named as the argument. */
export function archiveCommand(verb: 'archive' | 'unarchive', description: string): CommandDef<{ project?: string }> {
  return defineCommand<{ project?: string }>({
    effect: 'write',
    description,
    examples: [`forgectl projects ${verb} acme/web`],
    args: [deletedArg('project', verb)],
    async run(opts, ctx) {
      const project = namedForDeletion(opts.project, 'project', verb);
      const result = await ctx.api.call<{ path_with_namespace: string }>(projects.routes[verb], { project });
      ctx.io.note(`${verb === 'archive' ? 'Archived' : 'Unarchived'} project ${result.path_with_namespace}`);
      return withoutSecretValues(result);
    },
  });
}

/** A group's id from its id or full path (exit 5 when there is none). */
export async function groupId(ctx: Context, given: string, option: string): Promise<number> {
  if (/^\d+$/.test(given)) return Number(given);
  try {
    return (await ctx.api.call<{ id: number }>(groups.routes.get, { group: given, with_projects: false })).id;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) throw new CliError(`${option}: no group ${given}`, ExitCode.notFound);
    throw error;
  }
}

/** The instance's deletion delay in days, when the caller may read it (administrators), else undefined. */
async function deletionDelay(ctx: Context): Promise<number | undefined> {
  try {
    const settings = await ctx.api.call<{ deletion_adjourned_period?: number }>(SETTINGS_ROUTES.get, {});
    return typeof settings.deletion_adjourned_period === 'number' ? settings.deletion_adjourned_period : undefined;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 403 || error.status === 404)) return undefined;
    throw error;
  }
}

const addDays = (day: string, days: number): string => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * After a DELETE the service answered 202: read the object again. Gone: deleted. Marked for deletion: when it
 * really goes (the mark's day plus the instance's delay, when readable) and how to take it back.
 */
async function deletionOutcome(ctx: Context, what: string, read: () => Promise<{ marked_for_deletion_on?: string | null } | undefined>, restore: string): Promise<'deleted' | 'marked'> {
  const after = await read();
  if (!after) {
    ctx.io.note(`Deleted ${what}`);
    return 'deleted';
  }
  const marked = after.marked_for_deletion_on;
  if (!marked) {
    ctx.io.note(`Asked to delete ${what}; the instance deletes it in the background`);
    return 'deleted';
  }
  const delay = await deletionDelay(ctx);
  const when = delay === undefined ? `after the instance's deletion delay (counted from ${marked}; 7 days unless an administrator changed it)` : `on ${addDays(marked, delay)} (${plural(delay, 'day')} after ${marked})`;
  ctx.io.note(`Marked ${what} for deletion: it will really be deleted ${when}. Until then it can be restored (${restore}); --permanently deletes it now.`);
  return 'marked';
}

/**
 * The deletion of a project or a group the user agreed to: marks it for deletion (unless it is marked already), with
 * --permanently then deletes the marked object at once, and says what became of it. `query` goes with each read.
 */
export async function deleteAgreed(ctx: Context, def: typeof projects | typeof groups, object: { id: number; marked_for_deletion_on?: string | null }, path: string, permanently: boolean | undefined, query: Record<string, unknown> = {}): Promise<void> {
  const scope = def.id.param;
  const [get, remove]: string[] = [def.routes.get, def.routes.delete];
  const read = () => readAgain(() => ctx.api.call<{ marked_for_deletion_on?: string | null }>(get, { [scope]: object.id, ...query }));
  if (!object.marked_for_deletion_on) await ctx.api.call(remove, { [scope]: object.id });
  if (permanently) {
    const now = await read();
    if (now?.marked_for_deletion_on) await ctx.api.call(remove, { [scope]: object.id, permanently_remove: true, full_path: path });
  } else if (object.marked_for_deletion_on) {
    ctx.io.note(`${scope === 'project' ? 'Project' : 'Group'} ${path} was marked for deletion already (on ${object.marked_for_deletion_on}); --permanently deletes it now`);
  }
  await deletionOutcome(ctx, `${scope} ${path}`, read, `forgectl api -X POST /${def.command}/${object.id}/restore`);
}

/** Reads an object again, undefined when it is gone (404). */
async function readAgain<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}
