import { readFileSync } from 'node:fs';
import { routeOf, type ResourceDef } from '../../api/resource.js';
import { ALL_ENVIRONMENTS, isSecret, MAX_VALUE_LENGTH, shown, valueSize, valueProblem, variables, type Variable } from './resource.js';
import type { ArgDef, Context, OptionDef } from '../../cli/command.js';
import { placementFor, placementOptions } from '../../cli/resource-commands.js';
import { readSecret } from '../../cli/secrets.js';
import { mayShowValues, showValuesOption } from './show-values.js';
import { ApiError, UsageError } from '../../errors.js';
import { fileProblem } from '../../files.js';

/**
 * What the variables commands share: where the variables are (--project, --group or --instance), the environment
 * scope that tells apart two variables of one key, and the rule for values: a masked or hidden value never comes
 * from the command line and is never printed, unless --show-values asks for it at a terminal.
 */

export { isSecret, mayShowValues, shown, showValuesOption, variables, type Variable };

export interface WhereOptions {
  project?: string;
  group?: string;
  instance?: boolean;
  scope?: string;
  environment?: string;
}

/** --project, --group, --instance. */
export const whereOptions: OptionDef[] = placementOptions(variables);

export const scopeOption: OptionDef = {
  flags: '--scope <scope>',
  description: 'the environment scope (* for all, production, review/*): a key in two scopes is two variables',
  parse: (text: string) => variables.fields.environment_scope.kind.parse(text, '--scope'),
};

export const environmentOption: OptionDef = {
  flags: '--environment <name>',
  description: 'what a job in this environment gets: instance, group and project variables of the scope * and scopes matching the name (production, review/*), the nearer level and the more specific scope winning for a key',
  parse: (text: string) => {
    if (!text.trim() || text.includes('*')) throw new UsageError(`--environment takes an environment's name, not "${text}"`, 'give the name a job deploys to (production, review/app-1); --scope picks variables by their scope field');
    return text;
  },
};

/**
 * How closely a variable's environment scope matches an environment, as the service decides what a job gets: the
 * scope * matches every environment (0), a wildcard scope matches names it spells with * standing for any text (1),
 * the environment's own name matches best (2); undefined when it does not match.
 */
