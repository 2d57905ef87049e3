import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { parseProfileValue, selectedProfileName } from '../../config/resolve.js';
import { PROFILE_KEYS, updateConfig, type Profile } from '../../config/store.js';

export default defineCommand<{ key: string; value: string; unset?: boolean }>({
  description: `Keys: ${Object.entries(PROFILE_KEYS).filter(([, kind]) => kind !== 'secret' && kind !== 'reference').map(([key]) => key).join(', ')}. The profile is -p NAME, or the current one; it is created when missing.`,
  credentials: false,
  examples: ['forgectl profile set default_project acme/api', 'forgectl -p ci profile set token_command "pass show forge/ci"', 'forgectl profile set timeout 60'],
  args: ['<key>', '[value]'],
  options: [{ flags: '--unset', description: 'remove the key instead of setting it' }],
  async run(opts, ctx) {
    if (!opts.unset && opts.value === undefined) throw new UsageError('missing value', `give a value, or --unset to remove ${opts.key}`);
    const value = opts.unset ? undefined : parseProfileValue(opts.key, opts.value);
    if (opts.unset && !(opts.key in PROFILE_KEYS)) throw new UsageError(`unknown profile key "${opts.key}"`);
    const name = selectedProfileName(ctx.globals, ctx.env, ctx.readConfig()) ?? 'default';
    await updateConfig(ctx.configDir, (data) => {
      const profile: Record<string, unknown> = { ...data.profiles[name] };
      if (value === undefined) delete profile[opts.key];
      else profile[opts.key] = value;
      data.profiles[name] = profile as Profile;
      data.current ??= name;
    });
    ctx.io.note(opts.unset ? `Removed ${opts.key} from profile "${name}"` : `Set ${opts.key} in profile "${name}"`);
    return undefined;
  },
});
