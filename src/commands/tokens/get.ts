import { defineCommand } from '../../cli/command.js';
import { personalByUser, resolveUserTarget, selfElsewhere, targetOptions, tokenIdOf, tokenRecord, userOptions, withLevelName, type TargetOptions, type UserOptions } from './shared.js';

export default defineCommand<TargetOptions & UserOptions & { id: string }>({
  description: '`self` is the token forgectl authenticates with (a bot checking itself, or your own personal token). An impersonation token is shown with --personal --user NAME|ID --impersonation (administrators); a service account\'s with --service-account NAME (and --group for a group\'s).',
  examples: [
    'forgectl tokens get 4 --group acme',
    'forgectl -p bot tokens get self --group acme',
    'forgectl tokens get self --personal -o json',
    'forgectl tokens get 7 --service-account service_account_deploy',
  ],
  args: ['<id>'],
  options: [...targetOptions, ...userOptions],
  record: tokenRecord,
  async run(opts, ctx) {
    const { target } = await resolveUserTarget(opts, ctx);
    personalByUser(opts, target);
    const id = tokenIdOf(target, 'get', opts.id);
    try {
      return withLevelName(await target.read(ctx.api, id));
    } catch (error) {
      throw selfElsewhere(error, target, id);
    }
  },
});
