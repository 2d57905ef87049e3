import { defineCommand } from '../../cli/command.js';
import { ConfigError } from '../../errors.js';
import { deleteProfileEntry, tokenLeft } from '../../config/credentials.js';
import { configFile } from '../../config/paths.js';
import { selectedProfileName } from '../../config/resolve.js';
import { updateConfig, type Profile } from '../../config/store.js';

export default defineCommand({
  description: [
    'Removes the token of the profile from the config file or the OS keyring (and its token_command), after asking',
    '(--yes off a terminal): forgectl keeps no other copy of it. The token itself stays valid on the instance until it',
    'is revoked; to revoke it first: forgectl auth token | forgectl tokens identify --revoke --yes. When the keyring',
    'cannot be reached, nothing is removed (exit 3): the profile keeps its reference to the entry, so that it can be',
    'removed later.',
  ].join(' '),
  credentials: false,
  examples: ['forgectl auth logout', 'forgectl -p ci auth logout --yes'],
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
    await ctx.confirm(logoutQuestion(name, existing, configFile(ctx.configDir)));
    const account = existing.token_keyring;
    // The keyring first: a reference removed from the file while its entry stayed would be a token nobody finds.
    if (account) await deleteProfileEntry(name, account, `run forgectl -p ${name} auth logout again where the keyring answers (a desktop session)`);
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

/** What logout is about to remove, where it is kept, and that the token outlives it on the instance. */
function logoutQuestion(name: string, profile: Profile, file: string): string {
  const token = tokenLeft(name, profile, file);
  if (!token) return `Remove the token_command of profile "${name}"? The token stays where that command reads it, and valid on ${profile.url ?? 'the instance'} until it is revoked`;
  return `Remove the token of profile "${name}" from ${token.where}${profile.token_command ? ', and its token_command' : ''}? ${token.fate}`;
}
