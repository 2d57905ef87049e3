import { defineCommand } from '../../cli/command.js';
import { extraWordsHint, profileKeyArg } from './args.js';
import { ConfigError, UsageError } from '../../errors.js';
import { profileKeyKind, selectedProfileName } from '../../config/resolve.js';
import { updateConfig } from '../../config/store.js';
import { shellQuote } from '../../parse.js';

export default defineCommand<{ key: string }>({
  description: 'The profile is -p NAME, or the current one. A token is removed with auth logout.',
  examples: ['forgectl profile unset default_project', 'forgectl -p ci profile unset timeout'],
  args: [profileKeyArg('the key to remove')],
  extraWordsHint: extraWordsHint('unset'),
  credentials: false,
  async run(opts, ctx) {
    const config = ctx.readConfig();
    const name = selectedProfileName(ctx.globals, ctx.env, config) ?? 'default';
    const kind = profileKeyKind(opts.key);
    if (kind === 'secret' || kind === 'reference') {
      // auth logout without -p logs out of the current profile: any other is named.
      const profileFlag = name === config.current ? '' : ` -p ${shellQuote(name)}`;
      throw new UsageError(`${opts.key} is removed with the credentials`, `run: forgectl${profileFlag} auth logout`);
    }
    if (!config.profiles[name]) throw new ConfigError(`no profile named "${name}"`, 'run: forgectl profile list');
    if (!(opts.key in config.profiles[name])) {
      ctx.io.note(`profile "${name}" has no ${opts.key}: nothing to remove`);
      return undefined;
    }
    await updateConfig(ctx.configDir, (data) => {
      if (data.profiles[name]) delete (data.profiles[name] as Record<string, unknown>)[opts.key];
    });
    ctx.io.note(`Removed ${opts.key} from profile "${name}"`);
    return undefined;
  },
});
