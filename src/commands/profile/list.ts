import { defineCommand } from '../../cli/command.js';
import { tokenStorage } from '../../config/keyring.js';
import { selectedProfileName } from '../../config/resolve.js';
import { Summarised } from '../../output/result.js';

export default defineCommand({
  credentials: false,
  examples: ['forgectl profile list', 'forgectl profile list -o json'],
  // auth is in the records, not the table: token_storage says as much, and where. The URL is never cut, nor a header
  // (`default_group` is nothing cut to `defau…`): on a narrow terminal the last columns are left out instead.
  columns: ['name', 'current', 'url', 'token_storage', 'default_project', 'default_group'],
  columnPriority: { whole: ['url'] },
  async run(_opts, ctx) {
    const config = ctx.readConfig();
    const selected = selectedProfileName(ctx.globals, ctx.env, config);
    // A first run has none: say how to make one rather than a bare "no results".
    if (!Object.keys(config.profiles).length) return new Summarised([], 'no profiles yet: run forgectl auth login (or try forgectl sandbox first)');
    return Object.entries(config.profiles).map(([name, profile]) => ({
      name,
      current: name === selected,
      url: profile.url ?? null,
      auth: profile.token || profile.token_keyring ? 'token' : profile.token_command ? 'token_command' : 'none',
      // Where the token lives: keyring, file, token_command or none (read from the config file only; nothing is unlocked).
      token_storage: tokenStorage(profile),
      token_type: profile.token_type ?? 'private',
      default_group: profile.default_group ?? null,
      default_project: profile.default_project ?? null,
    }));
  },
});
