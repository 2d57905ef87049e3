import { defineCommand } from '../../cli/command.js';
import { selectedProfileName } from '../../config/resolve.js';

export default defineCommand({
  examples: ['forgectl profile list', 'forgectl profile list -o json'],
  columns: ['name', 'current', 'url', 'auth', 'default_group', 'default_project'],
  async run(_opts, ctx) {
    const config = ctx.readConfig();
    const selected = selectedProfileName(ctx.globals, ctx.env, config);
    return Object.entries(config.profiles).map(([name, profile]) => ({
      name,
      current: name === selected,
      url: profile.url ?? null,
      auth: profile.token ? 'token' : profile.token_command ? 'token_command' : 'none',
      token_type: profile.token_type ?? 'private',
      default_group: profile.default_group ?? null,
      default_project: profile.default_project ?? null,
    }));
  },
});
