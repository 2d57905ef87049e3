import { defineCommand } from '../../cli/command.js';
import { inheritedFor } from './inherited.js';
import { environmentOption, mayShowValues, route, scopeOption, printed, showValuesOption, targetOf, variables, whereOptions, type Variable, type WhereOptions } from './shared.js';

interface Options extends WhereOptions {
  showValues?: boolean;
}

export default defineCommand<Options>({
  effect: 'read',
  description:
    'Lists the CI/CD variables of a project, a group or the instance (administrators). A key in two environment scopes is ' +
    'two variables; --scope keeps one scope; --environment gives what a job in that environment gets: the variables of the instance, of each group from the top down to the nearest, and of the project, a later level winning for a key, and within each level the most specific matching scope (a level you may not read is named on stderr as not included). Values of masked and hidden variables are shown as null: --show-values shows ' +
    'masked ones at a terminal, never in a pipe or a file, and hidden values cannot be read back at all. Needs the ' +
    'Maintainer role (administrators for --instance). --projects-file lists those of every project the file names, the project in front.',
  examples: [
    'forgectl variables list --project acme/api',
    'forgectl variables list --project acme/api --scope production -o json',
    'forgectl variables list --project acme/api --environment production',
    'forgectl variables list --group acme',
    'forgectl variables list --instance',
    "forgectl variables list --projects-file services.txt --scope '*'",
  ],
  fleet: 'projects-file',
  options: [...whereOptions, scopeOption, environmentOption, showValuesOption],
  list: true,
  columns: variables.columns,
  // On a narrow terminal these say least: a hidden or masked value reads as such in the value column.
  columnPriority: { dropFirst: ['raw', 'hidden'] },
  recordFields: Object.keys(variables.fields).filter((name) => name !== 'masked_and_hidden'),
  async run(opts, ctx) {
    const target = targetOf(opts, ctx);
    const show = mayShowValues(opts, ctx);
    if (opts.environment !== undefined) {
      // Which variable of a key a job gets depends on all of them, at every level: every page is read first.
      return (await inheritedFor(ctx, target, opts.environment)).variables.map((variable) => printed(variable, show, ctx.format));
    }
    // The service has no scope filter on lists: every page is read for one scope.
    const list = ctx.api.list<Variable>(route(target, 'list'), target.params, ctx.paging).map((variable) => printed(variable, show, ctx.format));
    return opts.scope === undefined ? list : list.filter((variable) => variable.environment_scope === opts.scope);
  },
});
