import { defineCommand, type Context } from '../../cli/command.js';
import { projects } from '../projects/resource.js';
import { groups } from '../groups/resource.js';
import { UsageError } from '../../errors.js';
import { itemId, itemOption, moveRoute, typeOption, withRepository, type MoveType, type StorageMove } from './shared.js';
import { plural } from '../../parse.js';

interface Options {
  type: MoveType;
  from?: string;
  to?: string;
  id?: string;
}

const READ_ONLY = 'read-only from scheduling until its move finishes (pushes and web edits fail meanwhile)';

/** How many projects a bulk move would take (GET /projects?repository_storage=, administrators), if known. */
async function projectsOn(ctx: Context, storage: string): Promise<number | undefined> {
  const response = await ctx.api.callResponse<unknown[]>(projects.routes.list, { repository_storage: storage, per_page: 1 });
  const total = response.header('x-total');
  return total ? Number(total) : undefined;
}

/** The item as the service knows it: checks that it exists (404 → exit 5) and where it is now. */
async function describeItem(ctx: Context, type: MoveType, item: string): Promise<{ name: string; storage?: string }> {
  if (type === 'project') {
    const project = await ctx.api.call<{ path_with_namespace: string; repository_storage?: string }>(projects.routes.get, { project: item });
    return { name: `project ${project.path_with_namespace}`, storage: project.repository_storage };
  }
  if (type === 'group') {
    const group = await ctx.api.call<{ full_path: string }>(groups.routes.get, { group: item });
    return { name: `the wiki of group ${group.full_path}` };
  }
  // No snippet read is shared by every instance version; the item's move list answers 404 for a missing snippet.
  const [route, params] = moveRoute('snippet', 'list', item);
  await ctx.api.call(route, { ...params, per_page: 1 });
  return { name: `snippet ${item}` };
}

export default defineCommand<Options>({
  effect: 'write',
  description: [
    'Schedules moves of every repository of one type on a storage (--from), or of one project, snippet or group wiki (--id).',
    'Each repository is read-only from scheduling until its move finishes. Without --to the service picks the',
    'destination by the storages\' weights. Follow single moves with `storage-move watch`, bulk ones with `storage-move list`.',
  ].join(' '),
  examples: [
    'forgectl storage-move schedule --type project --from default --to storage2 --yes',
    'forgectl storage-move schedule --type project --id acme/web --to storage2',
    'forgectl storage-move schedule --type group --from default --to storage2 --dry-run',
  ],
  options: [
    typeOption(true),
    { flags: '--from <storage>', description: 'move every repository of the type on this storage' },
    itemOption,
    { flags: '--to <storage>', description: 'destination storage (default: chosen by the storages\' weights)' },
  ],
  async run(opts, ctx) {
    if (Boolean(opts.from) === Boolean(opts.id)) {
      throw new UsageError('give either --from STORAGE (every repository of the type on it) or --id ID (one item)');
    }
    const to = opts.to ? `storage "${opts.to}"` : 'a storage chosen by weight';

    if (opts.from !== undefined) {
      if (opts.to === opts.from) throw new UsageError(`--from and --to are the same storage ("${opts.from}")`);
      const count = opts.type === 'project' ? await projectsOn(ctx, opts.from) : undefined;
      if (count === 0) {
        ctx.io.note(`No project repositories are on storage "${opts.from}": nothing to schedule.`);
        return undefined;
      }
      const what = count === undefined ? `every ${opts.type} repository` : plural(count, 'project repository', 'project repositories');
      await ctx.confirm(`Move ${what} on storage "${opts.from}" to ${to}? Each is ${READ_ONLY}.`);
      const [route] = moveRoute(opts.type, 'schedule');
      await ctx.api.call(route, { source_storage_name: opts.from, destination_storage_name: opts.to });
      ctx.io.note(`Scheduled: each is ${READ_ONLY}. Follow with: forgectl storage-move list --type ${opts.type}`);
      return { type: opts.type, source_storage_name: opts.from, destination_storage_name: opts.to ?? null, status: 'accepted' };
    }

    const item = itemId(opts.type, opts.id!);
    const { name, storage } = await describeItem(ctx, opts.type, item);
    if (storage !== undefined && storage === opts.to) throw new UsageError(`${name} is already on storage "${storage}"`);
    const from = storage ? ` from storage "${storage}"` : '';
    await ctx.confirm(`Move ${name}${from} to ${to}? It is ${READ_ONLY}.`);
    const [route, params] = moveRoute(opts.type, 'schedule', item);
    const move = await ctx.api.call<StorageMove>(route, { ...params, destination_storage_name: opts.to });
    ctx.io.note(`Scheduled move ${move.id}: ${name} is ${READ_ONLY}. Follow with: forgectl storage-move watch ${move.id} --type ${opts.type}`);
    return withRepository(move);
  },
});
