import type { CommandDef, ManifestEntry, OptionDef } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { choicesOf, closestName, schemaOf } from '../../parse.js';

/**
 * The agent interface's tools, made from the command tree: one tool per command an agent can use, its input schema
 * from the command's arguments and options (their parsers say the JSON types, choices and bounds; their help text
 * the descriptions), its annotations from what the command does. A tool call becomes a command line, run in this
 * process exactly as the `forgectl` command runs it.
 */

/** Toolsets, named after the command groups they hold (in the order tools are listed). */
export const TOOLSETS: Record<string, { description: string; groups: string[] }> = {
  projects: { description: 'projects and groups', groups: ['projects', 'groups'] },
  repository: { description: 'trees, commits, files, comparisons, snippets, job artifacts', groups: ['repo', 'commits', 'files', 'submodules', 'snippets', 'artifacts'] },
  refs: { description: 'branches and tags: list, create, delete', groups: ['branches', 'tags'] },
  review: { description: 'merge trains, approvals, approval rules, notes, draft notes', groups: ['merge-trains', 'approvals', 'approval-rules', 'notes', 'draft-notes'] },
  hooks: { description: 'project webhooks and their deliveries', groups: ['hooks'] },
  tokens: { description: 'access tokens: list, audit, create, rotate, revoke', groups: ['tokens'] },
  settings: {
    description: 'project and group settings: integrations, badges, freeze periods, secure files, keys, deploy keys, push rules, protected tags, mirroring',
    groups: ['integrations', 'badges', 'group-badges', 'freeze-periods', 'secure-files', 'keys', 'deploy-keys', 'push-rule', 'protected-tags', 'mirror'],
  },
  ci: { description: 'CI/CD: variables and runners', groups: ['variables', 'runners'] },
  access: { description: 'who may do what: members, protected branches, deploy tokens, audit events', groups: ['members', 'protected-branches', 'deploy-tokens', 'audit-events'] },
  admin: { description: 'the instance: users, application settings, plan limits, experiments, licenses, storage moves, alerts', groups: ['users', 'settings', 'plan-limits', 'experiments', 'license', 'storage-move', 'alerts'] },
  'desired-state': { description: 'configuration as code: validate, export, plan, and apply a reviewed plan', groups: ['validate', 'export', 'plan', 'apply'] },
  api: { description: 'raw REST requests (GET only unless writes are allowed)', groups: ['api'] },
};

/** What is listed when --toolsets is not given: the day-to-day reads, under the tool limit of common clients. */
export const DEFAULT_TOOLSETS = ['projects', 'repository', 'review', 'hooks', 'tokens', 'desired-state', 'api'];

/**
 * Commands that are no tools: they configure forgectl itself, serve, prompt, or write bytes rather than records
 * (downloads and raw contents, which an agent reads through `files get`, `repo blob` or `api`).
 */
const NOT_TOOLS = new Set([
  'completion',
  'sandbox',
  'files raw',
  'artifacts file',
  'snippets user-agent',
  'repo archive',
  'artifacts download',
  'secure-files download',
  'snippets raw',
  'license usage-export',
  'license add',
  'approvals approve',
  'tokens recover',
  // Reads the token from stdin (never an argument), which a tool call has none of.
  'tokens identify',
  'storage-move watch',
  'alerts send',
  'alerts resolve',
  'plan merge',
  // Reads a local file, and the values it names from the server's environment.
  'variables import',
]);

/** The verbs that only read (everything else changes something on the instance). */
const READ_VERBS = new Set(['list', 'get', 'show', 'find', 'info', 'blame', 'tree', 'blob', 'compare', 'contributors', 'merge-base', 'refs', 'sequence', 'events', 'status', 'state', 'preview', 'validate', 'export', 'plan', 'audit', 'jobs']);
/**
 * Options that turn a read into a write (`hooks audit --fix`) or records into bytes (`repo blob --raw`), or run a
 * command on this machine (`tokens rotate --save-to exec:`): not offered.
 */
const NOT_INPUTS = new Set(['--fix', '--raw', '--save-to']);
/** Verbs that remove or revoke: the host should ask before these. */
const DESTRUCTIVE_VERBS = new Set(['delete', 'delete-all', 'revoke', 'unprotect', 'disable', 'reset', 'reset-token', 'unapprove', 'remove', 'rotate', 'apply']);
/** Verbs whose repetition with the same input leaves the same state. */
const IDEMPOTENT_VERBS = new Set(['set', 'put', 'update', 'protect', 'unprotect', 'disable', 'delete', 'keep']);

/** Tools made to hand over a new secret: only they may return it, and only when asked (reveal_token). */
const REVEALS_TOKEN = /^(tokens (create|rotate)|deploy-tokens create|runners reset-token)$/;

