import { ALL_ENVIRONMENTS, secretEnvName } from './resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { TextResult } from '../../output/result.js';
import { dotenvLine, type DotenvAttribute } from './dotenv.js';
import { allOf, inheritedFor } from './inherited.js';
import { environmentOption, isSecret, label, scopeMatch, scopeOption, targetOf, whereOptions, type Variable, type WhereOptions } from './shared.js';

/** What the dotenv line of a variable notes beside its value, for import to give the copy. */
function dotenvAttributes(variable: Variable): DotenvAttribute[] {
  const attributes: DotenvAttribute[] = [];
  if (variable.variable_type === 'file') attributes.push('file');
  if (variable.protected) attributes.push('protected');
  if (variable.raw) attributes.push('raw');
  return attributes;
}

/**
 * --scope keeps one scope's variables; a job in an environment of that name also gets the scope * and wildcards that
 * match it. Says so on stderr, so an export meant as "what production sees" is not taken for it.
 */
function noteAlsoApplying(ctx: Context, read: Variable[], scope: string): void {
  if (scope.includes('*')) return;
  const others = read.filter((variable) => variable.environment_scope !== scope && scopeMatch(variable.environment_scope ?? ALL_ENVIRONMENTS, scope) !== undefined);
  if (!others.length) return;
  const named = others.slice(0, 3).map(label).join(', ') + (others.length > 3 ? ` and ${others.length - 3} more` : '');
  ctx.io.note(`left out ${named}, which a job in environment ${scope} also gets: --environment ${scope} exports all it gets`);
}

export default defineCommand<WhereOptions>({
  effect: 'read',
  description: [
    'Writes the CI/CD variables of a project, a group or the instance to stdout, for `variables import` elsewhere:',
    '-o dotenv (the default) writes KEY=value lines, one value a key (a key in several environment scopes needs --scope or --environment),',
    'a file, protected or raw variable saying so in a trailing comment import reads ("# forgectl: file protected");',
    '-o json writes every attribute (scope, type, protected, masked, raw, description). Masked and hidden values are never',
    'exported: dotenv lists them as comments, and json names the environment variable import reads each from instead',
    '("value_from": {"env": "DEPLOY_TOKEN__PRODUCTION"}; KEY alone for the scope *). --scope production keeps the variables',
    'whose scope is production, to copy that scope elsewhere; --environment production gives what a job deploying to production',
    'gets: the variables of the instance, of each group from the top down to the nearest, and of the project, a later level',
    'winning for a key, and within each level the most specific matching scope (production over a wildcard such as prod* over *).',
    'The header line names the levels read; a level you may not read (instance variables: administrators only; a group\'s:',
    'its Maintainers) is named on stderr as not included. Needs the Maintainer role.',
  ].join(' '),
  examples: [
    'forgectl variables export --project acme/web > web.env',
    'forgectl variables export --project acme/api --scope production -o dotenv',
    'forgectl variables export --project acme/api --environment production > production.env',
    'forgectl variables export --group acme -o json > acme-variables.json',
  ],
  options: [...whereOptions, scopeOption, environmentOption],
  formats: ['dotenv'],
  async run(opts, ctx) {
    const format = (ctx.globals.output as string | undefined) ?? 'dotenv';
    if (format !== 'dotenv' && format !== 'json') throw new UsageError(`variables export writes -o dotenv or -o json, not ${format}`);
    const target = targetOf(opts, ctx);
    const inherited = opts.environment === undefined ? undefined : await inheritedFor(ctx, target, opts.environment);
    const read = inherited ? [] : await allOf(ctx, target);
    const all = inherited?.variables ?? read.filter((variable) => opts.scope === undefined || variable.environment_scope === opts.scope);
    if (opts.scope !== undefined) noteAlsoApplying(ctx, read, opts.scope);
    if (format === 'json') {
      const records = all.map((variable) => {
        const { value, hidden, ...rest } = variable;
        return isSecret(variable)
          ? { ...rest, ...(target.instance ? {} : { hidden: Boolean(hidden) }), value_from: { env: secretEnvName(variable) } }
          : { ...rest, ...(target.instance ? {} : { hidden: Boolean(hidden) }), value };
      });
      return new TextResult(`${JSON.stringify(records, null, 2)}\n`);
    }
    const byKey = new Map<string, string[]>();
    for (const variable of all) byKey.set(variable.key, [...(byKey.get(variable.key) ?? []), variable.environment_scope ?? ALL_ENVIRONMENTS]);
    const repeated = [...byKey].filter(([, scopes]) => scopes.length > 1);
    if (repeated.length) {
      const [key, scopes] = repeated[0];
      throw new UsageError(`dotenv holds one value a key, and ${key} is in ${scopes.length} environment scopes (${scopes.join(', ')})`, 'give --scope SCOPE or --environment NAME, or use -o json, which keeps the scopes');
    }
    const lines = [`# CI/CD variables of ${target.where}${opts.scope === undefined ? '' : `, scope ${opts.scope}`}${inherited ? `, as a job in environment ${opts.environment} gets them from ${inherited.read.join(', ')}` : ''} (forgectl variables export)`];
    for (const variable of all) {
      if (isSecret(variable)) lines.push(`# ${variable.key}: ${variable.hidden ? 'hidden' : 'masked'}, value not exported`);
      else lines.push(dotenvLine(variable.key, variable.value ?? '', dotenvAttributes(variable)));
    }
    return new TextResult(`${lines.join('\n')}\n`);
  },
});
