import { dirname, isAbsolute, resolve } from 'node:path';
import { ALL_ENVIRONMENTS } from './resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { readSecret } from '../../cli/secrets.js';
import { ApiError, DryRunComplete, UsageError } from '../../errors.js';
import { readLocalFile } from '../../files.js';
import { ResultWithExit } from '../../output/result.js';
import { plural } from '../../parse.js';
import { parseDotenv, type DotenvAttribute } from './dotenv.js';
import { checkValue, isSecret, label, parseKey, route, scopeFilter, scopeOption, targetOf, valueChangeWords, valueSayable, whereOptions, type Target, type Variable, type WhereOptions } from './shared.js';

interface Options extends WhereOptions {
  file: string;
}

/** One variable of the file: the key, the environment scope, its value (or where to read it), and the attributes given. */
interface Entry {
  key: string;
  environment_scope?: string;
  value?: string;
  value_from?: { env: string } | { file: string };
  attributes: Partial<Pick<Variable, 'variable_type' | 'protected' | 'masked' | 'raw' | 'description'>> & { hidden?: boolean };
}

const ATTRIBUTES = ['variable_type', 'protected', 'masked', 'raw', 'description', 'hidden'] as const;
const KNOWN = new Set(['key', 'value', 'value_from', 'environment_scope', ...ATTRIBUTES]);

/** The entries of a JSON file as `variables export -o json` writes it, each checked (exit 2 naming the entry). */
function jsonEntries(text: string, name: string): Entry[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${name} is not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(data)) throw new UsageError(`${name} must hold a JSON array of variables (as variables export -o json writes)`);
  return data.map((item: Record<string, unknown>, index) => {
    const where = `${name} entry ${index + 1}`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw new UsageError(`${where} is not an object`);
    const unknown = Object.keys(item).filter((k) => !KNOWN.has(k));
    if (unknown.length) throw new UsageError(`${where} has unknown ${plural(unknown.length, 'field').replace(/^\d+ /, '')} ${unknown.join(', ')}`);
    const key = parseKey(String(item.key ?? ''));
    const from = item.value_from as Record<string, unknown> | undefined;
    const ref = from && typeof from === 'object' && Object.keys(from).length === 1 && (typeof from.env === 'string' || typeof from.file === 'string') ? (from as Entry['value_from']) : undefined;
    if (from !== undefined && !ref) throw new UsageError(`${where} (${key}): value_from must be {"env": "NAME"} or {"file": "PATH"}`);
    if ((item.value === undefined || item.value === null) === !ref) throw new UsageError(`${where} (${key}): give value or value_from, one of them`);
    if (item.value !== undefined && item.value !== null && typeof item.value !== 'string') throw new UsageError(`${where} (${key}): value must be a string`);
    const attributes: Entry['attributes'] = {};
    for (const attribute of ATTRIBUTES) {
      const value = item[attribute];
      if (value === undefined) continue;
      if (attribute === 'variable_type' && value !== 'env_var' && value !== 'file') throw new UsageError(`${where} (${key}): variable_type must be env_var or file`);
      if (attribute === 'description' ? value !== null && typeof value !== 'string' : attribute !== 'variable_type' && typeof value !== 'boolean') {
        throw new UsageError(`${where} (${key}): ${attribute} must be ${attribute === 'description' ? 'a string or null' : 'true or false'}`);
      }
      (attributes as Record<string, unknown>)[attribute] = value;
    }
    if (item.environment_scope !== undefined && typeof item.environment_scope !== 'string') throw new UsageError(`${where} (${key}): environment_scope must be a string`);
    return { key, environment_scope: item.environment_scope as string | undefined, value: (item.value as string | null) ?? undefined, value_from: ref, attributes };
  });
}

/** The attributes a dotenv line's "# forgectl: …" comment names; those it does not name are left as they are. */
function dotenvEntryAttributes(named: DotenvAttribute[]): Entry['attributes'] {
  return {
    ...(named.includes('file') ? { variable_type: 'file' as const } : {}),
    ...(named.includes('protected') ? { protected: true } : {}),
    ...(named.includes('raw') ? { raw: true } : {}),
  };
}