/**
 * Options that are never tool inputs: they read local files, stdin or the server's environment (`--value-env`: an
 * agent could copy the server's own secrets into a readable variable), or write local files.
 */
const LOCAL_OPTION = /stdin|^--output-file$|^--out$|^--input$|^--from-dir$|-file$|-env$|^--failed-to$|^--yes$|^--password/;
/** Desired-state tools read their desired-state file (a path on this machine). */
const DESIRED_STATE_FILE = '--file';

export interface JsonSchema {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  format?: string;
}

/** How a tool input becomes a command-line word: a positional argument or an option. */
type OptionInput = { kind: 'option'; name: string; flag: string; takesValue: boolean; negation?: string; repeatable: boolean };
type Input = { kind: 'argument'; name: string; variadic: boolean } | OptionInput;

export interface Tool {
  name: string;
  /** The command it runs. */
  path: string;
  toolset: string;
  title: string;
  description: string;
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
  list: boolean;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema: JsonSchema & { type: 'object' };
  inputs: Input[];
}

/** The tool name of a command path: `approvals config get` → `approvals_config_get`. */
export const toolName = (path: string): string => path.replace(/[ -]/g, '_');

/** The toolset a command belongs to, from its first word. */
export function toolsetOf(path: string): string | undefined {
  const group = path.split(' ')[0];
  return Object.keys(TOOLSETS).find((name) => TOOLSETS[name].groups.includes(group));
}

/** Parses --toolsets / --allow-write values: names of toolsets, or `all`. */
export function parseToolsets(flag: string) {
  return (value: string, previous?: string[]): string[] => {
    const names = value.split(',').map((name) => name.trim()).filter(Boolean);
    for (const name of names) {
      if (name !== 'all' && !TOOLSETS[name]) {
        const near = closestName(name, Object.keys(TOOLSETS));
        throw new UsageError(`${flag}: no toolset "${name}"${near ? ` (did you mean ${near}?)` : ''}`, `toolsets: ${Object.keys(TOOLSETS).join(', ')}, or all`);
      }
    }
    const all = names.includes('all') ? Object.keys(TOOLSETS) : names;
    return [...new Set([...(previous ?? []), ...all])];
  };
}

export interface CatalogueOptions {
  /** Toolsets listed (default: DEFAULT_TOOLSETS). */
  toolsets?: string[];
  /** Toolsets whose writing tools are listed. */
  allowWrite?: string[];
}

/** The manifest entries that become tools, in manifest order (a stable tool order). */
function entriesFor(manifest: ManifestEntry[], options: CatalogueOptions): ManifestEntry[] {
  const listed = new Set(options.toolsets ?? DEFAULT_TOOLSETS);
  return manifest.filter((entry) => {
    const toolset = toolsetOf(entry.path);
    return toolset && listed.has(toolset) && !NOT_TOOLS.has(entry.path);
  });
}

/** Every tool of the selection, with writing tools only where their toolset allows writes. */
export async function buildCatalogue(manifest: ManifestEntry[], options: CatalogueOptions = {}): Promise<Tool[]> {
  const writable = new Set(options.allowWrite ?? []);
  const tools: Tool[] = [];
  for (const entry of entriesFor(manifest, options)) {
    const toolset = toolsetOf(entry.path)!;
    const def = (await entry.load()).default;
    const tool = entry.path === 'api' ? apiTool(writable.has('api')) : commandTool(entry, def, toolset);
    if (!tool.readOnly && !writable.has(toolset)) continue;
    tools.push(tool);
  }
  return tools;
}

function verbOf(path: string): string {
  return path.split(' ').at(-1)!;
}

