import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, Server } from '@modelcontextprotocol/server';
import type { Commands, Context, GivenGlobals } from '../../cli/command.js';
import type { Connection } from '../../config/resolve.js';
import { optionsFromValues } from '../../cli/invocation.js';
import { CliError, UsageError } from '../../errors.js';
import { CONFIRM_INPUT, DEFAULT_PER_PAGE, PRINT_TOKEN, cursorOf, namedTool, pageOfCursor, toolValues, type JsonSchema, type Tool, type ToolValues } from './catalogue.js';
import { noticeForAgents, type NamedTool } from './wording.js';
import { writeFileAtomically } from '../../write.js';
import { checkDesiredFile } from './desired-file.js';
import { DesiredFileError, type Problem } from '../../desired/file.js';
import { withoutSecretValues } from '../../resources/variables/resource.js';
import { isSecretKey, REDACTED, redactUrl, redactUrlsIn } from '../../http/redact.js';

/**
 * The MCP server over the tool catalogue: tools/list, tools/call (each call a command run in this process on the path
 * every command runs on, its options built from the call's values, with -o json), and a few read-only resources.
 * Writes of desired state go through plans: `plan` returns a plan and its digest, `apply` takes the digest of a plan
 * this server made.
 */

/** What each exit code means, for a tool error an agent can act on. */
const EXIT_MEANINGS: Record<number, string> = {
  1: 'internal error',
  2: 'bad input (nothing was sent)',
  3: 'configuration: no profile, URL or token',
  4: 'authentication or permission refused (401/403)',
  5: 'not found (404)',
  6: 'rejected by the server (400/405/409/412/422)',
  7: 'rate limited after retries (429)',
  8: 'server or network failure (5xx, timeout, TLS, connection)',
  10: 'a token was rotated but could not be saved where asked; it is in the recovery file named in the message',
};

export interface ServerOptions {
  tools: Tool[];
  /** Runs a command in this process as the forgectl command does (Context.execute). */
  execute: Context['execute'];
  /** The commands, for the resources and apply (which need not be among the tools). */
  commands: Commands;
  /**
   * The global options of every call, fixed when the server starts (profile, instance, TLS trust, timeout, retries):
   * never taken from a call's input.
   */
  globals?: GivenGlobals;
  /** The connection the calls use, for the forgectl://profile resource (Context.connection). */
  connection?: () => Connection;
  /** The folder desired-state files are read from (validate, plan): only files below it. Default: the working folder. */
  root?: string;
  /** Adds a line per tool call to stderr. */
  log?: (line: string) => void;
}

interface CallOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Keeps what a run writes to its stdout and stderr. */
function capture(): { streams: { stdin: PassThrough; stdout: Writable; stderr: Writable }; read: () => { stdout: string; stderr: string } } {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const sink = (into: Buffer[]) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        into.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
        callback();
      },
    });
  const stdin = new PassThrough();
  stdin.end();
  return { streams: { stdin, stdout: sink(out), stderr: sink(err) }, read: () => ({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }) };
}

/** Token values never leave in a result unless the caller asked for them (reveal_token) on a tool made to hand them over. */
function withoutTokens(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTokens);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'token').map(([key, inner]) => [key, withoutTokens(inner)]));
  }
  return value;
}

/**
 * No credential in a result, whichever tool's: string fields replaced by the rule every output redacts by
 * (isSecretKey), URLs without user:password or secret query parameters (a webhook URL such as
 * https://alice:PASSWORD@hooks.example.com). `token` fields are withoutTokens' (reveal_token).
 */
function withoutCredentials(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return key !== 'token' && isSecretKey(key) ? REDACTED : redactUrl(value);
  if (Array.isArray(value)) return value.map((item) => withoutCredentials(item, key));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, withoutCredentials(inner, name)]));
  return value;
}

/** What apply said, with the plan named by its digest instead of the temporary file this server gave it. */
function namingPlan(outcome: CallOutcome, file: string, digest: string): CallOutcome {
  const rename = (text: string) => text.replaceAll(`the plan in ${file}`, `the plan ${digest}`).replaceAll(file, `the plan ${digest}`);
  return { ...outcome, stdout: rename(outcome.stdout), stderr: rename(outcome.stderr) };
}