/** What happens to one entry: created, changed (the fields), or left as it is. */
interface Step {
  entry: Entry;
  current?: Variable;
  action: 'create' | 'update' | 'unchanged';
  words: string[];
  changes: Record<string, unknown>;
}

function planStep(entry: Entry, value: string, current: Variable | undefined): Step {
  if (!current) return { entry, action: 'create', words: [], changes: {} };
  if (entry.attributes.hidden !== undefined && entry.attributes.hidden !== Boolean(current.hidden)) {
    throw new UsageError(`${label(entry)} exists and is ${current.hidden ? '' : 'not '}hidden: that is set only when a variable is created`, `delete it first (forgectl variables delete ${entry.key} … --yes), or change "hidden" in the file`);
  }
  const changes: Record<string, unknown> = {};
  const words: string[] = [];
  const secret = isSecret(current) || Boolean(entry.attributes.masked || entry.attributes.hidden);
  for (const [field, to] of Object.entries(entry.attributes)) {
    if (field === 'hidden') continue;
    const from = (current as unknown as Record<string, unknown>)[field] ?? null;
    if (to !== from) {
      changes[field] = to;
      words.push(`${field} ${JSON.stringify(from)} → ${JSON.stringify(to)}`);
    }
  }
  if (current.hidden) {
    changes.value = value;
    words.push('value written (hidden: not compared)');
  } else if (current.value !== value) {
    changes.value = value;
    words.push(valueChangeWords(current.value, value, !secret && valueSayable(current) && valueSayable({ ...current, ...entry.attributes })));
  }
  return { entry, current, action: words.length ? 'update' : 'unchanged', words, changes };
}

async function resolveValue(ctx: Context, entry: Entry, baseDir: string): Promise<string> {
  if (entry.value !== undefined) return entry.value;
  const ref = entry.value_from!;
  const what = `the value of ${entry.key}`;
  if ('env' in ref) return readSecret(ctx, what, { env: ref.env });
  return readLocalFile(isAbsolute(ref.file) ? ref.file : resolve(baseDir, ref.file), 'utf8');
}

async function perform(ctx: Context, target: Target, step: Step, value: string): Promise<void> {
  const { entry } = step;
  const secret = isSecret({ ...step.current, ...entry.attributes });
  const options = secret ? { redact: ['value'] } : {};
  if (step.action === 'create') {
    const { hidden, ...attributes } = entry.attributes;
    const body: Record<string, unknown> = { key: entry.key, value, ...attributes };
    if (!target.instance) body.environment_scope = entry.environment_scope ?? ALL_ENVIRONMENTS;
    if (hidden) Object.assign(body, { masked: undefined, masked_and_hidden: true });
    await ctx.api.call(route(target, 'create'), { ...target.params, ...body }, options);
  } else {
    await ctx.api.call(route(target, 'update'), { ...target.params, key: entry.key, ...step.changes, ...scopeFilter(target, entry.environment_scope) }, options);
  }
}

