import { defineCommand } from '../../cli/command.js';
import { saveProfileToken } from '../../config/credentials.js';
import { KeyringUnavailable, loadStoredToken, tokenStorage } from '../../config/keyring.js';
import { ConfigError } from '../../errors.js';
import { parseChoice, plural } from '../../parse.js';

interface Options {
  to: 'keyring' | 'file';
}

export default defineCommand<Options>({
  description: [
    'Moves the tokens of existing profiles between the config file and the OS keyring: every profile, or only the one',
    'named with -p. Profiles with a token_command, without a token, or already where asked are left as they are.',
    'Moving to the keyring needs one that answers (exit 3 otherwise, nothing moved).',
  ].join(' '),
  credentials: false,
  examples: ['forgectl auth migrate --to keyring', 'forgectl -p ci auth migrate --to file'],
  options: [{ flags: '--to <storage>', description: 'keyring or file', parse: parseChoice('--to', ['keyring', 'file'] as const), required: true }],
  columns: ['profile', 'from', 'to'],
  async run(opts, ctx) {
    const config = ctx.readConfig();
    const only = ctx.globals.profile ?? (ctx.env.FORGECTL_PROFILE || undefined);
    if (only && !config.profiles[only]) throw new ConfigError(`no profile named "${only}"`, 'run: forgectl profile list');
    const moved: { profile: string; from: string; to: string }[] = [];
    for (const [name, profile] of Object.entries(config.profiles)) {
      if (only && name !== only) continue;
      const from = tokenStorage(profile);
      if ((from !== 'file' && from !== 'keyring') || from === opts.to) continue;
      const token = (await loadStoredToken(name, profile))!;
      try {
        const saved = await saveProfileToken(ctx.configDir, name, token, { storage: opts.to, url: profile.url ?? '' }, profile);
        if (saved.leftover) ctx.io.warn(saved.leftover);
      } catch (error) {
        if (!(error instanceof KeyringUnavailable)) throw error;
        const done = moved.length ? `; moved before it: ${moved.map((item) => item.profile).join(', ')}` : '; nothing was moved';
        throw new ConfigError(`profile "${name}": ${error.message}${done}`, 'unlock or start the keyring (on Linux a Secret Service such as gnome-keyring in this session), then run this again');
      }
      moved.push({ profile: name, from, to: opts.to });
    }
    ctx.io.note(moved.length ? `Moved ${plural(moved.length, 'token')} to the ${opts.to === 'keyring' ? 'OS keyring' : 'config file'}` : `no token to move: every profile with a token keeps it in the ${opts.to === 'keyring' ? 'OS keyring' : 'config file'} already`);
    return moved;
  },
});
