import { defineCommand } from '../../cli/command.js';
import { profileNameArg } from './args.js';
import { ConfigError } from '../../errors.js';
import { updateConfig } from '../../config/store.js';

export default defineCommand<{ name: string }>({
  credentials: false,
  examples: ['forgectl profile use prod'],
  args: [profileNameArg('<name>', 'the profile to make current')],
  async run(opts, ctx) {
    await updateConfig(ctx.configDir, (data) => {
      if (!data.profiles[opts.name]) throw new ConfigError(`no profile named "${opts.name}"`, 'run: forgectl profile list');
      data.current = opts.name;
    });
    ctx.io.note(`Current profile: ${opts.name}`);
    return undefined;
  },
});