export function scopeMatch(scope: string, environment: string): number | undefined {
  if (scope === environment) return 2;
  if (scope === ALL_ENVIRONMENTS) return 0;
  const pattern = new RegExp(`^${scope.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
  return scope.includes('*') && pattern.test(environment) ? 1 : undefined;
}

/**
 * The variables a job in `environment` gets: per key, the one of the best-matching scope (the environment's own name
 * over a wildcard like review/*, a wildcard over *). Two wildcard scopes of one key matching the name are refused: the
 * service gives a job either one.
 */
export function forEnvironment(all: Variable[], environment: string): Variable[] {
  const best = new Map<string, { variable: Variable; match: number; tied?: Variable }>();
  for (const variable of all) {
    const match = scopeMatch(variable.environment_scope ?? ALL_ENVIRONMENTS, environment);
    if (match === undefined) continue;
    const held = best.get(variable.key);
    if (!held || match > held.match) best.set(variable.key, { variable, match });
    else if (match === held.match) held.tied = variable;
  }
  const tied = [...best.values()].find((held) => held.tied);
  if (tied) {
    const scopes = [tied.variable, tied.tied!].map((variable) => variable.environment_scope).join(' and ');
    throw new UsageError(`${tied.variable.key} is in two scopes matching ${environment} (${scopes}): the service gives a job either one`, `define ${tied.variable.key} for ${environment} itself (--scope ${environment}), or export one scope with --scope`);
  }
  return all.filter((variable) => best.get(variable.key)?.variable === variable);
}

/** Where the variables are, with their routes (`resource`), route parameters and place in words. */
export interface Target {
  resource: ResourceDef;
  params: Record<string, unknown>;
  where: string;
  instance: boolean;
}

export function targetOf(opts: WhereOptions, ctx: Context): Target {
  const chosen = placementFor(variables, opts, ctx);
  const instance = chosen.key === 'instance';
  if (instance && opts.scope !== undefined) throw new UsageError('instance variables have no environment scope: leave out --scope');
  if (instance && opts.environment !== undefined) throw new UsageError('instance variables apply to every environment: leave out --environment');
  if (opts.scope !== undefined && opts.environment !== undefined) throw new UsageError('give --scope or --environment, not both', '--scope SCOPE keeps the variables of that scope; --environment NAME keeps what a job there gets, scope * included');
  return { resource: chosen.resource, params: chosen.params, where: chosen.where, instance };
}

export const route = (target: Target, verb: string): string => routeOf(target.resource, verb);

/** A key as the service accepts it; exit 2 otherwise. */
export const parseKey = (text: string): string => variables.fields.key.kind.parse(text, 'variable key') as string;

/** The query or body part that picks one scope of a key (`filter[environment_scope]`). */
export const scopeFilter = (target: Target, scope: string | undefined): Record<string, unknown> =>
  scope === undefined || target.instance ? {} : { filter: { environment_scope: scope } };

export { valueSayable, valueSize } from './resource.js';

/** A value's change in a notice: the values of a plain variable, the sizes of any other. */
export const valueChangeWords = (from: string | null | undefined, to: string, sayable: boolean): string =>
  sayable ? `value ${JSON.stringify(from ?? null)} → ${JSON.stringify(to)}` : `value changed (${valueSize(from)} → ${valueSize(to)})`;

/** "API_URL (scope production)", "HTTP_PROXY". */
export const label = (variable: { key: string; environment_scope?: string }): string =>
  variable.environment_scope === undefined ? variable.key : `${variable.key} (scope ${variable.environment_scope})`;

/**
 * A variable as printed (see shown): in a table (-o table, at a terminal and in a pipe alike) a withheld value reads
 * masked or hidden instead of looking like an empty value; null in every other format.
 */
export function printed(variable: Variable, show: boolean, format: string): Variable {
  const out = shown(variable, show);
  return format === 'table' && out.value === null && isSecret(out) ? { ...out, value: out.hidden ? 'hidden' : 'masked' } : out;
}

/** One variable, or a usage error naming its scopes when the key is in several and none was given. */
export async function getVariable(ctx: Context, target: Target, key: string, scope: string | undefined): Promise<Variable> {
  try {
    return await ctx.api.call<Variable>(route(target, 'get'), { ...target.params, key, ...scopeFilter(target, scope) });
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) {
      const scopes: string[] = [];
      for await (const variable of ctx.api.list<Variable>(route(target, 'list'), target.params, { all: true })) {
        if (variable.key === key) scopes.push(variable.environment_scope ?? ALL_ENVIRONMENTS);
      }
      throw new UsageError(`${key} of ${target.where} is in several environment scopes (${scopes.join(', ')})`, `give --scope with one of them: ${scopes.map((name) => `--scope ${/^[\w.-]+$/.test(name) ? name : `'${name}'`}`).join(', ')}`);
    }
    throw error;
  }
}

/** The variable of a key and scope, or undefined when there is none (404). */
export async function findVariable(ctx: Context, target: Target, key: string, scope: string | undefined): Promise<Variable | undefined> {
  try {
    return await getVariable(ctx, target, key, scope);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && /Variable/i.test(error.message)) return undefined;
    throw error;
  }
}

export interface ValueOptions {
  value?: string;
  valueStdin?: boolean;
  valueFile?: string;
  valueEnv?: string;
}

export const valueOptions: OptionDef[] = [
  { flags: '--value <text>', description: 'the value, for a plain variable (refused with --masked or --hidden: use one of the next three)' },
  { flags: '--value-stdin', description: 'read the value from stdin (prompts without echo at a terminal); a file variable keeps its final newline', localFile: true },
  { flags: '--value-file <path>', description: 'read the value from a file (a file variable\'s contents)', localFile: true },
  { flags: '--value-env <name>', description: 'read the value from an environment variable', localFile: true },
];

/** Where the value comes from, checked before anything is read or sent. */
export function valueSource(opts: ValueOptions): 'argv' | 'stdin' | 'file' | 'env' | undefined {
  const given = (['value', 'valueStdin', 'valueFile', 'valueEnv'] as const).filter((name) => opts[name] !== undefined && opts[name] !== false);
  if (given.length > 1) throw new UsageError(`give the value one way, not ${given.map((name) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(' and ')}`);
  return ({ value: 'argv', valueStdin: 'stdin', valueFile: 'file', valueEnv: 'env' } as const)[given[0] as 'value'] ?? undefined;
}

/**
 * Reads the value from where the options say. A file is taken as it is; stdin and the environment lose one trailing
 * newline (`echo "$TOKEN" |`), except a file variable's piped stdin, which is its contents: a PEM or OpenSSH key
 * without its final newline is refused by the tools that read it in a job.
 */
export async function readValue(opts: ValueOptions, ctx: Context, key: string, fileVariable = false): Promise<string | undefined> {
  const source = valueSource(opts);
  if (source === 'argv') return opts.value;
  if (source === 'stdin' && fileVariable && !ctx.io.streams.stdin.isTTY) {
    const contents = await ctx.io.readStdin();
    if (!contents) throw new UsageError(`no value of ${key}: stdin is empty`, `pipe the file in: forgectl variables set ${key} --type file --value-stdin < FILE`);
    return contents;
  }
  if (source === 'file') {
    try {
      return readFileSync(opts.valueFile!, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${opts.valueFile}: ${fileProblem(error)}`);
    }
  }
  if (source === 'env') return readSecret(ctx, `the value of ${key}`, { env: opts.valueEnv! });
  if (source === 'stdin') return readSecret(ctx, `value of ${key}`, { stdin: true });
  return undefined;
}

/** The service's checks of a value, made before sending: exit 2 naming the variable. */
export function checkValue(key: string, value: string, masked: boolean, raw: boolean): void {
  const problem = valueProblem(value, masked, raw);
  if (problem) throw new UsageError(`the value of ${key} ${problem}`, value.length > MAX_VALUE_LENGTH ? undefined : 'leave out --masked, or give a value of 8 or more characters without whitespace');
}

/** The key of a variable, as the routes name it. */
export const keyArg: ArgDef = { spec: '<key>', description: 'the variable\'s key (letters, digits and _)' };
