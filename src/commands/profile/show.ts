import { defineCommand } from '../../cli/command.js';
import { profileNameArg } from './args.js';
import { ConfigError } from '../../errors.js';
import { selectedProfileName } from '../../config/resolve.js';
import { REDACTED } from '../../http/redact.js';

export default defineCommand<{ name?: string }>({
  description: 'The token is never shown; use `forgectl auth token` when a script needs it.',
  credentials: false,
  examples: ['forgectl profile show', 'forgectl profile show prod -o json'],
  args: [profileNameArg('[name]', 'the profile (default: the one in use)')],
  async run(opts, ctx) {
    const config = ctx.readConfig();
    const name = opts.name ?? selectedProfileName(ctx.globals, ctx.env, config);
    const profile = name ? config.profiles[name] : undefined;
    if (!name || !profile) throw new ConfigError(name ? `no profile named "${name}"` : 'no profile selected', 'run: forgectl profile list');
    return { name, current: config.current === name, ...profile, ...(profile.token ? { token: REDACTED } : {}) };
  },
});
