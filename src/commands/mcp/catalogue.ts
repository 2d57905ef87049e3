import { type ArgDef, type CommandDef, type LocalFile, type ManifestEntry, type OptionDef } from '../../cli/command.js';
import type { OptionValue } from '../../cli/invocation.js';
import { parseGraphql } from '../../api/graphql.js';
import { UsageError } from '../../errors.js';
import { choicesOf, closestName, schemaOf } from '../../parse.js';
import { forAgents, toolDescription, type FlagNames, type NamedTool } from './wording.js';

/**
 * The agent interface's tools, made from the command tree: one tool per command an agent can use, its input schema
 * from the command's arguments and options (their parsers say the JSON types, choices and bounds; their help text
 * the descriptions), its annotations from what the command does. A tool call becomes values by option and argument
 * (toolValues), never words: the command gets them through each option's own parser and runs on the path every
 * command runs on. Nothing that names a file, folder, command, environment variable or stdin of this machine is an
 * input (OptionDef.localFile), but the desired-state file of validate and plan, which the server checks.
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
  access: {
    description: 'who may do what: access reports, members, protected branches, deploy tokens, service accounts, audit events',
    groups: ['access', 'members', 'protected-branches', 'deploy-tokens', 'service-accounts', 'audit-events'],
  },
  admin: { description: 'the instance: users, application settings, plan limits, experiments, licenses, storage moves, alerts', groups: ['users', 'settings', 'plan-limits', 'experiments', 'license', 'storage-move', 'alerts'] },
  'desired-state': { description: 'configuration as code: validate, export, plan, and apply a reviewed plan', groups: ['validate', 'export', 'plan', 'apply'] },
  api: { description: 'raw REST requests (GET only unless writes are allowed)', groups: ['api'] },
  // The graphql tool runs `api graphql`: a toolset of its own, off by default (the default stays within 40 tools).
  graphql: { description: 'GraphQL queries (mutations only if writes are allowed): runner upgrade status, compliance frameworks, audit event streaming', groups: [] },
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
  // Its files are local files (the one thing it is made of).
  'snippets create',
  'tokens recover',
  // Reads the token from stdin (never an argument), which a tool call has none of.
  'tokens identify',
  'storage-move watch',
  'alerts send',
  'alerts resolve',
  'plan merge',
  // A commit's sequence number, which commits_get and commits_list make little of: left out so that the default
  // toolsets stay at 40 tools, the most some clients take.
  'commits sequence',
]);

/**
 * A new token is printed into a CI job's log only with --print-token; a tool result is no job log, so an agent's
 * reveal_token is its --print-token (catalogue: no input of its own; server: given with reveal_token).
 */
export const PRINT_TOKEN = '--print-token';

/** A list tool's page size when the call names none: the service's own default. */
export const DEFAULT_PER_PAGE = 20;
/**
 * Options that turn records into bytes (`repo blob --raw`), which a tool result does not carry, or check those bytes
 * (--sha256): not offered; nor --show-values, which shows masked values at a terminal only, never to an agent. Options
 * that turn a read into a write (OptionDef.mutates, `hooks audit --fix`) are no input of a read's tool either.
 * `tokens rotate` writes a local file (--output-file) and runs commands of this machine (--save-to exec:); its
 * definition does not mark them (yet), so they are left out here.
 */
const NOT_INPUTS = new Set(['--raw', '--sha256', '--show-values', PRINT_TOKEN]);
const UNMARKED_LOCAL: Record<string, string[]> = { 'tokens rotate': ['--output-file', '--save-to'] };
/** What the arguments of commands whose definitions do not describe them (yet) are: src/commands/tokens. */
const UNDESCRIBED_ARGS: Record<string, Record<string, string>> = {
  'tokens get': { id: 'the token\'s ID, or self for the token in use' },
  'tokens rotate': { id: 'the token\'s ID, or self for the token in use' },
  'tokens revoke': { id: 'the token\'s ID, or self (personal tokens) for the token in use' },
};
/** The effects of commands whose definitions do not declare one (yet): src/commands/tokens. */
const UNDECLARED_EFFECTS: Record<string, CommandDef['effect']> = {
  'tokens list': 'read',
  'tokens get': 'read',
  'tokens audit': 'read',
  'tokens create': 'write',
  'tokens rotate': 'destructive',
  'tokens revoke': 'destructive',
};
/** Verbs whose repetition with the same input leaves the same state. */
const IDEMPOTENT_VERBS = new Set(['set', 'put', 'update', 'protect', 'unprotect', 'disable', 'delete', 'keep']);

