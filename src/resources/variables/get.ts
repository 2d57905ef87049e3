import { defineCommand } from '../../cli/command.js';
import { recordOf } from '../../cli/resource-commands.js';
import { getVariable, keyArg, mayShowValues, parseKey, scopeOption, printed, showValuesOption, targetOf, variables, type WhereOptions, whereOptions } from './shared.js';

interface Options extends WhereOptions {
  key: string;
  showValues?: boolean;
}

export default defineCommand<Options>({
  effect: 'read',
  description:
    'Shows one CI/CD variable. When its key is in several environment scopes, --scope says which. A masked value is ' +
    'shown only with --show-values at a terminal; a hidden one never. Needs the Maintainer role (administrators for --instance).',
  examples: [
    'forgectl variables get LOG_LEVEL --project acme/api',
    'forgectl variables get API_URL --project acme/api --scope production -o json',
    'forgectl variables get HTTP_PROXY --instance',
    'forgectl variables get LOG_LEVEL --projects-file services.txt --fields project,value',
  ],
  fleet: 'projects-file',
  record: recordOf(variables),
  args: [keyArg],
  options: [...whereOptions, scopeOption, showValuesOption],
  columns: variables.columns,
  recordFields: Object.keys(variables.fields).filter((name) => name !== 'masked_and_hidden'),
  async run(opts, ctx) {
    const key = parseKey(opts.key);
    const target = targetOf(opts, ctx);
    const show = mayShowValues(opts, ctx);
    return printed(await getVariable(ctx, target, key, opts.scope), show, ctx.format);
  },
});
