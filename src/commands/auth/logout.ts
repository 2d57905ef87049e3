import { defineCommand } from '../../cli/command.js';
import { ConfigError } from '../../errors.js';
import { removeByHand } from '../../config/credentials.js';
import { keyringDelete } from '../../config/keyring.js';
import { selectedProfileName } from '../../config/resolve.js';
import { updateConfig } from '../../config/store.js';

export default defineCommand({
  description: [
    'Removes the token of the profile from the config file or the OS keyring (and its token_command). The token itself',
    'stays valid on the server; revoke it there if it leaked. When the keyring cannot be reached, nothing is removed',
    '(exit 3): the profile keeps its reference to the entry, so that it can be removed later.',
  ].join(' '),
  credentials: false,
  examples: ['forgectl auth logout', 'forgectl -p ci auth logout'],
  async run(_opts, ctx) {
    const name = selectedProfileName(ctx.globals, ctx.env, ctx.readConfig());
    if (!name) throw new ConfigError('no profile selected', 'pass -p NAME');
    const existing = ctx.readConfig().profiles[name];
    if (!existing) throw new ConfigError(`no profile named "${name}"`, 'run: forgectl profile list');
    // Said as it is: a second logout has nothing to remove, and must not claim it removed something.
    if (!existing.token && !existing.token_keyring && !existing.token_command) {
      ctx.io.note(`profile "${name}" holds no credentials: nothing to remove`);
      return undefined;
    }
    const account = existing.token_keyring;
    // The keyring first: a reference removed from the file while its entry stayed would be a token nobody finds.
    if (account) {
      try {
        await keyringDelete(account);
      } catch (error) {
        throw new ConfigError(
          `the token of profile "${name}" is still in the OS keyring (entry "${account}" of service forgectl): ${(error as Error).message}; nothing was removed`,
          `run forgectl -p ${name} auth logout again where the keyring answers (a desktop session); to remove the entry yourself, ${removeByHand(account)}`,
        );
      }
    }
    await updateConfig(ctx.configDir, (data) => {
      const profile = data.profiles[name];
      if (!profile) throw new ConfigError(`no profile named "${name}"`);
      delete profile.token;
      delete profile.token_keyring;
      delete profile.token_command;
    });
    ctx.io.note(`Removed the credentials of profile "${name}"${account ? ' (from the OS keyring too)' : ''}`);
    return undefined;
  },
});
