import { defineCommand } from '../../cli/command.js';
import { users } from '../../resources/users/resource.js';
import { readSecret } from '../../cli/secrets.js';
import { ApiError, ConfigError, UsageError } from '../../errors.js';
import { parseChoice } from '../../parse.js';
import { isLoopbackHost, normalizeBaseUrl, selectedProfileName } from '../../config/resolve.js';
import type { TokenType } from '../../config/store.js';
import { saveProfileToken } from '../../config/credentials.js';
import { configFile } from '../../config/paths.js';
import { inCi, KeyringUnavailable, sessionKeyringExpected } from '../../config/keyring.js';

interface Options {
  url?: string;
  tokenStdin?: boolean;
  tokenType: TokenType;
  verify: boolean;
  keyring?: boolean;
  insecureStorage?: boolean;
}

export default defineCommand<Options>({
  description: [
    'The token is read from stdin (--token-stdin) or a masked prompt, never from the command line. It is checked with',
    'GET /user before it is saved. At a terminal it is saved in the OS keyring (Secret Service, Keychain, Credential',
    'Manager) when one answers, and the config file holds only a reference to it; otherwise (no keyring or session',
    'bus, in CI, in a pipe or cron) in the config file, mode 0600. --keyring insists on the keyring, --insecure-storage',
    'on the file.',
  ].join(' '),
  credentials: false,
  examples: [
    'forgectl auth login',
    "printf '%s\\n' \"$TOKEN\" | forgectl auth login --profile prod --url https://git.example.com --token-stdin",
    "printf '%s\\n' \"$TOKEN\" | forgectl auth login --profile laptop --url https://git.example.com --token-stdin --keyring",
  ],
  options: [
    { flags: '--url <url>', description: 'instance URL (https://git.example.com)' },
    { flags: '--token-stdin', description: 'read the token from standard input' },
    { flags: '--token-type <type>', description: 'private (personal, group or project token), job, or oauth', parse: parseChoice('--token-type', ['private', 'job', 'oauth'] as const), default: 'private' },
    { flags: '--no-verify', description: 'save without checking the token with GET /user' },
    { flags: '--keyring', description: 'save the token in the OS keyring, or fail (exit 3) when none answers' },
    { flags: '--insecure-storage', description: 'save the token in the config file (mode 0600) even where a keyring answers' },
  ],
  async run(opts, ctx) {
    if (opts.keyring && opts.insecureStorage) throw new UsageError('--keyring and --insecure-storage contradict each other; give one');
    const config = ctx.readConfig();
    const name = selectedProfileName(ctx.globals, ctx.env, config) ?? 'default';
    const existing = config.profiles[name];

    let url = opts.url ?? ctx.globals.server;
    if (!url && ctx.io.interactive) {
      url = await ctx.prompt.input('Instance URL', { default: existing?.url, validate: (v) => (v.trim() ? true : 'required') });
    }
    if (!url) throw new UsageError('no URL given', 'pass --url https://git.example.com');
    const { rootUrl, baseUrl } = normalizeBaseUrl(url.trim());

    let token: string;
    if (opts.tokenStdin) {
      token = (await readSecret(ctx, 'Access token', { stdin: true })).trim();
    } else if (ctx.io.interactive) {
      token = (await ctx.prompt.password('Access token')).trim();
    } else {
      throw new UsageError('no token given', 'pipe it in with --token-stdin (tokens are never accepted as arguments)');
    }
    if (!token) throw new UsageError('the token is empty');
    if (/\s/.test(token)) throw new UsageError('the token contains white space; give exactly one token');

    const parsed = new URL(baseUrl);
    if (parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname) && !existing?.allow_http) {
      throw new UsageError(`refusing to send a token over plain http to ${parsed.host}`, 'use https (or set allow_http in the profile first)');
    }

    let who = '';
    if (opts.verify) {
      const api = ctx.apiFor({
        profileName: name, baseUrl, rootUrl, token, tokenType: opts.tokenType, tokenSource: 'profile',
        caFile: ctx.globals.caFile ?? existing?.ca_file, insecure: Boolean(ctx.globals.insecure ?? existing?.insecure),
        timeoutMs: (ctx.globals.timeout ?? existing?.timeout ?? 30) * 1000, retries: ctx.globals.retries ?? existing?.retries ?? 3,
      });
      try {
        const user = await api.call<{ username?: string }>(users.routes.current);
        who = user.username ? ` as ${user.username}` : '';
      } catch (error) {
        // A token limited to self_rotate (a cron rotator's) may not read /user, but a scope refusal proves it is valid.
        const insufficientScope = error instanceof ApiError && error.status === 403 && (error.body as { error?: string } | undefined)?.error === 'insufficient_scope';
        if (error instanceof ApiError && error.status === 401) {
          // The client's hint ("run: forgectl auth login") is what the user is doing already.
          throw new ApiError(error.message, error.status, error.method, error.path, error.requestId, `${parsed.host} did not accept this token (mistyped, expired or revoked); nothing was saved`, error.body);
        }
        if (!insufficientScope) throw error;
        who = ' (a token without API read scope)';
      }
    }

    // At a terminal with a login session the keyring is tried; in CI, cron and pipes the file is what the job can
    // read back, and without a session bus (a headless server) there is no keyring to ask.
    const atTerminal = ctx.io.stdoutIsTTY || ctx.io.stderrIsTTY;
    const tryKeyring = opts.keyring || (!opts.insecureStorage && atTerminal && !inCi(ctx.env) && sessionKeyringExpected(ctx.env));
    let saved: Awaited<ReturnType<typeof saveProfileToken>>;
    const how = { url: rootUrl, tokenType: opts.tokenType, replaceCommand: true, makeCurrent: true };
    try {
      saved = await saveProfileToken(ctx.configDir, name, token, { ...how, storage: tryKeyring ? 'keyring' : 'file' }, existing);
    } catch (error) {
      if (!(error instanceof KeyringUnavailable)) throw error;
      if (opts.keyring) {
        throw new ConfigError(`--keyring: ${error.message}; nothing was saved`, 'unlock or start the keyring (on Linux a Secret Service such as gnome-keyring in this session), or save to the config file with --insecure-storage');
      }
      ctx.io.warn(`${error.message}; the token is saved in the config file (mode 0600) instead`);
      saved = await saveProfileToken(ctx.configDir, name, token, { ...how, storage: 'file' }, existing);
    }
    if (saved.leftover) ctx.io.warn(saved.leftover);
    ctx.io.note(`Logged in to ${parsed.host}${who} (profile "${name}", token saved in ${saved.storage === 'keyring' ? 'the OS keyring' : `${configFile(ctx.configDir)}, readable only by you`})`);
    if (saved.current !== name) ctx.io.note(`the current profile is still "${saved.current}"; use -p ${name}, or: forgectl profile use ${name}`);
    return undefined;
  },
});
