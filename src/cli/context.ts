import { Writable } from 'node:stream';
import { Api } from '../api/client.js';
import { TOKEN_REFUSED_HINT } from '../api/errors.js';
import type { PageOptions } from '../api/paginate.js';
import type { Env } from '../config/paths.js';
import { KeyringReads } from '../config/keyring.js';
import { environmentAlone, keyringAccountInUse, resolveConnection, selectedProfileName, type Connection } from '../config/resolve.js';
import { readConfig, UnreadableConfig, type ConfigData } from '../config/store.js';
import { HttpClient } from '../http/client.js';
import { RateGate } from '../http/rate-gate.js';
import { oneLine, type Format } from '../output/formats.js';
import type { Io, Streams } from '../output/io.js';
import type { Commands, Context, GlobalOptions, Invocation, Prompter } from './command.js';
import { Aborted, ApiError, CliError, ExitCode, UsageError } from '../errors.js';

export interface ContextInit {
  io: Io;
  env: Env;
  globals: GlobalOptions;
  format: Format;
  configDir: string;
  paging: PageOptions;
  now: () => Date;
  interrupted?: Promise<'SIGINT' | 'SIGTERM'>;
  sleep: (ms: number) => Promise<void>;
  /** The config file, when it was already read (for the output format). */
  config?: ConfigData;
  /** Checks a config file read later (the profile's `output`, when the format came from it); throws ConfigError. */
  checkConfig?: (config: ConfigData) => void;
  /** Runs another command in this process as main() does (see Context.execute). */
  execute?: (invocation: Invocation, streams: Streams, interrupted?: Promise<'SIGINT' | 'SIGTERM'>) => Promise<number>;
  commands: Commands;
}

/** Builds the Context of one command run; the connection and HTTP client are created on first use. */
export class RunContext implements Context {
  readonly io: Io;
  readonly env: Env;
  readonly globals: GlobalOptions;
  readonly format: Format;
  readonly configDir: string;
  readonly paging: PageOptions;
  readonly interrupted: Promise<'SIGINT' | 'SIGTERM'>;
  readonly now: () => Date;
  readonly sleep: (ms: number) => Promise<void>;
  readonly rateGate = new RateGate();
  readonly commands: Commands;
  private readonly executor?: (invocation: Invocation, streams: Streams, interrupted?: Promise<'SIGINT' | 'SIGTERM'>) => Promise<number>;
  /** The signal that asked the run to stop, once one did. */
  private interruption?: 'SIGINT' | 'SIGTERM';
  private config?: ConfigData;
  private readonly checkConfig?: (config: ConfigData) => void;
  private resolved?: Connection;
  private readonly httpClients: HttpClient[] = [];
  /** Requests sent so far, by every client of the run: the number that tags each one's verbose lines. */
  private requestsSent = 0;
  private apiClient?: Api;
  private readonly keyringReads = new KeyringReads();

  constructor(init: ContextInit) {
    this.io = init.io;
    this.env = init.env;
    this.globals = init.globals;
    this.format = init.format;
    this.configDir = init.configDir;
    this.paging = init.paging;
    this.interrupted = init.interrupted ?? new Promise(() => undefined);
    void this.interrupted.then((signal) => (this.interruption = signal));
    this.now = init.now;
    this.sleep = init.sleep;
    this.config = init.config;
    this.checkConfig = init.checkConfig;
    this.executor = init.execute;
    this.commands = init.commands;
  }

  execute(invocation: Invocation, streams: Streams, interrupted?: Promise<'SIGINT' | 'SIGTERM'>): Promise<number> {
    if (!this.executor) throw new Error('this run cannot run other commands');
    return this.executor(invocation, streams, interrupted);
  }

  /**
   * Why no further request may be sent: the run was interrupted. A command line ends at once there; a run in this
   * process (a cancelled tool call) would go on, so its clients stop before each request. A run that ends itself on a
   * signal (a rotation finishing its step) keeps sending.
   */
  private stopped(): CliError | undefined {
    const signal = this.interruption;
    if (!signal || this.io.state.endsItselfOnInterrupt) return undefined;
    return new CliError(`interrupted (${signal}): nothing further was sent`, signal === 'SIGINT' ? ExitCode.interrupted : ExitCode.terminated);
  }

  readConfig(): ConfigData {
    if (!this.config) {
      const data = readConfig(this.configDir);
      this.checkConfig?.(data);
      this.config = data;
    }
    return this.config;
  }

  /**
   * The config a connection is resolved from. One this user cannot read is left aside, with a warning, when the
   * environment alone configures the run: a CI job in a container run as another user than its HOME's owner.
   */
  private configForConnection(): ConfigData {
    try {
      return this.readConfig();
    } catch (error) {
      if (!(error instanceof UnreadableConfig) || !environmentAlone(this.globals, this.env)) throw error;
      this.io.warn(`${error.message}; the environment configures this run, so it is left aside`);
      return (this.config = { profiles: {} });
    }
  }

  /**
   * Reads the token of the profile in use from the OS keyring, when it is kept there, before the command runs: a
   * keyring call runs in a helper process and is awaited here, so SIGINT and SIGTERM are acted on while it waits
   * (connection() is synchronous). Anything that keeps the connection from resolving is left for connection() to say.
   */
  async readCredentialsAhead(): Promise<void> {
    let config: ConfigData;
    try {
      config = this.readConfig();
    } catch {
      return;
    }
    const account = keyringAccountInUse(this.globals, this.env, config);
    if (account) await this.keyringReads.readAhead(account);
  }