/** Tools made to hand over a new secret: only they may return it, and only when asked (reveal_token). */
const REVEALS_TOKEN = /^(tokens (create|rotate)|deploy-tokens create|runners reset-token)$/;
/** What reveal_token does, by command: the server refuses a rotation or a reset whose new token would go nowhere. */
const REVEAL_TOKEN: Record<string, string> = {
  default: 'must be true: the new token is returned in the result once, and nothing else keeps it',
  'tokens rotate': 'return the new token in the result; without it, save_to_profile is needed (the token is then saved, not returned)',
  'runners reset-token': 'must be true: the runner\'s new token is returned in the result, and nothing else keeps it',
};

/**
 * What a writing tool takes as its --yes: what the command line asks about first (a deletion, a revocation, blocking
 * a user, a wider visibility, applying a plan) runs only once the person the agent acts for agreed; without it the
 * command refuses as it does without a terminal and without --yes.
 */
export const CONFIRM_INPUT = 'confirm';
const CONFIRM_SCHEMA: JsonSchema = {
  type: 'boolean',
  default: false,
  description: 'true once the person you act for has agreed to this change; what the command asks about first (deleting, revoking, blocking, making visible to more people, applying a plan) is refused without it, and nothing is changed',
};

/** Desired-state tools read their desired-state file (a path on this machine, checked by the server). */
const DESIRED_STATE_FILE = '--file';
const DESIRED_FILE_INPUT = 'the desired-state file: a .yaml, .yml or .json file below the folder the server reads desired-state files from (a path relative to it, or absolute)';

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

/**
 * What a tool input gives the command: a positional argument (by its index) or an option's values; `desiredFile` is
 * the desired-state file the server checks before the command reads it. `refuses`: values naming a local file.
 */
type OptionInput = { kind: 'option'; name: string; flag: string; short?: string; takesValue: boolean; negation?: string; repeatable: boolean; desiredFile?: boolean; refuses?: (value: string) => boolean };
type Input = { kind: 'argument'; name: string; index: number; variadic: boolean; refuses?: (value: string) => boolean } | OptionInput;

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
  /** The command's definition: its options parse the values of a call. */
  def: CommandDef;
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
function entriesFor(manifest: ManifestEntry[], listed: ReadonlySet<string>): ManifestEntry[] {
  return manifest.filter((entry) => {
    const toolset = toolsetOf(entry.path);
    return toolset && (listed.has(toolset) || (entry.path === 'api' && listed.has('graphql'))) && !NOT_TOOLS.has(entry.path);
  });
}

/** Every tool of the selection, with writing tools only where their toolset allows writes. */
export async function buildCatalogue(manifest: ManifestEntry[], options: CatalogueOptions = {}): Promise<Tool[]> {
  const writable = new Set(options.allowWrite ?? []);
  const listed = new Set(options.toolsets ?? DEFAULT_TOOLSETS);
  const tools: Tool[] = [];
  // The commands a tool may stand for in words: not those that are no tools (`tokens recover`).
  const commands = new Set(manifest.map((entry) => entry.path).filter((path) => !NOT_TOOLS.has(path)));
  for (const entry of entriesFor(manifest, listed)) {
    const toolset = toolsetOf(entry.path)!;
    const def = (await entry.load()).default;
    const made = entry.path === 'api' ? [listed.has('api') && apiTool(def, writable.has('api')), listed.has('graphql') && graphqlTool(def, writable.has('graphql'))] : [commandTool(entry, def, toolset, commands)];
    for (const tool of made) if (tool && (tool.readOnly || writable.has(tool.toolset))) tools.push(tool);
  }
  return tools;
}

function verbOf(path: string): string {
  return path.split(' ').at(-1)!;
}

/** Whether a local-file marker covers every value (the input is left out) rather than some (those are refused). */
const wholly = (local: LocalFile | false | undefined): local is true => local === true;
const partly = (local: LocalFile | false | undefined): ((value: string) => boolean) | undefined => (typeof local === 'function' ? local : undefined);

/**
 * The command's tool: read-only, writing or destructive as its definition says (no tool when it says nothing), or
 * undefined when a value it cannot do without names a local file (`license add --file`).
 */
