import { ALL_ENVIRONMENTS } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { fieldParser } from '../../cli/resource-commands.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { checkValue, findVariable, isSecret, keyArg, label, parseKey, readValue, route, scopeFilter, scopeOption, printed, targetOf, valueOptions, type ValueOptions, valueChangeWords, valueSayable, valueSource, type Variable, variables, whereOptions, type WhereOptions } from './shared.js';

interface Options extends WhereOptions, ValueOptions {
  key: string;
  type?: 'env_var' | 'file';
  protected?: boolean;
  masked?: boolean;
  hidden?: boolean;
  raw?: boolean;
  description?: string;
}

const FLAGS = ['variable_type', 'protected', 'masked', 'raw', 'description'] as const;

/** The attributes asked for, without those left as they are. */
const definedOf = (wanted: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(wanted).filter(([, v]) => v !== undefined));

/** "protected false → true". */
const changeWords = (field: string, from: unknown, to: unknown): string => `${field} ${JSON.stringify(from)} → ${JSON.stringify(to)}`;

export default defineCommand<Options>({
  effect: 'write',
  description: [
    'Creates a CI/CD variable, or changes the one of that key and environment scope (default scope *: all environments):',
    'one command, safe to run again: what already matches is not sent, and what changes is shown on stderr (never a',
    'masked value). A masked or hidden value never comes from the command line, where ps and shell history see it:',
    'give it with --value-stdin, --value-file or --value-env (--value with --masked or --hidden exits 2, nothing sent).',
    'A masked value needs 8 or more characters without whitespace, and unless --raw only letters, digits and',
    '_ + = / @ : . ~ -. --hidden makes it masked and unreadable for good: only when the variable is created, and',
    'as it cannot be compared, its value is written every time. --projects-file sets it in every project the file names (a value from',
    'stdin or a prompt is read once for all). Needs the Maintainer role (administrators for --instance).',
  ].join(' '),
  examples: [
    'forgectl variables set LOG_LEVEL --project acme/api --value debug',
    "forgectl variables set API_URL --project acme/api --scope 'review/*' --value https://review.api.acme.example.com",
    "printf '%s' \"$DEPLOY_TOKEN\" | forgectl variables set DEPLOY_TOKEN --project acme/api --scope production --masked --protected --value-stdin",
    'forgectl variables set KUBECONFIG --group acme --type file --value-file ./kubeconfig.yml --protected',
    'forgectl variables set REGISTRY_PASSWORD --group acme --hidden --value-env REGISTRY_PASSWORD',
    'forgectl variables set LOG_LEVEL --projects-file services.txt --value warn',
  ],
  fleet: 'projects-file',
  args: [keyArg],
  options: [
    ...whereOptions,
    { ...scopeOption, description: `${scopeOption.description} (default ${ALL_ENVIRONMENTS})` },
    ...valueOptions,
    { flags: '--type <env_var|file>', description: 'env_var (default), or file: the job gets a file holding the value', parse: fieldParser(variables.fields.variable_type, '--type') },
    { flags: '--protected', description: 'only pipelines of protected branches and tags get it' },
    { flags: '--no-protected', description: 'every pipeline gets it' },
    { flags: '--masked', description: 'hidden in job logs' },
    { flags: '--no-masked', description: 'not masked' },
    { flags: '--hidden', description: 'masked and never shown again, in the UI or the API (on create only)' },
    { flags: '--raw', description: 'not expanded: $OTHER stays as written' },
    { flags: '--no-raw', description: 'expanded' },
    { flags: '--description <text>', description: 'what it is for' },
  ],
  columns: variables.columns,
  recordFields: Object.keys(variables.fields).filter((name) => name !== 'masked_and_hidden'),
  async run(opts, ctx) {
    const key = parseKey(opts.key);
    const source = valueSource(opts);
    if (source === 'argv' && (opts.masked || opts.hidden)) {
      throw new UsageError(`--value is refused for a ${opts.hidden ? 'hidden' : 'masked'} variable: the command line is seen by ps and kept in shell history`, 'give it with --value-stdin, --value-file or --value-env');
    }
    if (opts.hidden && opts.masked === false) throw new UsageError('a hidden variable is masked: leave out --no-masked');
    const target = targetOf(opts, ctx);
    if (target.instance && opts.hidden) throw new UsageError('instance variables cannot be hidden: use --masked');
    const scope = target.instance ? undefined : (opts.scope ?? ALL_ENVIRONMENTS);
    const current = await findVariable(ctx, target, key, scope);
    const name = label({ key, environment_scope: scope });

    if (current) {
      if (opts.hidden && !current.hidden) throw new UsageError(`${name} exists and is not hidden: a variable is made hidden only when it is created`, `delete it and set it again with --hidden: forgectl variables delete ${key} … --yes`);
      if (current.hidden && opts.masked === false) throw new UsageError(`${name} is hidden: it stays masked`);
      if (source === 'argv' && isSecret(current) && opts.masked !== false) {
        throw new UsageError(`${name} is ${current.hidden ? 'hidden' : 'masked'}: its value is refused from the command line`, 'give it with --value-stdin, --value-file or --value-env');
      }
    }
    const value = await readValue(opts, ctx, key, (opts.type ?? current?.variable_type) === 'file');
    const wanted: Record<string, unknown> = { variable_type: opts.type, protected: opts.protected, masked: opts.hidden ? true : opts.masked, raw: opts.raw, description: opts.description };
    const masked = Boolean(wanted.masked ?? current?.masked);
    const raw = Boolean(wanted.raw ?? current?.raw);
    const secret = masked || Boolean(opts.hidden || current?.hidden);
    const redact = secret ? { redact: ['value'] } : {};

    if (!current) {
      if (value === undefined) throw new UsageError(`${name} of ${target.where} does not exist yet: give its value`, 'with --value (plain variables), --value-stdin, --value-file or --value-env');
      checkValue(key, value, masked, raw);
      const body: Record<string, unknown> = { key, value, ...definedOf(wanted) };
      if (scope !== undefined) body.environment_scope = scope;
      if (opts.hidden) Object.assign(body, { masked: undefined, masked_and_hidden: true });
      const made = answered(await ctx.api.call<Variable>(route(target, 'create'), { ...target.params, ...body }, redact), 'created', name, target.where);
      ctx.io.note(`Created variable ${name} of ${target.where}${secret ? ` (${opts.hidden ? 'hidden' : 'masked'})` : ''}`);
      return printed(made, false, ctx.format);
    }

    const changes: Record<string, unknown> = {};
    const words: string[] = [];
    for (const field of FLAGS) {
      const to = wanted[field];
      const from = (current as unknown as Record<string, unknown>)[field];
      if (to !== undefined && to !== (from ?? (field === 'description' ? null : undefined))) {
        changes[field] = to;
        words.push(changeWords(field, from, to));
      }
    }
    if (value !== undefined) {
      if (current.hidden) {
        changes.value = value;
        words.push('value written (hidden: it cannot be read back to compare)');
      } else if (value !== current.value) {
        changes.value = value;
        words.push(valueChangeWords(current.value, value, !secret && valueSayable(current) && valueSayable({ ...current, ...definedOf(wanted) })));
      }
    }
    if (changes.value !== undefined || changes.masked !== undefined || changes.raw !== undefined) checkValue(key, (changes.value as string | undefined) ?? current.value ?? '', masked && !current.hidden ? true : false, raw);
    if (!Object.keys(changes).length) {
      ctx.io.note(`${name} of ${target.where} is already as asked: nothing sent`);
      return printed(current, false, ctx.format);
    }
    const updated = answered(await ctx.api.call<Variable>(route(target, 'update'), { ...target.params, key, ...changes, ...scopeFilter(target, scope) }, secret || isSecret(current) ? { redact: ['value'] } : {}), 'changed', name, target.where);
    ctx.io.note(`Changed variable ${name} of ${target.where}: ${words.join(', ')}`);
    return printed(updated, false, ctx.format);
  },
});

/** The variable the service answered a write with; an answer without one (an empty body, from a proxy) is a server failure. */
function answered(variable: Variable | undefined, done: string, name: string, where: string): Variable {
  if (variable && typeof variable === 'object') return variable;
  throw new CliError(`the server answered without the variable: ${name} of ${where} was probably ${done}`, ExitCode.server, 'forgectl variables get shows it; running the command again is safe: what already matches is not sent');
}
