import { defineCommand } from '../../cli/command.js';
import { mayShowValues, route, scopeOption, printed, showValuesOption, targetOf, variables, whereOptions, type Variable, type WhereOptions } from './shared.js';

interface Options extends WhereOptions {
  showValues?: boolean;
}

export default defineCommand<Options>({
  effect: 'read',
  description:
    'Lists the CI/CD variables of a project, a group or the instance (administrators). A key in two environment scopes is ' +
    'two variables; --scope keeps one scope. Values of masked and hidden variables are shown as null: --show-values shows ' +
    'masked ones at a terminal, never in a pipe or a file, and hidden values cannot be read back at all. Needs the ' +
    'Maintainer role (administrators for --instance). --projects-file lists those of every project the file names, the project in front.',
  examples: [
    'forgectl variables list --project acme/api',
    'forgectl variables list --project acme/api --scope production -o json',
    'forgectl variables list --group acme',
    'forgectl variables list --instance',
    "forgectl variables list --projects-file services.txt --scope '*'",
  ],
  fleet: 'projects-file',
  options: [...whereOptions, scopeOption, showValuesOption],
  list: true,
  columns: variables.columns,
  // On a narrow terminal these say least: a hidden or masked value reads as such in the value column.
  columnPriority: { dropFirst: ['raw', 'hidden'] },
  recordFields: Object.keys(variables.fields).filter((name) => name !== 'masked_and_hidden'),
  async run(opts, ctx) {
    const target = targetOf(opts, ctx);
    const show = mayShowValues(opts, ctx);
    // The service has no scope filter on lists: every page is read for one scope.
    const list = ctx.api.list<Variable>(route(target, 'list'), target.params, ctx.paging).map((variable) => printed(variable, show, ctx.format));
    return opts.scope === undefined ? list : list.filter((variable) => variable.environment_scope === opts.scope);
  },
});
