/** Exit codes of the contract (§5). One table, used by every command through the error classes below. */
export const ExitCode = {
  ok: 0,
  internal: 1,
  usage: 2,
  config: 3,
  auth: 4,
  notFound: 5,
  rejected: 6,
  rateLimited: 7,
  server: 8,
  attention: 9,
  rotatedNotSaved: 10,
  /** SIGINT (Ctrl-C). */
  interrupted: 130,
  /** SIGTERM (cron and systemd timeouts, `kill`). */
  terminated: 143,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** An error meant for the user: one line of message, an optional hint, and the exit code it ends with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.usage, hint);
    this.name = 'UsageError';
  }
}

export class ConfigError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.config, hint);
    this.name = 'ConfigError';
  }
}

/**
 * An answer of the service that is a failure: an error status, or (GraphQL, whose errors come with 200) errors
 * without data, whose exit code the errors' kind gives.
 */
export class ApiError extends CliError {
  constructor(
    message: string,
    readonly status: number,
    readonly method: string,
    readonly path: string,
    readonly requestId: string | undefined,
    hint?: string,
    readonly body?: unknown,
    exitCode: ExitCodeValue = exitCodeForStatus(status),
  ) {
    super(message, exitCode, hint);
    this.name = 'ApiError';
  }

  /** A 429's wait as the service asked for it (Retry-After, RateLimit-Reset), in ms; undefined when it asked none. */
  serverWaitMs?: number;

  /** The same refusal, told in words the user can act on (the service often answers with a bare status). */
  explained(message: string, hint?: string): ApiError {
    return Object.assign(new ApiError(message, this.status, this.method, this.path, this.requestId, hint, this.body), { serverWaitMs: this.serverWaitMs });
  }
}

/** The request never got an HTTP answer (DNS, refused, TLS, timeout, reset). */
export class NetworkError extends CliError {
  constructor(
    message: string,
    readonly method: string,
    readonly path: string,
    /** true when the request may have reached the server (matters for POST and token rotation). */
    readonly maybeProcessed: boolean,
    readonly code?: string,
    hint?: string,
  ) {
    super(message, ExitCode.server, hint);
    this.name = 'NetworkError';
  }
}

/** The user said no to a prompt (exit 2), or pressed Ctrl-C at one (130): reported as the one word `aborted`. */
export class Aborted extends CliError {
  constructor(exitCode: ExitCodeValue = ExitCode.usage) {
    super('aborted', exitCode);
    this.name = 'Aborted';
  }
}

/** Ends a --dry-run command successfully after the first mutating request was printed instead of sent. */
export class DryRunComplete extends Error {
  constructor() {
    super('dry run');
    this.name = 'DryRunComplete';
  }
}

export function exitCodeForStatus(status: number): ExitCodeValue {
  if (status === 401 || status === 403) return ExitCode.auth;
  if (status === 404) return ExitCode.notFound;
  if (status === 429) return ExitCode.rateLimited;
  if (status >= 500) return ExitCode.server;
  if (status >= 400) return ExitCode.rejected;
  return ExitCode.internal;
}