export default defineCommand<Options>({
  effect: 'write',
  description: [
    'Creates and updates CI/CD variables from a file that `variables export` wrote (or any dotenv file): FILE is JSON',
    '(every attribute, scopes included; masked values come from the environment variable or file each entry\'s',
    'value_from names) or dotenv (KEY=value lines written in --scope, default *; a "# forgectl: file protected raw" comment',
    'after a value, as export writes it, makes the copy a file variable, protected or raw). Shows on stderr what it',
    'will create and change first, and asks before overwriting a variable (--yes without a terminal); what already matches',
    'is not sent, but a hidden value cannot be compared, so it is written again each time. Variables the file does not',
    'name are left alone. Exit 9 when some variable failed. --projects-file copies the set to every project the file names',
    '(one question for them all). Needs the Maintainer role (administrators for --instance).',
  ].join(' '),
  examples: [
    'forgectl variables export --project acme/api --scope production > api.env && forgectl variables import api.env --project acme/web --scope production --yes',
    'forgectl variables export --group acme -o json > acme.json && forgectl variables import acme.json --project acme/web --yes',
    'forgectl variables export --project acme/web > web.env && forgectl variables import web.env --projects-file services.txt --yes',
  ],
  fleet: 'projects-file',
  args: [{ spec: '<file>', description: 'the file of variables to import', localFile: true }],
  options: [...whereOptions, scopeOption],
  columns: ['key', 'environment_scope', 'action', 'result', 'error'],
  async run(opts, ctx) {
    const name = opts.file === '-' ? 'stdin' : opts.file;
    const text = opts.file === '-' ? await ctx.io.readStdin() : readLocalFile(opts.file, 'utf8');
    const json = /\.json$/i.test(opts.file) || /^\s*\[/.test(text);
    if (json && opts.scope !== undefined) throw new UsageError('a JSON file gives each variable its scope: leave out --scope');
    const entries = json
      ? jsonEntries(text, name)
      : parseDotenv(text, name).map(({ key, value, attributes }): Entry => ({ key: parseKey(key), value, environment_scope: opts.scope ?? ALL_ENVIRONMENTS, attributes: dotenvEntryAttributes(attributes) }));
    const target = targetOf(opts, ctx);
    if (target.instance) {
      if (entries.some((entry) => entry.attributes.hidden)) throw new UsageError('instance variables cannot be hidden: the file has hidden ones', 'write "masked": true instead of "hidden": true');
      for (const entry of entries) entry.environment_scope = undefined;
    } else for (const entry of entries) entry.environment_scope ??= ALL_ENVIRONMENTS;
    const seen = new Set<string>();
    for (const entry of entries) {
      const id = label(entry);
      if (seen.has(id)) throw new UsageError(`${name} names ${id} twice`);
      seen.add(id);
    }
    // Every value is read and checked before anything is sent.
    const baseDir = opts.file === '-' ? process.cwd() : dirname(resolve(opts.file));
    const values: string[] = [];
    for (const entry of entries) values.push(await resolveValue(ctx, entry, baseDir));
    const current = new Map<string, Variable>();
    for await (const variable of ctx.api.list<Variable>(route(target, 'list'), target.params, { all: true })) current.set(label(variable), variable);
    const steps = entries.map((entry, index) => planStep(entry, values[index], current.get(label(entry))));
    steps.forEach((step, index) => {
      const masked = step.entry.attributes.masked ?? step.entry.attributes.hidden ?? step.current?.masked ?? false;
      if (step.action !== 'unchanged' && !step.current?.hidden) checkValue(step.entry.key, values[index], masked, step.entry.attributes.raw ?? step.current?.raw ?? false);
    });

    const creates = steps.filter((step) => step.action === 'create');
    const updates = steps.filter((step) => step.action === 'update');
    for (const step of creates) ctx.io.note(`+ ${label(step.entry)}`);
    for (const step of updates) ctx.io.note(`~ ${label(step.entry)}: ${step.words.join(', ')}`);
    const unchanged = steps.length - creates.length - updates.length;
    ctx.io.note(`${target.where}: ${creates.length} to create, ${updates.length} to change, ${unchanged} already as the file says`);
    if (updates.length) await ctx.confirm(`Overwrite ${plural(updates.length, 'variable')} of ${target.where}?`);

    const rows: Array<Record<string, unknown>> = [];
    let failed = 0;
    let dryRun = false;
    for (const [index, step] of steps.entries()) {
      const row = { key: step.entry.key, environment_scope: step.entry.environment_scope ?? null, action: step.action, result: 'done', error: null as string | null };
      if (step.action !== 'unchanged') {
        try {
          await perform(ctx, target, step, values[index]);
        } catch (error) {
          // --dry-run prints each variable's request, not only the first one's.
          if (error instanceof DryRunComplete) {
            dryRun = true;
            continue;
          }
          if (!(error instanceof ApiError)) throw error;
          failed++;
          Object.assign(row, { result: 'failed', error: `${error.message} (${error.method} ${error.path} → ${error.status})` });
        }
      }
      rows.push(row);
    }
    if (dryRun) throw new DryRunComplete();
    return failed ? new ResultWithExit(rows, 9, `${plural(failed, 'variable')} of ${steps.length} failed`) : rows;
  },
});
