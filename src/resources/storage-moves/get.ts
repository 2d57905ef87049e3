import { defineCommand } from '../../cli/command.js';
import { itemId, itemOption, moveRoute, parseMoveId, typeOption, withRepository, type MoveType, type StorageMove } from './shared.js';

export default defineCommand<{ moveId: string; type: MoveType; id?: string }>({
  effect: 'read',
  description: 'Shows one repository storage move and its state (initial, scheduled, started, replicated, finished, failed, cleanup failed).',
  examples: ['forgectl storage-move get 1 --type project', 'forgectl storage-move get 1 --type snippet --id 1 -o json'],
  args: [{ spec: '<move-id>', description: 'the storage move\'s ID' }],
  options: [typeOption(false), itemOption],
  async run(opts, ctx) {
    const id = parseMoveId(opts.moveId);
    const item = opts.id === undefined ? undefined : itemId(opts.type, opts.id);
    return withRepository(await ctx.api.call<StorageMove>(...moveRoute(opts.type, 'get', item, id)));
  },
});
