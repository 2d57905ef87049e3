import { defineCommand } from '../../cli/command.js';
import { profileNameArg } from './args.js';
import { ConfigError } from '../../errors.js';
import { deleteProfileEntry, removeByHand, tokenLeft } from '../../config/credentials.js';
import { configFile } from '../../config/paths.js';
import { updateConfig } from '../../config/store.js';
import { shellQuote } from '../../parse.js';

export default defineCommand<{ name: string; keepKeyringEntry?: boolean }>({
  description: [
    'Removes the profile and its credentials, after asking (--yes off a terminal). A token kept in the OS keyring is',
    'removed from it first; where the keyring cannot be reached, nothing is removed (exit 3) unless',
    '--keep-keyring-entry says to leave the entry there (it is named, to be removed later).',
  ].join(' '),
  credentials: false,
  examples: ['forgectl profile remove old-staging --yes'],
  args: [profileNameArg('<name>', 'the profile to remove')],
  options: [
    { flags: '--keep-keyring-entry', description: 'remove the profile but leave its token\'s entry in the OS keyring (where the keyring cannot be reached); a warning names the entry' },
  ],
  async run(opts, ctx) {
    const existing = ctx.readConfig().profiles[opts.name];
    if (!existing) throw new ConfigError(`no profile named "${opts.name}"`, 'run: forgectl profile list');
    const token = tokenLeft(opts.name, existing, configFile(ctx.configDir));
    await ctx.confirm(`Remove profile "${opts.name}"${token ? ` and its token, kept in ${token.where}? ${token.fate}` : '?'}`);
    const account = existing.token_keyring;
    if (account && !opts.keepKeyringEntry) {
      const again = `forgectl profile remove ${shellQuote(opts.name)}`;
      await deleteProfileEntry(opts.name, account, `run ${again} again where the keyring answers (a desktop session), or remove the profile anyway and the entry later: ${again} --keep-keyring-entry`);
    }
    const others = await updateConfig(ctx.configDir, (data) => {
      delete data.profiles[opts.name];
      if (data.current !== opts.name) return undefined;
      delete data.current;
      return Object.keys(data.profiles);
    });
    if (account && opts.keepKeyringEntry) ctx.io.warn(`the token of profile "${opts.name}" stays in the OS keyring (entry "${account}" of service forgectl); ${removeByHand(account)}`);
    ctx.io.note(`Removed profile "${opts.name}"`);
    if (others?.length) ctx.io.note(`no profile is current now; pick one: forgectl profile use ${others.length === 1 ? others[0] : `NAME (${others.join(', ')})`}`);
    return undefined;
  },
});
