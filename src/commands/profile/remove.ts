import { defineCommand } from '../../cli/command.js';
import { profileNameArg } from './args.js';
import { ConfigError } from '../../errors.js';
import { removeKeyringEntry } from '../../config/credentials.js';
import { updateConfig } from '../../config/store.js';

export default defineCommand<{ name: string }>({
  credentials: false,
  examples: ['forgectl profile remove old-staging --yes'],
  args: [profileNameArg('<name>', 'the profile to remove')],
  async run(opts, ctx) {
    const existing = ctx.readConfig().profiles[opts.name];
    if (!existing) throw new ConfigError(`no profile named "${opts.name}"`, 'run: forgectl profile list');
    await ctx.confirm(`Remove profile "${opts.name}" and its credentials?`);
    const leftover = existing.token_keyring ? await removeKeyringEntry(existing.token_keyring) : undefined;
    if (leftover) ctx.io.warn(leftover);
    const others = await updateConfig(ctx.configDir, (data) => {
      delete data.profiles[opts.name];
      if (data.current !== opts.name) return undefined;
      delete data.current;
      return Object.keys(data.profiles);
    });
    ctx.io.note(`Removed profile "${opts.name}"`);
    if (others?.length) ctx.io.note(`no profile is current now; pick one: forgectl profile use ${others.length === 1 ? others[0] : `NAME (${others.join(', ')})`}`);
    return undefined;
  },
});