function commandTool(entry: ManifestEntry, def: CommandDef, toolset: string): Tool {
  const verb = verbOf(entry.path);
  const readOnly = READ_VERBS.has(verb);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const inputs: Input[] = [];
  for (const spec of def.args ?? []) {
    const variadic = spec.includes('...');
    const name = spec.replace(/[<>[\]]|\.\.\./g, '').replace(/-/g, '_');
    properties[name] = variadic ? { type: 'array', items: { type: 'string' }, description: `${name.replace(/_/g, ' ')} (one or more)` } : { type: 'string', description: name.replace(/_/g, ' ') };
    if (spec.startsWith('<')) required.push(name);
    inputs.push({ kind: 'argument', name, variadic });
  }
  if (entry.path === 'apply') return applyTool(entry);
  const options = (def.options ?? []).filter((option) => {
    const flag = longFlag(option.flags);
    if (NOT_INPUTS.has(flag)) return false;
    return (toolset === 'desired-state' && flag === DESIRED_STATE_FILE) || !LOCAL_OPTION.test(flag);
  });
  for (const option of options) {
    const input = optionInput(option, options);
    if (!input) continue;
    properties[input.name] = optionSchema(option, input);
    if (option.required) required.push(input.name);
    inputs.push(input);
  }
  if (def.list) {
    properties.per_page = { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'records per page' };
    properties.cursor = { type: 'string', description: 'the next_cursor of the previous page, to read the page after it' };
  }
  properties.fields = { type: 'array', items: { type: 'string' }, description: 'fields to return, dotted paths into the records (default: all)' };
  if (REVEALS_TOKEN.test(entry.path)) {
    properties.reveal_token = { type: 'boolean', default: false, description: 'return the new token in the result (otherwise it is left out; rotate then needs save_to_profile or output_file on the server)' };
  }
  const destructive = !readOnly && DESTRUCTIVE_VERBS.has(verb);
  return {
    name: toolName(entry.path),
    path: entry.path,
    toolset,
    title: `forgectl ${entry.path}`,
    description: [entry.summary, def.description].filter(Boolean).join('. ').replace(/\.\./g, '.'),
    readOnly,
    destructive,
    idempotent: readOnly || IDEMPOTENT_VERBS.has(verb),
    list: Boolean(def.list),
    inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false },
    outputSchema: resultSchema(Boolean(def.list)),
    inputs,
  };
}

/** `apply` takes the digest of a plan the server made (and the human reviewed), never a desired-state file. */
function applyTool(entry: ManifestEntry): Tool {
  return {
    name: 'apply',
    path: 'apply',
    toolset: 'desired-state',
    title: 'forgectl apply',
    description: `${entry.summary}: carries out a plan made by the plan tool, named by its digest; refused when the objects changed since the plan was made (plan again)`,
    readOnly: false,
    destructive: true,
    idempotent: false,
    list: false,
    inputSchema: { type: 'object', properties: { digest: { type: 'string', description: 'the digest the plan tool returned' } }, required: ['digest'], additionalProperties: false },
    outputSchema: resultSchema(false),
    inputs: [],
  };
}

/** `api`: a GET-only tool unless writes are allowed for the api toolset. */
function apiTool(writes: boolean): Tool {
  return {
    name: 'api',
    path: 'api',
    toolset: 'api',
    title: 'forgectl api',
    description: writes
      ? 'Send a request to the REST API (path relative to /api/v4, such as /projects/acme%2Fapi/merge_requests?state=opened)'
      : 'Send a GET request to the REST API (path relative to /api/v4, such as /projects/acme%2Fapi/merge_requests?state=opened); read-only',
    readOnly: !writes,
    destructive: writes,
    idempotent: !writes,
    list: false,
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'the API path, with its query; path parameters encoded (acme%2Fapi)' },
        method: { type: 'string', enum: writes ? ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] : ['GET'], default: 'GET' },
        ...(writes ? { fields: { type: 'object', additionalProperties: true, description: 'JSON body fields (POST, PUT, PATCH) or query parameters' } as JsonSchema } : {}),
        paginate: { type: 'boolean', default: false, description: 'follow every page of a list and return one array' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    outputSchema: resultSchema(false),
    inputs: [],
  };
}

function resultSchema(list: boolean): JsonSchema & { type: 'object' } {
  return {
    type: 'object',
    properties: {
      result: list ? { type: 'array', description: 'the records of this page, as forgectl -o json prints them' } : { description: 'what forgectl -o json prints' },
      ...(list
        ? {
            count: { type: 'integer', description: 'records in this page' },
            total: { type: 'integer', description: 'records in the whole list, where the service says' },
            next_cursor: { type: 'string', description: 'pass as cursor for the next page; absent on the last page' },
          }
        : {}),
      exit_code: { type: 'integer', description: "forgectl's exit code: 0, or 9 when the command found what it looks for (drift, an audit finding)" },
      notice: { type: 'string', description: 'what forgectl said beside the result' },
    },
    required: ['exit_code'],
  };
}

function longFlag(flags: string): string {
  return /--[\w-]+/.exec(flags)?.[0] ?? flags;
}

