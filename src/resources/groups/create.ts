import { groups } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { groupId, inputsOf, settingOptions, settingValues } from '../projects/settings.js';
import { withoutSecretValues } from '../variables/resource.js';

export default defineCommand<Record<string, unknown> & { parent?: string }>({
  effect: 'write',
  description: 'Creates a group, or a subgroup with --parent, with any of the settings `groups update` takes; you become its owner. A subgroup needs the role its parent\'s subgroup_creation_level asks for (Maintainer by default).',
  examples: [
    'forgectl groups create --name Data --path data --parent acme --subgroup-creation-level owner',
    'forgectl groups create --name Tools --path tools --project-creation-level maintainer --require-two-factor-authentication -o json',
  ],
  options: [
    { flags: '--parent <id|path>', description: 'the parent group (a subgroup)' },
    ...settingOptions(inputsOf(groups), 'create', ['parent_id']),
  ],
  async run(opts, ctx) {
    const values = settingValues(inputsOf(groups), 'create', opts);
    const parent = opts.parent === undefined ? undefined : await groupId(ctx, opts.parent, '--parent');
    const created = await ctx.api.call<{ full_path: string }>(groups.routes.create, { ...values, parent_id: parent });
    ctx.io.note(`Created group ${created.full_path}`);
    return withoutSecretValues(created);
  },
});
