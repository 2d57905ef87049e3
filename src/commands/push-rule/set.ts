import { pushRule } from '../../api/resources/push-rule.js';
import { settableFields } from '../../api/resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { fieldOptions, fieldValues } from '../../cli/resource-commands.js';
import { UsageError } from '../../errors.js';

const fields = settableFields(pushRule);

export default defineCommand<Record<string, unknown> & { project?: string }>({
  description: 'Creates the push rule, or updates the fields given when the project has one. Regexes are checked to compile before sending. Premium and Ultimate.',
  examples: [
    'forgectl push-rule set --project acme/api --max-file-size 10 --deny-delete-tag',
    "forgectl push-rule set --project acme/api --branch-name-regex '^(main|feature/.+)$' --no-member-check",
  ],
  options: [projectOption, ...fieldOptions(fields, { negatable: true })],
  async run(opts, ctx) {
    const body = Object.fromEntries(Object.entries(fieldValues(fields, opts)).filter(([, value]) => value !== undefined));
    if (!Object.keys(body).length) throw new UsageError('nothing to set', 'give at least one rule, for example --max-file-size 10 or --deny-delete-tag');
    const project = ctx.project(opts.project);
    const existing = await ctx.api.call(pushRule.routes.get, { project });
    return ctx.api.call(existing ? pushRule.routes.update : pushRule.routes.create, { project, ...body });
  },
});
