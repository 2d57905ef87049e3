import { defineCommand } from '../../cli/command.js';
import { extraWordsHint, profileKeyArg, profileValueArg } from './args.js';
import { UsageError } from '../../errors.js';
import { parseProfileValue, selectedProfileName } from '../../config/resolve.js';
import { SETTABLE_PROFILE_KEYS, updateConfig, type Profile } from '../../config/store.js';

export default defineCommand<{ key: string; value: string }>({
  description: `Keys: ${SETTABLE_PROFILE_KEYS.join(', ')}. The profile is -p NAME, or the current one; it is created when missing (and says what it still needs). profile unset removes a key.`,
  credentials: false,
  examples: ['forgectl profile set default_project acme/api', 'forgectl -p ci profile set token_command "pass show forge/ci"', 'forgectl profile set timeout 60'],
  args: [profileKeyArg('the key to set'), profileValueArg],
  extraWordsHint: extraWordsHint('set'),
  async run(opts, ctx) {
    const name = selectedProfileName(ctx.globals, ctx.env, ctx.readConfig()) ?? 'default';
    const profileFlag = ctx.globals.profile ? ` -p ${name}` : '';
    if (opts.value === '') throw new UsageError(`${opts.key}: the value is empty`, `to remove ${opts.key} from the profile: forgectl${profileFlag} profile unset ${opts.key}`);
    const value = parseProfileValue(opts.key, opts.value);
    const { created, url } = await updateConfig(ctx.configDir, (data) => {
      const existing = data.profiles[name];
      const profile = { ...existing, [opts.key]: value } as Profile;
      data.profiles[name] = profile;
      data.current ??= name;
      return { created: !existing, url: profile.url };
    });
    ctx.io.note(`Set ${opts.key} in ${created ? 'new ' : ''}profile "${name}"`);
    // A profile without the instance's URL cannot be used yet (a token_command alone says where the token comes from, not where it goes).
    if (!url) ctx.io.note(`profile "${name}" has no url yet: set it with forgectl -p ${name} profile set url https://git.example.com`);
    return undefined;
  },
});
