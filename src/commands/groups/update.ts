import { groups } from '../../api/resources/projects.js';
import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { settingOptions, settingValues } from '../projects/settings.js';

export default defineCommand<Record<string, unknown> & { group?: string }>({
  description: 'Changes the settings given (the others stay): name, path, visibility, who may create projects and subgroups, two-factor authentication, access requests … Needs the Owner role.',
  examples: [
    'forgectl groups update acme --project-creation-level maintainer --subgroup-creation-level owner',
    'forgectl groups update acme --require-two-factor-authentication --two-factor-grace-period 24 --no-request-access-enabled',
  ],
  args: ['[group]'],
  options: settingOptions(groups, 'update'),
  async run(opts, ctx) {
    const group = ctx.group(opts.group, 'the group as an argument (forgectl groups update ID|PATH)');
    const values = settingValues(groups, 'update', opts);
    if (!Object.keys(values).length) throw new UsageError('nothing to change: give the settings to set', 'forgectl groups update --help lists them');
    return ctx.api.call(groups.routes.update, { group, ...values, with_projects: false });
  },
});
