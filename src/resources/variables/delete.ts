import { defineCommand } from '../../cli/command.js';
import { recordOf } from '../../cli/resource-commands.js';
import { getVariable, keyArg, label, parseKey, route, scopeFilter, scopeOption, targetOf, variables, valueSize, type Variable, type WhereOptions, whereOptions } from './shared.js';

interface Options extends WhereOptions {
  key: string;
}

/** "file, protected, 143 characters": what the question shows of the variable (never its value, not even a plain one's). */
const traits = (variable: Variable): string =>
  [variable.variable_type === 'file' ? 'file' : '', variable.hidden ? 'hidden' : variable.masked ? 'masked' : '', variable.protected ? 'protected' : '', variable.hidden || variable.value === null ? '' : valueSize(variable.value), variable.description ? `"${variable.description}"` : '']
    .filter(Boolean).join(', ');

export default defineCommand<Options>({
  effect: 'destructive',
  description:
    'Deletes a CI/CD variable after naming it (key, scope, type, protection, size: never its value) and asking (--yes without a terminal). When its key is in several ' +
    'environment scopes, --scope says which one goes. With --projects-file it is looked up in every project the file names, and one ' +
    'question covers them all. Needs the Maintainer role (administrators for --instance).',
  examples: [
    'forgectl variables delete LOG_LEVEL --project acme/api --yes',
    'forgectl variables delete API_URL --project acme/api --scope staging --yes',
    'forgectl variables delete RETIRED_FLAG --projects-file services.txt --yes',
  ],
  fleet: 'projects-file',
  record: recordOf(variables),
  args: [keyArg],
  options: [...whereOptions, scopeOption],
  async run(opts, ctx) {
    const key = parseKey(opts.key);
    const target = targetOf(opts, ctx);
    const variable = await getVariable(ctx, target, key, opts.scope);
    const what = `variable ${label(variable)}${traits(variable) ? ` [${traits(variable)}]` : ''}`;
    await ctx.confirm(`Delete ${what} of ${target.where}?`);
    await ctx.api.call(route(target, 'delete'), { ...target.params, key, ...scopeFilter(target, variable.environment_scope) });
    ctx.io.note(`Deleted ${what} of ${target.where}`);
    return undefined;
  },
});
