import { randomBytes } from 'node:crypto';
import { closeSync, openSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { HOOK_EVENT_FLAGS, HOOK_EVENTS, hooks, type Hook, type HookEventFlag } from './resource.js';
import type { ArgDef, Context, OptionDef } from '../../cli/command.js';
import { idField } from '../../api/resource.js';
import { checkOneStdin, parseNamedSecret, parseSecretSource, readSecret, type SecretSource } from '../../cli/secrets.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { withChoices } from '../../parse.js';
import { fileProblem, writeFileAtomically, type WriteError } from '../../write.js';

/** Shared parts of the `hooks` commands: event names, the status column, and the write-only values. */

export const EVENT_NAMES = HOOK_EVENT_FLAGS.map((flag) => HOOK_EVENTS[flag].name);

/** `push`, `push_events` or `push_hooks` → push_events. */
export function eventFlag(label: string, text: string): HookEventFlag {
  const wanted = text.trim().toLowerCase();
  const flag = HOOK_EVENT_FLAGS.find((f) => f === wanted || HOOK_EVENTS[f].name === wanted || HOOK_EVENTS[f].trigger === wanted);
  if (!flag) throw new UsageError(`${label}: unknown event "${text}"`, `events: ${EVENT_NAMES.join(', ')}`);
  return flag;
}

/** --events push,merge_requests (repeatable) → flags. */
export function parseEvents(value: string, previous: HookEventFlag[] = []): HookEventFlag[] {
  const flags = value.split(',').map((v) => v.trim()).filter(Boolean).map((v) => eventFlag('--events', v));
  if (!flags.length) throw new UsageError('--events needs at least one event', `events: ${EVENT_NAMES.join(', ')}`);
  return [...new Set([...previous, ...flags])];
}

/** The event kinds a hook record delivers, by name. */
export const enabledEvents = (hook: Record<string, unknown>): string[] => HOOK_EVENT_FLAGS.filter((flag) => hook[flag] === true).map((flag) => HOOK_EVENTS[flag].name);

/** ok, disabled until <time>, or disabled (for good: only a successful test re-enables it). */
export function hookStatus(hook: Pick<Hook, 'alert_status' | 'disabled_until'>): string {
  if (hook.alert_status === 'temporarily_disabled') return `disabled until ${hook.disabled_until ?? '?'}`;
  if (hook.alert_status === 'disabled') return 'disabled';
  return 'ok';
}

export const hookIdOf = (text: string): number => idField(hooks).kind.parse(text, 'webhook id') as number;

/** Options of create and update: what the hook delivers, and its write-only values. */
export interface HookOptions {
  project?: string;
  url?: string;
  name?: string;
  description?: string;
  events?: HookEventFlag[];
  allEvents?: boolean;
  branchFilter?: string;
  branchFilterStrategy?: 'wildcard' | 'regex' | 'all_branches';
  sslVerify?: boolean;
  templateFile?: string;
  tokenStdin?: boolean;
  tokenFile?: string;
  tokenEnv?: string;
  generateToken?: boolean | string;
  header?: Array<[string, SecretSource]>;
  urlVar?: Array<[string, SecretSource]>;
}

export const tokenOptions: OptionDef[] = [
  { flags: '--token-stdin', description: 'read the secret token (sent as X-Gitlab-Token) from stdin; prompts on a terminal', localFile: true },
  { flags: '--token-file <path>', description: 'read the secret token from a file', localFile: true },
  { flags: '--token-env <variable>', description: 'read the secret token from an environment variable', localFile: true },
  { flags: '--generate-token [file]', description: 'make a random secret token; written to FILE (mode 0600) or shown once on stderr', localFile: true },
];

/**
 * A webhook URL from the command line, without a password in it: argv is seen by ps and shell history, and the
 * service shows the URL as given to every Maintainer. A URL variable ({password}) keeps it write-only instead.
 */
function parseHookUrl(value: string): unknown {
  const url = hooks.fields.url.kind.parse(value, '--url');
  const parsed = URL.canParse(String(url)) ? new URL(String(url)) : undefined;
  if (!parsed?.password || /^%7B\w+%7D$/i.test(parsed.password)) return url;
  const readable = (text: string): string => {
    try {
      return decodeURI(text);
    } catch {
      return text; // a malformed escape is shown as given
    }
  };
  const masked = `${parsed.protocol}//${readable(parsed.username)}:{password}@${parsed.host}${readable(`${parsed.pathname}${parsed.search}${parsed.hash}`)}`;
  throw new UsageError(
    '--url carries a password, which the command line shows to other users of this machine and the service to every Maintainer',
    `put it in a URL variable: --url '${masked}' --url-var password=env:HOOK_PASSWORD`,
  );
}

export function hookOptions(mode: 'create' | 'update'): OptionDef[] {
  const strategies = ['wildcard', 'regex', 'all_branches'] as const;
  return [
    { flags: '--url <url>', description: 'where deliveries are POSTed; {name} parts are filled from URL variables', parse: parseHookUrl, required: mode === 'create' },
    { flags: '--name <name>', description: 'a name for the hook' },
    { flags: '--description <text>', description: 'what the hook is for' },
    { flags: '--events <list>', description: `events to deliver, comma-separated (${mode === 'update' ? 'replaces the current set; ' : 'default push; '}${EVENT_NAMES.join(', ')})`, parse: withChoices(parseEvents, EVENT_NAMES, true) },
    { flags: '--all-events', description: 'deliver every event kind' },
    { flags: '--branch-filter <filter>', description: 'push events only for branches matching this' },
    { flags: '--branch-filter-strategy <strategy>', description: 'wildcard (default), regex or all_branches', parse: (v: string) => hooks.fields.branch_filter_strategy.kind.parse(v, '--branch-filter-strategy'), choices: strategies },
    ...(mode === 'create'
      ? [{ flags: '--no-ssl-verify', description: "do not verify the receiver's TLS certificate" }]
      : [{ flags: '--ssl-verify', description: "verify the receiver's TLS certificate" }, { flags: '--no-ssl-verify', description: 'do not verify it' }]),
    { flags: '--template-file <path>', description: 'a custom payload template (- for stdin)', localFile: true },
    ...tokenOptions,
    { flags: '--header <name=source>', description: 'a custom header; its value from env:VARIABLE, file:PATH or - (stdin) (repeatable)', parse: parseNamedSecret('--header', 'header'), localFile: true },
    { flags: '--url-var <name=source>', description: 'a URL variable; its value from env:VARIABLE, file:PATH or - (repeatable)', parse: parseNamedSecret('--url-var', 'URL variable'), localFile: true },
  ];
}

/** Where the token comes from (at most one source). */
function tokenSource(opts: HookOptions): SecretSource | 'generate' | undefined {
  const given = [opts.tokenStdin && '--token-stdin', opts.tokenFile && '--token-file', opts.tokenEnv && '--token-env', opts.generateToken && '--generate-token'].filter(Boolean);
  if (given.length > 1) throw new UsageError(`give the secret token one way, not ${given.join(' and ')}`);
  if (opts.tokenStdin) return { stdin: true };
  if (opts.tokenFile) return { file: opts.tokenFile };
  if (opts.tokenEnv) return parseSecretSource('--token-env', `env:${opts.tokenEnv}`);
  return opts.generateToken ? 'generate' : undefined;
}

export const givesToken = (opts: HookOptions): boolean => tokenSource(opts) !== undefined;

/** Writes a generated token to a file readable only by its owner, atomically (replacing an older one). */
function writeTokenFile(path: string, token: string): void {
  try {
    writeFileAtomically(path, `${token}\n`, 'secret');
  } catch (error) {
    throw new Error(`cannot write it to ${path}: ${fileProblem((error as WriteError).reason ?? error)}`);
  }
}

/**
 * The body of a create or update from the options; reads the write-only values from their sources. Checks happen
 * before anything is read or sent.
 */
export async function hookBody(opts: HookOptions, ctx: Context, mode: 'create' | 'update'): Promise<{ body: Record<string, unknown>; afterSuccess: () => void }> {
  if (opts.events && opts.allEvents) throw new UsageError('give --events or --all-events, not both');
  const token = tokenSource(opts);
  const named = [...(opts.header ?? []), ...(opts.urlVar ?? [])];
  checkOneStdin([...(token && token !== 'generate' ? [token] : []), ...named.map(([, source]) => source), ...(opts.templateFile === '-' ? [{ stdin: true as const }] : [])]);
  if (typeof opts.generateToken === 'string' && !opts.generateToken.trim()) throw new UsageError('--generate-token FILE: the file name is empty');

  const body: Record<string, unknown> = {
    url: opts.url,
    name: opts.name,
    description: opts.description,
    push_events_branch_filter: opts.branchFilter,
    branch_filter_strategy: opts.branchFilterStrategy,
  };
  if (mode === 'create' ? opts.sslVerify === false : opts.sslVerify !== undefined) body.enable_ssl_verification = opts.sslVerify;
  if (opts.allEvents || opts.events) {
    // The service's own defaults differ by kind (push on, the rest off): say every flag so the set is exact.
    for (const flag of HOOK_EVENT_FLAGS) body[flag] = Boolean(opts.allEvents || opts.events!.includes(flag));
  }
  if (opts.templateFile !== undefined) {
    body.custom_webhook_template = await readSecret(ctx, 'the payload template', opts.templateFile === '-' ? { stdin: true } : { file: opts.templateFile });
  }
  if (opts.header?.length) body.custom_headers = await Promise.all(opts.header.map(async ([key, source]) => ({ key, value: await readSecret(ctx, `header ${key}`, source) })));
  if (opts.urlVar?.length) body.url_variables = await Promise.all(opts.urlVar.map(async ([key, source]) => ({ key, value: await readSecret(ctx, `URL variable ${key}`, source) })));

  let afterSuccess = (): void => undefined;
  if (token === 'generate') {
    const generated = randomBytes(24).toString('base64url');
    body.token = generated;
    const file = typeof opts.generateToken === 'string' ? opts.generateToken : undefined;
    const show = (why: string) => void ctx.io.streams.stderr.write(`secret token (${why}): ${generated}\n`);
    afterSuccess = file
      ? () => {
          try {
            writeTokenFile(file, generated);
          } catch (error) {
            // The hook already has the new secret: hand it over rather than lose it.
            show('shown only now');
            throw new CliError(`the webhook has a new secret token, but ${(error as Error).message}`, ExitCode.rotatedNotSaved, 'copy the token above to where the receiver reads it');
          }
          ctx.io.note(`secret token written to ${file} (mode 0600)`);
        }
      : () => show('shown only now');
    // The file must be writable before the hook is changed: a token the user cannot keep is no use.
    if (file) assertWritable(file);
  } else if (token) {
    body.token = await readSecret(ctx, 'the secret token', token);
  }
  return { body, afterSuccess };
}

function assertWritable(path: string): void {
  const probe = join(dirname(path), `.${basename(path)}.${process.pid}.probe`);
  try {
    closeSync(openSync(probe, 'wx', 0o600));
    rmSync(probe);
  } catch (error) {
    throw new UsageError(`cannot write the token to ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

export const hookIdArg: ArgDef = { spec: '<id>', description: 'the webhook\'s ID' };