/** The lines forgectl wrote to stderr beside its result, without the JSON copy of an error. */
function notesOf(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => line && !line.startsWith('{"error"'))
    .join('\n');
}

/** The header a 2025-era HTTP client sends back with every request after initialize: the session it was given. */
export const SESSION_HEADER = 'mcp-session-id';

/** A call's key among the calls in flight: its client's, as request ids are only unique per client. */
function callKey(client: string, id: string | number): string {
  return `${client}\n${JSON.stringify(id)}`;
}

export class ToolServer {
  /** Plans this server made, by digest: apply takes only these, and each once. */
  private readonly plans = new Map<string, string>();
  private readonly applied = new Set<string>();
  /** Plans an apply call is carrying out now: a second call of the same digest is refused, not run twice. */
  private readonly applying = new Set<string>();
  private readonly validators = new Map<string, (value: unknown) => string | undefined>();

  constructor(private readonly options: ServerOptions) {}

  /**
   * A fresh low-level server for one connection (stdio) or request (HTTP), sharing this catalogue and its plans. Its
   * client is the connection, or over HTTP the session id the client was given at initialize and sends back.
   */
  create(request?: { requestInfo?: Request }): Server {
    const client = request?.requestInfo?.headers.get(SESSION_HEADER) ?? randomUUID();
    const server = new Server({ name: 'forgectl', version: __FORGECTL_VERSION__ }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS });
    // The catalogue's schemas are plain JSON Schema objects, which the SDK types as JSON values.
    server.setRequestHandler('tools/list', async () => ({ tools: this.options.tools.map(describe) as never }));
    // A cancelled call (notifications/cancelled, or an HTTP client gone) aborts its signal: the run stops as at Ctrl-C.
    server.setRequestHandler('tools/call', async (request, context) => this.cancellable(callKey(client, context.mcpReq.id), context.mcpReq.signal, (signal) => this.call(request.params.name, (request.params.arguments ?? {}) as Record<string, unknown>, signal)));
    // Over HTTP each POST has a server of its own: a cancellation reaches the call through this server's calls in
    // flight, its own client's only (every client numbers its requests from 0 or 1).
    server.setNotificationHandler('notifications/cancelled', (notification) => {
      const id = notification.params.requestId;
      if (id !== undefined) this.inFlight.get(callKey(client, id))?.abort(notification.params.reason);
    });
    server.setRequestHandler('resources/list', async () => ({ resources: this.resources().map(({ uri, name, description, mimeType }) => ({ uri, name, description, mimeType })) }));
    server.setRequestHandler('resources/read', async (request) => this.readResource(request.params.uri));
    return server;
  }

  /** The tool calls running now, by client and request id, so that a cancellation that arrives in another request finds its call. */
  private readonly inFlight = new Map<string, AbortController>();

  private async cancellable<T>(id: string, signal: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const cancel = new AbortController();
    signal.addEventListener('abort', () => cancel.abort(signal.reason), { once: true });
    this.inFlight.set(id, cancel);
    try {
      return await work(cancel.signal);
    } finally {
      if (this.inFlight.get(id) === cancel) this.inFlight.delete(id);
    }
  }

  /** The resources this server has: the profile's only when it knows the connection. */
  private resources(): typeof RESOURCES {
    return RESOURCES.filter((resource) => resource.uri !== PROFILE || this.options.connection);
  }

  private async readResource(uri: string): Promise<{ contents: Array<{ uri: string; mimeType: string; text: string }> }> {
    const resource = this.resources().find((candidate) => candidate.uri === uri);
    if (!resource) throw new ResourceNotFoundError(uri, 'Resource not found');
    if (uri === PROFILE) return { contents: [{ uri, mimeType: resource.mimeType, text: `${JSON.stringify(this.describeConnection(), null, 2)}\n` }] };
    const outcome = await this.run(resource.path, resource.values, {});
    if (outcome.code !== 0) throw new ProtocolError(ProtocolErrorCode.InternalError, notesOf(outcome.stderr) || `exit ${outcome.code}`);
    return { contents: [{ uri, mimeType: resource.mimeType, text: outcome.stdout }] };
  }

  /**
   * The connection the tools use, whether from a profile or from FORGECTL_URL and FORGECTL_TOKEN: the instance, where
   * the token comes from and its kind, never the token.
   */
  private describeConnection(): Record<string, unknown> {
    let connection: Connection;
    try {
      connection = this.options.connection!();
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      throw new ProtocolError(ProtocolErrorCode.InternalError, [error.message, error.hint].filter(Boolean).join('; '));
    }
    return {
      url: connection.rootUrl,
      api_url: connection.baseUrl,
      profile: connection.profileName ?? null,
      token_source: connection.tokenSource,
      token_type: connection.tokenType,
      ca_file: connection.caFile ?? null,
      insecure: connection.insecure,
      timeout_seconds: connection.timeoutMs / 1000,
      retries: connection.retries,
    };
  }

  /** Runs one tool call: the result forgectl -o json prints, or a tool error saying what went wrong and its exit code. */
  async call(name: string, args: Record<string, unknown>, cancelled?: AbortSignal): Promise<{ content: Array<{ type: 'text'; text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean }> {
    const tool = this.options.tools.find((candidate) => candidate.name === name);
    if (!tool) return toolError(`no tool ${name}; list the tools to see which this server offers`, 2);
    const invalid = this.validate(tool, args);
    if (invalid) return toolError(`${name}: ${invalid}`, 2);
    let values: ToolValues;
    try {
      values = tool.path === 'apply' ? this.applyValues(args) : await this.checked(toolValues(tool, args));
      if (tool.path === 'tokens rotate' && args.reveal_token !== true && args.save_to_profile === undefined) {
        throw new UsageError('tokens_rotate needs save_to_profile (the new token is saved where the CLI saves it) or reveal_token: true');
      }
      if (tool.path === 'tokens rotate' && args.id === 'self') this.checkOwnRotation(args);
      // A new token is in the answer alone: one that would be left out is not made (a working credential nobody saw).
      const secret = TOKEN_IN_ANSWER_ONLY[tool.path];
      if (secret && args.reveal_token !== true) {
        throw new UsageError(`${tool.name} returns ${secret} once, in the result's token field, and nothing else keeps it: pass reveal_token: true`);
      }
      if (args.reveal_token === true && tool.def.options?.some((option) => option.flags === PRINT_TOKEN)) values.values.push({ flag: PRINT_TOKEN, value: true });
    } catch (error) {
      const hint = error instanceof CliError && error.hint ? `\nhint: ${error.hint}` : '';
      return toolError(this.forAgent(tool, `${error instanceof Error ? error.message : String(error)}${hint}`), 2);
    }
    const fields = tool.path !== 'api' && Array.isArray(args.fields) && args.fields.length ? args.fields.join(',') : undefined;
    const started = Date.now();
    let outcome: CallOutcome;
    try {
      outcome = await this.run(tool.path, values, { yes: (!tool.readOnly && args[CONFIRM_INPUT] === true) || undefined, fields }, tool, cancelled);
    } finally {
      // The plan file of this call's apply, and no other call's (calls run side by side).
      if (tool.path === 'apply') {
        rmSync(dirname(String(values.values[0].value)), { recursive: true, force: true });
        this.applying.delete(String(args.digest));
      }
    }
    if (tool.path === 'apply') outcome = namingPlan(outcome, String(values.values[0].value), String(args.digest));
    // Nothing was sent after the cancellation; a request already on the wire may have completed (the command says which).
    const cut = cancelled?.aborted ? ` (cancelled: ${notesOf(outcome.stderr).split('\n').find((line) => /interrupted|was sent/.test(line)) ?? 'nothing further was sent'})` : '';
    this.options.log?.(`${name} → exit ${outcome.code} in ${Date.now() - started} ms${cut}`);
    if (outcome.code !== 0 && outcome.code !== 9) {
      // A question the command would ask at a terminal is no bad input: the call waits for the person's answer.
      const asked = outcome.code === 2 && /^error: confirmation needed: /m.test(outcome.stderr);
      return toolError(this.forAgent(tool, this.failure(tool, outcome)), outcome.code, asked ? 'confirmation needed: nothing was changed' : undefined);
    }
    if (tool.path === 'apply') this.applied.add(String(args.digest));
    let result: unknown;
    try {
      result = outcome.stdout.trim() ? JSON.parse(outcome.stdout) : null;
    } catch {
      result = outcome.stdout;
    }
    // Never a masked or hidden CI/CD variable's value, whichever tool's answer holds it (an agent is no terminal).
    result = withoutCredentials(withoutSecretValues(result));
    if (args.reveal_token !== true) result = withoutTokens(result);
    const structured: Record<string, unknown> = { result, exit_code: outcome.code };
    if (tool.list && Array.isArray(result)) Object.assign(structured, this.paging(result, args, outcome.stderr));
    if (tool.path === 'plan') {
      const digest = createHash('sha256').update(outcome.stdout).digest('hex');
      this.plans.set(digest, outcome.stdout);
      structured.digest = digest;
    }
    const notice = [this.forAgent(tool, notesOf(outcome.stderr)), onePage(tool, args, result)].filter(Boolean).join('\n');
    if (notice) structured.notice = notice;
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  }

  /**
   * Rotating the token this server runs with revokes it: the server goes on only when the new token is saved where it
   * reads it, the profile in use (each call reads the profile again). A token from FORGECTL_TOKEN or a token_command,
   * or one saved to another profile, would leave every later call refused (401): refused before anything is sent.
   */
  private checkOwnRotation(args: Record<string, unknown>): void {
    const connection = this.options.connection?.();
    if (!connection) return;
    const saved = args.save_to_profile;
    const fromProfile = connection.tokenSource === 'profile' || connection.tokenSource === 'keyring';
    if (fromProfile && (saved === undefined || saved === true || saved === connection.profileName)) return;
    const source = fromProfile ? `profile "${connection.profileName}", and the new token would not be saved there` : connection.tokenSource === 'environment' ? 'FORGECTL_TOKEN, which the server cannot change' : `the ${connection.tokenSource.replace('_', ' ')} of profile "${connection.profileName}", which the server cannot update`;
    throw new UsageError(
      `tokens_rotate of self would revoke the token this server uses (from ${source}): every later call would be refused`,
      fromProfile ? 'pass save_to_profile: true to save the new token to the profile the server reads' : 'rotate it outside this server (forgectl tokens rotate self) and restart the server with the new token',
    );
  }

  private named?: Map<string, NamedTool>;

  /** What a command said, in the agent's terms: inputs and tools where it names flags and commands (wording.ts). */
  private forAgent(tool: Tool, text: string): string {
    this.named ??= new Map(this.options.tools.map((item) => [item.name, namedTool(item)]));
    return noticeForAgents(redactUrlsIn(text), this.named.get(tool.name) ?? namedTool(tool), [...this.named.values()]);
  }

  /**
   * count, total and next_cursor of a list page, from what forgectl said on stderr ("showing 20 of 1,234 …", past
   * the first page "showing 21–40 of 1,234 …" or "showing record 41 of 1,234 …").
   */
  private paging(records: unknown[], args: Record<string, unknown>, stderr: string): Record<string, unknown> {
    const shown = /^showing (?:record )?[\d,]+(?:–[\d,]+)?(?: of ([\d,]+))?/m.exec(stderr);
    const page = pageOfCursor(args.cursor);
    // The last page says nothing of more: the records before it and its own are all there are.
    const perPage = typeof args.per_page === 'number' ? args.per_page : DEFAULT_PER_PAGE;
    const total = shown ? (shown[1] ? Number(shown[1].replace(/,/g, '')) : undefined) : (page - 1) * perPage + records.length;
    return {
      count: records.length,
      ...(total !== undefined ? { total } : {}),
      ...(shown ? { next_cursor: cursorOf(page + 1) } : {}),
    };
  }

  /** The values with the desired-state file they name checked, and replaced by its real path (which the command reads). */
  private async checked(values: ToolValues): Promise<ToolValues> {
    if (values.desiredFile === undefined) return values;
    const real = await checkDesiredFile(values.desiredFile, this.options.root ?? process.cwd());
    return { ...values, values: values.values.map((item) => (item.flag === '--file' && item.value === values.desiredFile ? { ...item, value: real } : item)) };
  }

  /**
   * What a failed call said: what it printed as text (validate's FILE:LINE:COL problems), then its notes. A plan
   * that is stale is made again with the plan tool, not with a command line naming this server's temporary file.
   */
  private failure(tool: Tool, outcome: CallOutcome): string {
    const printed = tool.path === 'validate' ? problemLines(outcome.stdout) : /^\s*[[{]/.test(outcome.stdout) ? '' : outcome.stdout.trim();
    let notes = notesOf(outcome.stderr);
    if (tool.path === 'apply' && /the plan is stale/.test(notes)) {
      notes = [...notes.split('\n').filter((line) => !line.startsWith('hint:')), 'hint: call the plan tool again, review the new plan, and pass its digest to apply'].join('\n');
    }
    return [printed, notes].filter(Boolean).join('\n') || `exit ${outcome.code}`;
  }

  private applyValues(args: Record<string, unknown>): ToolValues {
    const digest = String(args.digest ?? '');
    if (this.applied.has(digest)) throw new UsageError('this plan was already applied', 'call the plan tool again to see what differs now');
    if (this.applying.has(digest)) throw new UsageError('this plan is being applied by another call', 'wait for that call\'s result');
    const plan = this.plans.get(digest);
    if (!plan) throw new UsageError(`no plan with digest ${digest || '(none)'} was made by this server`, 'call plan first, review it, and pass its digest');
    // The plan file exists for the run only, readable by this user alone.
    const folder = mkdtempSync(join(tmpdir(), 'forgectl-mcp-'));
    const file = join(folder, 'plan.json');
    writeFileAtomically(file, plan, 'secret');
    this.applying.add(digest);
    return { values: [{ flag: '--file', value: file }], args: [] };
  }

  /**
   * Runs a command with the values of a call, on the global options the server started with (and -o json): the
   * options object is built by the command's own parsers, and what fails there is reported as the CLI reports it.
   */
  private async run(path: string, values: ToolValues, globals: GivenGlobals, tool?: Tool, cancelled?: AbortSignal): Promise<CallOutcome> {
    const { streams, read } = capture();
    const def = tool?.def ?? (await this.options.commands.manifest.find((entry) => entry.path === path)!.load()).default;
    let opts: Record<string, unknown>;
    try {
      opts = optionsFromValues(def, values.values, values.args);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      return { code: error.exitCode, stdout: '', stderr: `error: ${error.message}\n${error.hint ? `hint: ${error.hint}\n` : ''}` };
    }
    const interrupted = cancelled && new Promise<'SIGINT'>((resolve) => (cancelled.aborted ? resolve('SIGINT') : cancelled.addEventListener('abort', () => resolve('SIGINT'), { once: true })));
    const code = await this.options.execute({ path, opts, globals: { ...this.options.globals, ...globals, output: 'json', color: false } }, streams, interrupted);
    return { code, ...read() };
  }

  /** Checks arguments against the tool's input schema: types, enums, bounds, required, unknown names. */
  private validate(tool: Tool, args: Record<string, unknown>): string | undefined {
    let check = this.validators.get(tool.name);
    if (!check) {
      check = schemaValidator(tool.inputSchema);
      this.validators.set(tool.name, check);
    }
    return check(args);
  }
}

/** A small validator for the schemas the catalogue makes (objects of scalars and arrays of scalars). */
function schemaValidator(schema: JsonSchema): (value: unknown) => string | undefined {
  const typeOk = (type: string | string[] | undefined, value: unknown): boolean => {
    const types = type === undefined ? [] : Array.isArray(type) ? type : [type];
    if (!types.length) return true;
    return types.some((t) =>
      t === 'integer' ? Number.isInteger(value) : t === 'number' ? typeof value === 'number' && Number.isFinite(value) : t === 'array' ? Array.isArray(value) : t === 'object' ? Boolean(value) && typeof value === 'object' && !Array.isArray(value) : typeof value === t,
    );
  };
  const checkValue = (name: string, rule: JsonSchema, value: unknown): string | undefined => {
    if (!typeOk(rule.type, value)) return `${name} must be ${Array.isArray(rule.type) ? rule.type.join(' or ') : rule.type}`;
    if (rule.enum && !rule.enum.includes(value)) return `${name} must be one of ${rule.enum.join(', ')}`;
    if (typeof value === 'number' && rule.minimum !== undefined && value < rule.minimum) return `${name} must be at least ${rule.minimum}`;
    if (typeof value === 'number' && rule.maximum !== undefined && value > rule.maximum) return `${name} must be at most ${rule.maximum}`;
    if (Array.isArray(value) && rule.items) {
      for (const [index, item] of value.entries()) {
        const problem = checkValue(`${name}[${index}]`, rule.items, item);
        if (problem) return problem;
      }
    }
    return undefined;
  };
  return (value) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return 'arguments must be an object';
    const record = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (record[name] === undefined) return `${name} is required`;
    for (const [name, item] of Object.entries(record)) {
      const rule = schema.properties?.[name];
      if (!rule) return `no input "${name}"; inputs: ${Object.keys(schema.properties ?? {}).join(', ')}`;
      const problem = checkValue(name, rule, item);
      if (problem) return problem;
    }
    return undefined;
  };
}

/** The tools whose new token only their answer holds (tokens_rotate saves its own to a profile instead). */
const TOKEN_IN_ANSWER_ONLY: Record<string, string> = {
  'runners reset-token': 'the runner\'s new token',
  'tokens create': 'the new token',
  'deploy-tokens create': 'the new deploy token',
};

/**
 * The api tool's GET of a list returns the first page only: a full page says that more may follow, so that an agent
 * does not take 20 records for all of them.
 */
function onePage(tool: Tool, args: Record<string, unknown>, result: unknown): string | undefined {
  if (tool.name !== 'api' || args.paginate === true || args.limit !== undefined || !Array.isArray(result)) return undefined;
  const asked = Number(new URL(String(args.path), 'http://instance').searchParams.get('per_page'));
  const perPage = Number.isInteger(asked) && asked > 0 ? asked : DEFAULT_PER_PAGE;
  if (result.length < perPage) return undefined;
  return `this is one page of ${result.length} records and more may follow: pass paginate: true, or limit, to read past it`;
}

function toolError(message: string, code: number, meaning = EXIT_MEANINGS[code] ?? 'failed') {
  const text = `${message}\n(exit ${code}: ${meaning})`;
  return { content: [{ type: 'text' as const, text }], isError: true };
}

function describe(tool: Tool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: { title: tool.title, readOnlyHint: tool.readOnly, destructiveHint: tool.destructive, idempotentHint: tool.idempotent, openWorldHint: false },
  };
}

