import { badges, type Badge } from './resource.js';
import { groupBadges } from '../group-badges/resource.js';
import { projects } from '../projects/resource.js';
import { ApiError, CliError, ExitCode, UsageError } from '../../errors.js';
import type { CommandDef, Context } from '../../cli/command.js';
import { fieldValues, parseId, plainCommands } from '../../cli/resource-commands.js';
import { updatableFields } from '../../api/resource.js';

/**
 * The group (of the project's namespace and its ancestors, nearest first) whose badge a project shows: the service
 * names no group in the record, so each is asked until one has it. Undefined when none answers.
 */
async function owningGroup(ctx: Context, project: string, id: number): Promise<string | undefined> {
  const { namespace } = await ctx.api.call<{ namespace: { kind: string; full_path: string } }>(projects.routes.get, { project });
  if (namespace.kind !== 'group') return undefined;
  const parts = namespace.full_path.split('/');
  for (let depth = parts.length; depth > 0; depth--) {
    const group = parts.slice(0, depth).join('/');
    try {
      await ctx.api.call(groupBadges.routes.get, { group, badge_id: id });
      return group;
    } catch (error) {
      if (!(error instanceof ApiError && (error.status === 404 || error.status === 403))) throw error;
    }
  }
  return undefined;
}

const commands = plainCommands(badges, {
  list: {
    description: 'Lists the badges of the project and those it inherits from its groups (kind "group"; change those on the group).',
    examples: ['forgectl badges list --project acme/api', 'forgectl badges list --project acme/api --name coverage -o json'],
  },
  get: { examples: ['forgectl badges get 2 --project acme/api'] },
  create: {
    examples: [
      "forgectl badges create --project acme/api --name ci --link-url 'https://ci.example.com/%{project_path}' --image-url 'https://ci.example.com/%{project_path}/%{default_branch}.svg'",
    ],
  },
  update: {
    description: 'Only project badges are changed here; a badge of kind "group" belongs to the group (forgectl group-badges update).',
    examples: ["forgectl badges update 2 --project acme/api --image-url 'https://ci.example.com/%{project_path}/status.svg'"],
  },
  delete: {
    description: 'Only project badges can be deleted here; a badge of kind "group" belongs to the group.',
    examples: ['forgectl badges delete 2 --project acme/api --yes'],
    // The service refuses group badges with 403 only after the prompt; looking first gives the clearer answer.
    inspect(badge: { id: number; kind: string; name: string | null }, where) {
      if (badge.kind === 'group') throw new CliError(`badge ${badge.id} is a group badge and cannot be deleted through ${where}`, ExitCode.auth, 'delete it on its group instead');
      return badge.name ?? undefined;
    },
  },
});

const generatedUpdate = commands.update!;

/**
 * The service changes a group badge through any project that shows it, and so every project of the group with it:
 * update looks first and sends nothing for a badge of kind "group".
 */
commands.update = {
  ...generatedUpdate,
  async run(opts: Record<string, unknown>, ctx: Context) {
    // Nothing to change is said by the generated verb, before any request.
    if (Object.values(fieldValues(updatableFields(badges), opts)).every((value) => value === undefined)) return generatedUpdate.run(opts, ctx);
    const project = ctx.project(opts.project as string | undefined);
    const id = parseId(badges, String(opts.id)) as number;
    const badge = await ctx.api.call<Badge>(badges.routes.get, { project, badge_id: id });
    if (badge.kind === 'group') {
      const group = await owningGroup(ctx, project, id);
      throw new UsageError(
        `badge ${id} is a group badge: changed through project ${project}, it would change on every project of its group; nothing was sent`,
        `change it on its group: forgectl group-badges update ${id} --group ${group ?? 'GROUP'}`,
      );
    }
    return generatedUpdate.run(opts, ctx);
  },
} as CommandDef;

export default commands;