/** The tool input of an option; a `--no-x` beside `--x` folds into x's boolean. */
function optionInput(option: OptionDef, all: OptionDef[]): OptionInput | undefined {
  const flag = longFlag(option.flags);
  const takesValue = /[<[]/.test(option.flags);
  if (flag.startsWith('--no-')) {
    const positive = `--${flag.slice(5)}`;
    if (all.some((other) => longFlag(other.flags) === positive)) return undefined;
    return { kind: 'option', name: flag.slice(5).replace(/-/g, '_'), flag: positive, negation: flag, takesValue: false, repeatable: false };
  }
  const negation = all.find((other) => longFlag(other.flags) === `--no-${flag.slice(2)}`);
  const repeatable = /\.\.\.[>\]]/.test(option.flags) || schemaOf(option.parse)?.type === 'array';
  return { kind: 'option', name: flag.slice(2).replace(/-/g, '_'), flag, takesValue, negation: negation && longFlag(negation.flags), repeatable };
}

function optionSchema(option: OptionDef, input: OptionInput): JsonSchema {
  const description = option.description;
  // Only `--no-x` exists: x is on unless false is given, and the option's help says what false does.
  if (!input.takesValue && input.negation && longFlag(option.flags) === input.negation) return { type: 'boolean', description: `false: ${description}` };
  if (!input.takesValue) return { type: 'boolean', description };
  // An option whose value may be left out (`--save-to-profile [name]`): true for the bare flag, or a value.
  if (/\[[^\]]*\]/.test(option.flags)) return { type: ['string', 'boolean'], description };
  const known = schemaOf(option.parse);
  const choices = option.choices ?? choicesOf(option.parse);
  const item: JsonSchema = choices
    ? { type: 'string', enum: [...choices] }
    : known && known.type !== 'array'
      ? { type: known.type, ...(known.minimum !== undefined ? { minimum: known.minimum } : {}), ...(known.maximum !== undefined ? { maximum: known.maximum } : {}), ...(known.format ? { format: known.format } : {}) }
      : { type: 'string' };
  if (known?.type === 'boolean') item.type = 'boolean';
  const schema: JsonSchema = input.repeatable ? { type: 'array', items: item, description } : { ...item, description };
  if (option.default !== undefined && typeof option.default !== 'object') schema.default = option.default;
  return schema;
}

/** The command line of a tool call (without output options); bad input is a UsageError, as on the command line. */
export function commandLine(tool: Tool, args: Record<string, unknown>): string[] {
  if (tool.path === 'api') return apiCommandLine(args);
  const known = new Set([...tool.inputs.map((input) => input.name), 'per_page', 'cursor', 'fields', 'reveal_token']);
  for (const name of Object.keys(args)) {
    if (!known.has(name)) throw new UsageError(`${tool.name} has no input "${name}"`, `inputs: ${[...known].join(', ')}`);
  }
  const argv = tool.path.split(' ');
  for (const input of tool.inputs) {
    const value = args[input.name];
    if (value === undefined || value === null) continue;
    if (input.kind === 'argument') {
      argv.push(...(Array.isArray(value) ? value.map(String) : [String(value)]));
    } else if (!input.takesValue || value === true) {
      if (value === true) argv.push(input.flag);
      else if (value === false && input.negation) argv.push(input.negation);
    } else {
      for (const item of Array.isArray(value) ? value : [value]) argv.push(`${input.flag}=${String(item)}`);
    }
  }
  if (tool.list) {
    argv.push(`--per-page=${String(args.per_page ?? 20)}`, `--page=${String(pageOfCursor(args.cursor))}`);
  }
  if (Array.isArray(args.fields) && args.fields.length) argv.push(`--fields=${args.fields.join(',')}`);
  return argv;
}

function apiCommandLine(args: Record<string, unknown>): string[] {
  const path = String(args.path ?? '');
  if (!path) throw new UsageError('api needs a path');
  const argv = ['api', path, `--method=${String(args.method ?? 'GET').toUpperCase()}`];
  const fields = (args.fields ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(fields)) {
    // Strings as they are; numbers, booleans and null typed. Never `@file` (a typed field's way to read a local file).
    if (typeof value === 'string') argv.push(`--raw-field=${key}=${value}`);
    else if (value === null || typeof value === 'number' || typeof value === 'boolean') argv.push(`--field=${key}=${String(value)}`);
    else throw new UsageError(`api: field ${key} must be a string, number, boolean or null`);
  }
  if (args.paginate === true) argv.push('--paginate');
  return argv;
}

/** Cursors are opaque to the agent: the page number, so that a cursor from another tool or list is refused. */
export function cursorOf(page: number): string {
  return Buffer.from(`page:${page}`).toString('base64url');
}

function pageOfCursor(cursor: unknown): number {
  if (cursor === undefined || cursor === null || cursor === '') return 1;
  const match = /^page:(\d+)$/.exec(Buffer.from(String(cursor), 'base64url').toString('utf8'));
  if (!match) throw new UsageError('cursor is not one this server gave out', 'pass the next_cursor of the previous page');
  return Number(match[1]);
}

export { pageOfCursor };
