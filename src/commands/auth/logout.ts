import { defineCommand } from '../../cli/command.js';
import { ConfigError } from '../../errors.js';
import { removeKeyringEntry } from '../../config/credentials.js';
import { selectedProfileName } from '../../config/resolve.js';
import { updateConfig } from '../../config/store.js';

export default defineCommand({
  description: 'Removes the token of the profile from the config file or the OS keyring (and its token_command). The token itself stays valid on the server; revoke it there if it leaked.',
  examples: ['forgectl auth logout', 'forgectl -p ci auth logout'],
  async run(_opts, ctx) {
    const name = selectedProfileName(ctx.globals, ctx.env, ctx.readConfig());
    if (!name) throw new ConfigError('no profile selected', 'pass -p NAME');
    const account = ctx.readConfig().profiles[name]?.token_keyring;
    // The keyring first: a reference removed from the file while its entry stayed would be a token nobody finds.
    const leftover = account ? removeKeyringEntry(account) : undefined;
    await updateConfig(ctx.configDir, (data) => {
      const profile = data.profiles[name];
      if (!profile) throw new ConfigError(`no profile named "${name}"`);
      delete profile.token;
      delete profile.token_keyring;
      delete profile.token_command;
    });
    if (leftover) ctx.io.warn(leftover);
    ctx.io.note(`Removed the credentials of profile "${name}"${account && !leftover ? ' (from the OS keyring too)' : ''}`);
    return undefined;
  },
});
