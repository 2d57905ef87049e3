import { defineCommand } from '../../cli/command.js';
import { ConfigError } from '../../errors.js';
import { selectedProfileName } from '../../config/resolve.js';
import { updateConfig } from '../../config/store.js';

export default defineCommand({
  description: 'Removes the token (and token_command) of the profile from the config file. The token itself stays valid on the server; revoke it there if it leaked.',
  examples: ['forgectl auth logout', 'forgectl -p ci auth logout'],
  async run(_opts, ctx) {
    const name = selectedProfileName(ctx.globals, ctx.env, ctx.readConfig());
    if (!name) throw new ConfigError('no profile selected', 'pass -p NAME');
    await updateConfig(ctx.configDir, (data) => {
      const profile = data.profiles[name];
      if (!profile) throw new ConfigError(`no profile named "${name}"`);
      delete profile.token;
      delete profile.token_command;
    });
    ctx.io.note(`Removed the credentials of profile "${name}"`);
    return undefined;
  },
});
