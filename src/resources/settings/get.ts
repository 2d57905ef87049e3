import { defineCommand } from '../../cli/command.js';
import { SETTINGS_ROUTES } from './resource.js';
import { CACHE_NOTE, maskSecrets } from './shared.js';

export default defineCommand({
  effect: 'read',
  description: `Credentials such as external_pipeline_validation_service_token are masked unless named in --fields. ${CACHE_NOTE}`,
  examples: [
    'forgectl settings get',
    'forgectl settings get --fields signup_enabled,max_attachment_size -o json',
    'forgectl settings get --fields default_branch_protection_defaults.allow_force_push',
  ],
  async run(_opts, ctx) {
    const record = await ctx.api.call<Record<string, unknown>>(SETTINGS_ROUTES.get);
    return maskSecrets(record, ctx.globals.fields);
  },
});
