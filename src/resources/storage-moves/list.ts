import { projects as projectsDecl } from '../projects/resource.js';
import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { itemId, itemOption, listMoves, typeOption, type MoveType } from './shared.js';

interface Options {
  type?: MoveType;
  id?: string;
  projectsOn?: string;
}

export default defineCommand<Options>({
  effect: 'read',
  description: [
    'Lists repository storage moves, newest first: all of a type, or those of one item (--id). Records carry the',
    'service\'s fields plus `repository` (the project path, `snippet <id>` or the group path).',
    'With --projects-on STORAGE it lists the projects still on that storage instead.',
  ].join(' '),
  examples: [
    'forgectl storage-move list --type project',
    'forgectl storage-move list --type project --id acme/api -o json',
    'forgectl storage-move list --projects-on default --all',
  ],
  options: [
    typeOption(false),
    itemOption,
    { flags: '--projects-on <storage>', description: 'list the projects whose repository is still on this storage' },
  ],
  list: true,
  async run(opts, ctx) {
    if (opts.projectsOn !== undefined) {
      if ((opts.type && opts.type !== 'project') || opts.id) throw new UsageError('--projects-on lists projects; it takes neither --id nor another --type');
      const projects = ctx.api.list(projectsDecl.routes.list, { repository_storage: opts.projectsOn, order_by: 'id', sort: 'asc' }, {
        ...ctx.paging,
        keysetAfter: (last: { id: number }) => ({ order_by: 'id', sort: 'asc', id_after: last.id }),
      });
      projects.columns = ['id', 'path_with_namespace', 'repository_storage', 'archived', 'last_activity_at'];
      return projects;
    }
    const type = opts.type ?? 'project';
    return listMoves(ctx, type, opts.id === undefined ? undefined : itemId(type, opts.id));
  },
});