  /** A 401 of a token from FORGECTL_TOKEN: logging in changes nothing there, the variable must change. */
  tokenRefusal(error: unknown): unknown {
    if (!(error instanceof ApiError) || error.status !== 401 || this.resolved?.tokenSource !== 'environment') return error;
    // A 401 a command explained (re-authentication to approve, a bot-only action) keeps its own hint.
    if (error.hint !== undefined && error.hint !== TOKEN_REFUSED_HINT) return error;
    return error.explained(error.message, 'the token in FORGECTL_TOKEN is refused (expired, revoked, or of another instance): set it to a valid token; forgectl auth login does not change it');
  }

  connection(): Connection {
    if (!this.resolved) {
      this.resolved = resolveConnection(this.globals, this.env, this.configForConnection(), this.keyringReads.read);
      if (this.resolved.insecure) this.io.warn('TLS certificate verification is disabled (insecure)');
      if (this.resolved.notice) this.io.warn(this.resolved.notice);
    }
    return this.resolved;
  }

  get api(): Api {
    this.apiClient ??= this.apiFor(this.connection(), { dryRun: Boolean(this.globals.dryRun) });
    return this.apiClient;
  }

  /** Another client over the same connection and connection pool, printing its --dry-run requests elsewhere. */
  forkApi(printDryRun: (text: string) => void): Api {
    return this.api.withHooks({ dryRun: Boolean(this.globals.dryRun), printDryRun, changesInFlight: this.io.state.changesInFlight });
  }

  /** A client for another token on the same instance (rotation's verification GET). */
  apiWithToken(token: string): Api {
    return this.apiFor({ ...this.connection(), token, tokenType: 'private', tokenSource: 'environment' });
  }

  /** A client for an explicit connection (auth login checks a token before saving it). Closed with the context. */
  apiFor(connection: Connection, options: { dryRun?: boolean } = {}): Api {
    const http = new HttpClient({
      caFile: connection.caFile,
      insecure: connection.insecure,
      timeoutMs: connection.timeoutMs,
      retries: connection.retries,
      env: this.env,
      userAgent: `forgectl/${__FORGECTL_VERSION__}`,
      sleep: this.sleep,
      gate: this.rateGate,
      log: this.globals.verbose ? (line) => this.io.streams.stderr.write(`${line}\n`) : undefined,
      requestNumber: () => ++this.requestsSent,
      stopped: () => this.stopped(),
    });
    this.httpClients.push(http);
    return new Api(connection, http, {
      dryRun: Boolean(options.dryRun),
      printDryRun: (text) => this.io.streams.stdout.write(text),
      changesInFlight: this.io.state.changesInFlight,
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.httpClients.map((http) => http.close()));
  }

  async confirm(question: string): Promise<void> {
    if (this.globals.yes || this.globals.dryRun) return;
    if (!this.io.interactive) {
      throw new UsageError(`confirmation needed: ${question}`, 'pass --yes to confirm without a terminal');
    }
    if (!(await this.prompt.confirm(oneLine(question), false))) throw new Aborted();
  }

  get prompt(): Prompter {
    const io = this.io;
    // The prompt library ends its output stream when done: give it a view of stderr that cannot end stderr itself
    // (the "aborted" line and errors come after the prompt).
    const stderr = io.streams.stderr as NodeJS.WriteStream;
    const output = new Writable({ write: (chunk, encoding, callback) => void stderr.write(chunk, encoding, callback) });
    Object.defineProperties(output, { isTTY: { get: () => stderr.isTTY }, columns: { get: () => stderr.columns }, rows: { get: () => stderr.rows } });
    const context = { input: io.streams.stdin as NodeJS.ReadableStream, output: output as NodeJS.WritableStream };
    return {
      async input(message, options) {
        const { input } = await import('@inquirer/prompts');
        return input({ message, default: options?.default, validate: options?.validate }, context);
      },
      async password(message) {
        const { password } = await import('@inquirer/prompts');
        return password({ message }, context);
      },
      async confirm(message, defaultValue = false) {
        const { confirm } = await import('@inquirer/prompts');
        return confirm({ message, default: defaultValue }, context);
      },
    };
  }

  project(value: string | undefined, given = '--project ID|PATH'): string {
    const project = value ?? this.profileDefault('default_project');
    if (!project) throw new UsageError('no project given', `pass ${given}, or set default_project in the profile`);
    return project;
  }

  group(value: string | undefined, given = '--group ID|PATH'): string {
    const group = value ?? this.profileDefault('default_group');
    if (!group) throw new UsageError('no group given', `pass ${given}, or set default_group in the profile`);
    return group;
  }

  defaults(): { project?: string; group?: string } {
    return { project: this.profileDefault('default_project'), group: this.profileDefault('default_group') };
  }

  private profileDefault(key: 'default_project' | 'default_group'): string | undefined {
    const config = this.configForConnection();
    const name = selectedProfileName(this.globals, this.env, config);
    return name ? config.profiles[name]?.[key] : undefined;
  }
}