function commandTool(entry: ManifestEntry, def: CommandDef, toolset: string, commands: ReadonlySet<string>): Tool | undefined {
  if (entry.path === 'apply') return applyTool(entry, def);
  const effect = def.effect ?? UNDECLARED_EFFECTS[entry.path];
  if (!effect) return undefined;
  const readOnly = effect === 'read';
  const schema: ToolInputs = { properties: {}, required: [], inputs: [] };
  if (!addArguments(schema, entry, def) || !addOptions(schema, entry, def, toolset === 'desired-state', readOnly)) return undefined;
  const { properties, required, inputs } = schema;
  if (def.list) {
    properties.per_page = { type: 'integer', minimum: 1, maximum: 100, default: DEFAULT_PER_PAGE, description: 'records per page' };
    properties.cursor = { type: 'string', description: 'the next_cursor of the previous page, to read the page after it' };
  }
  properties.fields = { type: 'array', items: { type: 'string' }, description: 'fields to return, dotted paths into the records (default: all)' };
  const names = flagNames(inputs);
  describeInputs(schema, names, commands);
  if (!readOnly) properties[CONFIRM_INPUT] = CONFIRM_SCHEMA;
  if (REVEALS_TOKEN.test(entry.path)) properties.reveal_token = { type: 'boolean', default: false, description: REVEAL_TOKEN[entry.path] ?? REVEAL_TOKEN.default };
  return {
    name: toolName(entry.path),
    path: entry.path,
    toolset,
    title: `forgectl ${entry.path}`,
    description: toolDescription(entry.summary, def.description, names, commands),
    readOnly,
    destructive: effect === 'destructive',
    idempotent: readOnly || IDEMPOTENT_VERBS.has(verbOf(entry.path)),
    list: Boolean(def.list),
    inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false },
    outputSchema: resultSchema(Boolean(def.list)),
    inputs,
    def,
  };
}

/** A tool's input schema as it is built: its properties, the required ones, and how each becomes the command's. */
interface ToolInputs {
  properties: Record<string, JsonSchema>;
  required: string[];
  inputs: Input[];
}

/** The command's arguments as inputs; false when one it cannot do without names a local file (no tool then). */
function addArguments({ properties, required, inputs }: ToolInputs, entry: ManifestEntry, def: CommandDef): boolean {
  const args: ArgDef[] = (def.args ?? []).map((arg) => (typeof arg === 'string' ? { spec: arg, description: '' } : arg));
  for (const [index, arg] of args.entries()) {
    const mandatory = arg.spec.startsWith('<');
    if (wholly(arg.localFile)) {
      if (mandatory) return false;
      continue;
    }
    const variadic = arg.spec.includes('...');
    const name = arg.spec.replace(/[<>[\]]|\.\.\./g, '').replace(/-/g, '_');
    const description = arg.description || UNDESCRIBED_ARGS[entry.path]?.[name] || name.replace(/_/g, ' ');
    properties[name] = variadic ? { type: 'array', items: { type: 'string' }, description: `${description} (one or more)` } : { type: 'string', description };
    if (mandatory) required.push(name);
    inputs.push({ kind: 'argument', name, index, variadic, refuses: partly(arg.localFile) });
  }
  return true;
}

/**
 * The command's options as inputs, but those no agent gives (local files, the options of writes in a read-only
 * tool, the ones listed as no input); false when a required one is among them (no tool then).
 */
function addOptions({ properties, required, inputs }: ToolInputs, entry: ManifestEntry, def: CommandDef, desiredState: boolean, readOnly: boolean): boolean {
  const unmarked = UNMARKED_LOCAL[entry.path] ?? [];
  const options: OptionDef[] = [];
  for (const option of def.options ?? []) {
    const flag = longFlag(option.flags);
    const desiredFile = desiredState && flag === DESIRED_STATE_FILE;
    if (NOT_INPUTS.has(flag) || unmarked.includes(flag) || (option.mutates && readOnly) || (wholly(option.localFile) && !desiredFile)) {
      if (option.required) return false;
      continue;
    }
    options.push(option);
  }
  for (const option of options) {
    const input = optionInput(option, options);
    if (!input) continue;
    if (desiredState && input.flag === DESIRED_STATE_FILE) input.desiredFile = true;
    input.refuses = partly(option.localFile);
    properties[input.name] = optionSchema(option, input);
    if (option.required) required.push(input.name);
    inputs.push(input);
  }
  return true;
}