const PROFILE = 'forgectl://profile';

/** Read-only context an agent may load. */
const RESOURCES: Array<{ uri: string; name: string; description: string; mimeType: string; path: string; values: ToolValues }> = [
  { uri: 'forgectl://user', name: 'current user', description: 'who the token belongs to (GET /user)', mimeType: 'application/json', path: 'api', values: { values: [], args: ['/user'] } },
  { uri: PROFILE, name: 'connection', description: 'the connection the tools use (a profile, or FORGECTL_URL and FORGECTL_TOKEN): instance URL, profile, where the token comes from (never the token)', mimeType: 'application/json', path: '', values: { values: [], args: [] } },
  {
    uri: 'forgectl://desired-state/schema',
    name: 'desired-state schema',
    description: 'the JSON Schema of desired-state files (plan, apply, export, validate)',
    mimeType: 'application/schema+json',
    path: 'validate',
    values: { values: [{ flag: '--schema', value: true }], args: [] },
  },
];

const INSTRUCTIONS = [
  'forgectl administers a software-delivery platform (projects, groups, repositories, merge requests, CI, tokens).',
  'Lists are paged: pass next_cursor back as cursor for the next page.',
  'Changes to configuration go through desired state: call plan with a desired-state file, show the plan to the user, then apply with its digest and confirm: true.',
  'A change that deletes or that forgectl asks about runs only with confirm: true: tell the user what it does and ask before passing it.',
  'Errors carry forgectl\'s exit code: 2 bad input, 4 permission, 5 not found, 6 rejected by the server.',
].join(' ');

/** validate's problems (its -o json result) line by line, FILE:LINE:COL: where: what, as the command line prints them. */
function problemLines(stdout: string): string {
  try {
    const { file, problems } = JSON.parse(stdout) as { file: string; problems: Array<{ [K in keyof Problem]: Problem[K] | null }> };
    const found = problems.map(({ line, column, at, message, hint }) => ({ line: line ?? undefined, column: column ?? undefined, at: at ?? '', message: message ?? '', hint: hint ?? undefined }));
    return new DesiredFileError(file, found).lines().join('\n');
  } catch {
    return stdout.trim();
  }
}
