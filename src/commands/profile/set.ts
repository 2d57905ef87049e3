import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { parseBoolean, parseChoice, parseInteger } from '../../cli/parse.js';
import { normalizeBaseUrl, selectedProfileName } from '../../config/resolve.js';
import { PROFILE_KEYS, updateConfig, type Profile } from '../../config/store.js';
import { FORMATS } from '../../output/formats.js';

/** Parses a profile value by its key; tokens are refused here because argv is visible to other users. */
export function parseProfileValue(key: string, value: string): unknown {
  const kind = PROFILE_KEYS[key as keyof Profile];
  if (!kind) throw new UsageError(`unknown profile key "${key}"`, `known keys: ${Object.keys(PROFILE_KEYS).join(', ')}`);
  if (kind === 'secret') throw new UsageError('a token is never accepted as an argument', 'use: forgectl auth login --token-stdin');
  if (kind === 'boolean') return parseBoolean(key)(value);
  if (kind === 'number') return parseInteger(key, key === 'retries' ? 0 : 1, key === 'retries' ? 10 : 3600)(value);
  if (key === 'url') return normalizeBaseUrl(value).rootUrl;
  if (key === 'token_type') return parseChoice(key, ['private', 'job', 'oauth'])(value);
  if (key === 'output') return parseChoice(key, FORMATS)(value);
  return value;
}

export default defineCommand<{ key: string; value: string; unset?: boolean }>({
  description: `Keys: ${Object.keys(PROFILE_KEYS).filter((k) => k !== 'token').join(', ')}. The profile is -p NAME, or the current one; it is created when missing.`,
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