/** Each input's description in the agent's words (its names, not flags); an input left with none is dropped. */
function describeInputs({ properties, required, inputs }: ToolInputs, names: FlagNames, commands: ReadonlySet<string>): void {
  for (const [name, schema] of Object.entries(properties)) {
    const input = inputs.find((item) => item.name === name);
    if (input?.kind === 'option' && input.desiredFile) schema.description = DESIRED_FILE_INPUT;
    else if (schema.description) schema.description = forAgents(schema.description, names, commands);
    // An option that only works with one the tool does not take (`--to` of `--from-dir`) is no input either.
    if (!schema.description && input?.kind === 'option' && !required.includes(name)) {
      delete properties[name];
      inputs.splice(inputs.indexOf(input), 1);
    }
  }
}

/** `apply` takes the digest of a plan the server made (and the human reviewed), never a desired-state file. */
function applyTool(entry: ManifestEntry, def: CommandDef): Tool {
  return {
    name: 'apply',
    path: 'apply',
    toolset: 'desired-state',
    title: 'forgectl apply',
    description: `Make the instance match a desired-state file: carries out a plan made by the plan tool, named by its digest, with confirm: true once the person you act for has reviewed it; refused when the objects changed since the plan was made (plan again)`,
    readOnly: false,
    destructive: true,
    idempotent: false,
    list: false,
    inputSchema: { type: 'object', properties: { digest: { type: 'string', description: 'the digest the plan tool returned' }, [CONFIRM_INPUT]: CONFIRM_SCHEMA }, required: ['digest'], additionalProperties: false },
    outputSchema: resultSchema(false),
    inputs: [],
    def,
  };
}

/** A tool of the api command: read-only, or destructive where writes are allowed for its toolset. */
function apiCommandTool(def: CommandDef, writes: boolean, tool: Pick<Tool, 'name' | 'toolset' | 'title' | 'description'>, properties: Record<string, JsonSchema>, required: string): Tool {
  return {
    ...tool,
    path: 'api',
    readOnly: !writes,
    destructive: writes,
    idempotent: !writes,
    list: false,
    inputSchema: { type: 'object', properties: writes ? { ...properties, [CONFIRM_INPUT]: CONFIRM_SCHEMA } : properties, required: [required], additionalProperties: false },
    outputSchema: resultSchema(false),
    inputs: [],
    def,
  };
}

/** `api`: a GET-only tool unless writes are allowed for the api toolset. */
function apiTool(def: CommandDef, writes: boolean): Tool {
  const description = writes
    ? 'Send a request to the REST API (path relative to /api/v4, such as /projects/acme%2Fapi/merge_requests?state=opened)'
    : 'Send a GET request to the REST API (path relative to /api/v4, such as /projects/acme%2Fapi/merge_requests?state=opened); read-only';
  return apiCommandTool(def, writes, { name: 'api', toolset: 'api', title: 'forgectl api', description }, {
    path: { type: 'string', description: 'the API path, with its query; path parameters encoded (acme%2Fapi)' },
    method: { type: 'string', enum: writes ? ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] : ['GET'], default: 'GET', description: writes ? 'the HTTP method' : 'the HTTP method: GET only (this server allows no writes through api)' },
    ...(writes ? { fields: { type: 'object', additionalProperties: true, description: 'JSON body fields (POST, PUT, PATCH) or query parameters' } as JsonSchema } : {}),
    paginate: { type: 'boolean', default: false, description: 'follow every page of a list and return one array' },
    limit: { type: 'integer', minimum: 1, description: 'follow the pages of a list until this many records (no page past them is fetched)' },
  }, 'path');
}

/**
 * `graphql`: a GraphQL document run through `api graphql`. Queries only unless writes are allowed for the graphql
 * toolset: a document with a mutation (or a subscription) in it is refused, by parsing it.
 */
