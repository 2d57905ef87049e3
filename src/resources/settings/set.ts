import { SETTINGS, SETTINGS_ROUTES } from './resource.js';
import { defineCommand, instanceName } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { changesFrom, checkApplied, previewAndConfirm } from '../../cli/change.js';
import { CACHE_NOTE, maskSecrets, parseSettingPairs } from './shared.js';
import { pairReadsFile, plural } from '../../parse.js';

export default defineCommand<{ pairs: string[] }>({
  effect: 'write',
  description: [
    'Each value is parsed by the type of its setting: integers, numbers, true/false, strings (null clears them),',
    'arrays as a comma list or JSON, objects as JSON. A value beginning with @ is read from a file (@- from stdin);',
    'credentials are accepted only that way. Unknown settings and wrong types exit 2 before anything is sent.',
    'The change is shown as current → new and confirmed (--yes without a terminal); the answer is checked.',
    CACHE_NOTE,
  ].join(' '),
  examples: [
    'forgectl settings set signup_enabled=false',
    'forgectl settings set max_attachment_size=200 default_project_visibility=internal --yes',
    'forgectl settings set domain_allowlist=example.com,example.org restricted_visibility_levels=public',
    `forgectl settings set 'default_branch_protection_defaults={"allowed_to_push":[{"access_level":40}],"allow_force_push":false,"allowed_to_merge":[{"access_level":40}]}'`,
    'forgectl settings set external_pipeline_validation_service_token=@- < token.txt',
  ],
  args: [{ spec: '<pairs...>', description: 'KEY=VALUE settings to change; VALUE @FILE reads a local file (@- stdin)', localFile: pairReadsFile }],
  async run(opts, ctx) {
    const wanted = await parseSettingPairs(ctx, opts.pairs);
    const current = await ctx.api.call<Record<string, unknown>>(SETTINGS_ROUTES.get);
    const missing = Object.keys(wanted).filter((key) => !(key in current));
    if (missing.length) {
      const premium = missing.some((key) => SETTINGS[key].premium);
      throw new UsageError(`this instance has no setting ${missing.join(', ')}`, premium ? 'it needs Premium or Ultimate' : undefined);
    }
    const changes = changesFrom(current, wanted, (key) => Boolean(SETTINGS[key]?.secret));
    const unchanged = Object.keys(wanted).filter((key) => !changes.some((c) => c.key === key));
    if (unchanged.length) ctx.io.note(`already set: ${unchanged.join(', ')}`);
    const pick = (record: Record<string, unknown>, keys: string[]) => maskSecrets(Object.fromEntries(keys.map((key) => [key, record[key]])), ctx.globals.fields);
    if (!changes.length) {
      ctx.io.note('nothing to change');
      return pick(current, Object.keys(wanted));
    }
    const host = instanceName(ctx);
    await previewAndConfirm(ctx, `the application settings of ${host}`, changes);
    const result = await ctx.api.call<Record<string, unknown>>(SETTINGS_ROUTES.update, Object.fromEntries(changes.map((c) => [c.key, c.to])));
    checkApplied(ctx, changes, result);
    ctx.io.note(`Updated ${plural(changes.length, 'setting')} of ${host}. ${CACHE_NOTE}`);
    return pick(result, Object.keys(wanted));
  },
});