function graphqlTool(def: CommandDef, writes: boolean): Tool {
  const uses = 'for what only GraphQL has, such as runner upgrade status (runners { nodes { id upgradeStatus } }), compliance frameworks or audit event streaming';
  const description = writes
    ? `Run a GraphQL query or mutation on the instance (/api/graphql), ${uses}; global IDs look like gid://gitlab/Ci::Runner/7`
    : `Run a GraphQL query on the instance (/api/graphql), ${uses}; read-only: a document with a mutation is refused`;
  return apiCommandTool(def, writes, { name: 'graphql', toolset: 'graphql', title: 'forgectl api graphql', description }, {
    query: { type: 'string', description: writes ? 'the GraphQL document' : 'the GraphQL document: queries only' },
    variables: { type: 'object', additionalProperties: true, description: 'the values of its variables: strings, numbers, booleans, null, objects of them and lists of scalars' },
    operation_name: { type: 'string', description: 'which operation of the document to run, when it has several' },
    paginate: { type: 'boolean', default: false, description: 'return every page of the first connection: the query declares $endCursor: String, passes it as after, and fetches pageInfo { hasNextPage endCursor }' },
  }, 'query');
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

/** The flags of `api` and `api graphql` as the inputs of their tools (which take no flags of the command's own). */
const API_INPUTS: Record<string, Record<string, { name: string; takesValue: boolean }>> = {
  api: { '--method': { name: 'method', takesValue: true }, '-X': { name: 'method', takesValue: true }, '--raw-field': { name: 'fields', takesValue: true }, '-f': { name: 'fields', takesValue: true }, '--field': { name: 'fields', takesValue: true }, '-F': { name: 'fields', takesValue: true }, '--paginate': { name: 'paginate', takesValue: false }, '--limit': { name: 'limit', takesValue: true } },
  graphql: { '--raw-field': { name: 'variables', takesValue: true }, '-f': { name: 'variables', takesValue: true }, '--field': { name: 'variables', takesValue: true }, '-F': { name: 'variables', takesValue: true }, '--paginate': { name: 'paginate', takesValue: false } },
};

/** A tool as its notices are reworded: each flag it takes by the input that gives it (`--no-stats` → `stats: false`). */
export function namedTool(tool: Tool): NamedTool {
  const flags = new Map(Object.entries(API_INPUTS[tool.name] ?? {}));
  if (tool.list) flags.set('--per-page', { name: 'per_page', takesValue: true });
  for (const input of tool.inputs) {
    if (input.kind !== 'option') continue;
    flags.set(input.flag, { name: input.name, takesValue: input.takesValue });
    if (input.short) flags.set(input.short, { name: input.name, takesValue: input.takesValue });
    if (input.negation) flags.set(input.negation, { name: `${input.name}: false`, takesValue: false });
  }
  return { name: tool.name, path: tool.path, list: tool.list, flags };
}

/** The tool's input of each flag its help may name (`--mr` → mr, `--no-stats` → `stats: false`). */
function flagNames(inputs: Input[]): FlagNames {
  const names: FlagNames = new Map([['--per-page', 'per_page'], ['--fields', 'fields']]);
  for (const input of inputs) {
    if (input.kind !== 'option') continue;
    names.set(input.flag, input.name);
    if (input.short) names.set(input.short, input.name);
    if (input.negation) names.set(input.negation, `${input.name}: false`);
  }
  return names;
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
  const short = /^(-[A-Za-z]),/.exec(option.flags)?.[1];
  return { kind: 'option', name: flag.slice(2).replace(/-/g, '_'), flag, short, takesValue, negation: negation && longFlag(negation.flags), repeatable };
}

function optionSchema(option: OptionDef, input: OptionInput): JsonSchema {
  const description = option.description;
  // Only `--no-x` exists: x is on unless false is given, and the option's help says what false does.
  if (!input.takesValue && input.negation && longFlag(option.flags) === input.negation) return { type: 'boolean', description: `false: ${description}` };
  if (!input.takesValue) return { type: 'boolean', description };
  // An option whose value may be left out (`--save-to-profile [name]`): true for the bare flag, or a value.
  if (/ \[[^\]]*\]$/.test(option.flags)) return { type: ['string', 'boolean'], description };
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

/** What a tool call gives its command: values by option (never words) and the positional arguments by index. */
export interface ToolValues {
  values: OptionValue[];
  args: Array<string | string[] | undefined>;
  /** The desired-state file named, for the server to check before the command reads it. */
  desiredFile?: string;
}

/** The values of a tool call; bad input (an unknown input, a value that names a local file) is a UsageError. */
export function toolValues(tool: Tool, input: Record<string, unknown>): ToolValues {
  if (tool.name === 'graphql') return graphqlValues(input, !tool.readOnly);
  if (tool.path === 'api') return apiValues(input);
  const known = new Set([...tool.inputs.map((item) => item.name), 'per_page', 'cursor', 'fields', 'reveal_token', ...(tool.readOnly ? [] : [CONFIRM_INPUT])]);
  for (const name of Object.keys(input)) {
    if (!known.has(name)) throw new UsageError(`${tool.name} has no input "${name}"`, `inputs: ${[...known].join(', ')}`);
  }
  const result: ToolValues = { values: [], args: [] };
  for (const item of tool.inputs) {
    const value = input[item.name];
    if (value === undefined || value === null) continue;
    const texts = (Array.isArray(value) ? value : [value]).map(String);
    const local = item.refuses && texts.find(item.refuses);
    if (local !== undefined) throw new UsageError(`${tool.name}: ${item.name} "${local}" names a file of the machine the server runs on, which tools never read`);
    if (item.kind === 'argument') {
      result.args[item.index] = item.variadic ? texts : texts[0];
    } else if (!item.takesValue || value === true) {
      if (value === true) result.values.push({ flag: item.flag, value: true });
      else if (value === false && item.negation) result.values.push({ flag: item.negation, value: true });
    } else {
      for (const text of texts) result.values.push({ flag: item.flag, value: text });
      if (item.desiredFile) result.desiredFile = texts[0];
    }
  }
  if (tool.list) result.values.push({ flag: '--per-page', value: String(input.per_page ?? DEFAULT_PER_PAGE) }, { flag: '--page', value: String(pageOfCursor(input.cursor)) });
  return result;
}

/** The api tool's input as the api command's options: string fields raw, typed ones typed (never `@file`). */
function apiValues(input: Record<string, unknown>): ToolValues {
  const path = String(input.path ?? '');
  if (!path) throw new UsageError('api needs a path');
  const values: OptionValue[] = [{ flag: '--method', value: String(input.method ?? 'GET').toUpperCase() }];
  const fields = (input.fields ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(fields)) {
    if (!key || key.includes('=')) throw new UsageError(`api: field name "${key}" must be a name without "="`);
    if (typeof value === 'string') values.push({ flag: '--raw-field', value: `${key}=${value}` });
    else if (value === null || typeof value === 'number' || typeof value === 'boolean') values.push({ flag: '--field', value: `${key}=${String(value)}` });
    else throw new UsageError(`api: field ${key} must be a string, number, boolean or null`);
  }
  if (input.paginate === true || input.limit !== undefined) values.push({ flag: '--paginate', value: true });
  if (input.limit !== undefined) values.push({ flag: '--limit', value: String(input.limit) });
  return { values, args: [path] };
}

/** The graphql tool's input as `api graphql`'s fields: the document, its operation's name, and its variables. */
function graphqlValues(input: Record<string, unknown>, writes: boolean): ToolValues {
  const query = typeof input.query === 'string' ? input.query : '';
  const operationName = typeof input.operation_name === 'string' ? input.operation_name : undefined;
  if (!query.trim()) throw new UsageError('graphql needs a query');
  const { document } = parseGraphql(query, operationName);
  const changes = document.definitions.filter((definition) => definition.kind === 'OperationDefinition' && definition.operation !== 'query');
  if (changes.length && !writes) throw new UsageError('graphql: this server runs GraphQL queries only, and the document has a mutation', 'a mutation needs writes allowed for the graphql toolset: ask the person who runs this server to allow them');
  const values: OptionValue[] = [{ flag: '--method', value: 'POST' }, { flag: '--raw-field', value: `query=${query}` }];
  if (operationName !== undefined) values.push({ flag: '--raw-field', value: `operationName=${operationName}` });
  const variables = input.variables ?? {};
  if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) throw new UsageError('graphql: variables is an object');
  for (const [name, value] of Object.entries(variables)) {
    if (name === 'query' || name === 'operationName') throw new UsageError(`graphql: a variable may not be named ${name}`);
    values.push(...variableValues(name, value));
  }
  if (input.paginate === true) values.push({ flag: '--paginate', value: true });
  return { values, args: ['graphql'] };
}

/** A variable as api's fields: strings raw, other scalars typed (never `@file`), objects and lists of scalars nested. */
function variableValues(key: string, value: unknown): OptionValue[] {
  if (!/^[^[\]=]+$/.test(key.replace(/\[[^[\]=]*\]/g, ''))) throw new UsageError(`graphql: variable name "${key}" may not hold [, ] or =`);
  if (typeof value === 'string') return [{ flag: '--raw-field', value: `${key}=${value}` }];
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return [{ flag: '--field', value: `${key}=${String(value)}` }];
  const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((item) => [`${key}[]`, item]) : Object.entries(value as object).map(([name, item]) => [`${key}[${name}]`, item]);
  if (!entries.length || (Array.isArray(value) && value.some((item) => item !== null && typeof item === 'object'))) {
    throw new UsageError(`graphql: variable ${key} is an empty object or list, or a list of objects, which this tool cannot pass`, 'write such a value into the query instead');
  }
  return entries.flatMap(([name, item]) => variableValues(name, item));
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
