import { RESOURCE_SCOPES, USER_SCOPES } from '../../resources/access-tokens/resource.js';
import type { TokenRecord } from '../../resources/access-tokens/values.js';
import { defineCommand } from '../../cli/command.js';
import { CliError, ExitCode, NetworkError, UsageError } from '../../errors.js';
import { parseAccessLevel, parseDuration, parseList } from '../../parse.js';
import { assertPrintTarget, handOverSecret, printTokenOption, secretFileFor } from '../new-secret.js';
import { expiryFrom, resolveTarget, resolveUserTarget, targetOptions, userOptions, withLevelName, type TargetOptions, type UserOptions } from './shared.js';


interface Options extends TargetOptions, UserOptions {
  name: string;
  scopes: string[];
  accessLevel?: number;
  expiresAt?: string;
  expiresIn?: string;
  description?: string;
  outputFile?: string;
  printToken?: boolean;
}

export default defineCommand<Options>({
  description: [
    'Group tokens need the Owner role, project tokens Maintainer; each gets its own bot user. Personal tokens are',
    'created for a user by an administrator (--personal --user NAME|ID); --impersonation makes an impersonation token, which',
    'acts as the user for support and automation. A service account\'s token (--service-account NAME, with --group for a',
    'group\'s) is a personal token of the account, made by an administrator or the group\'s Owner. The new token\'s value is',
    'in the answer of this one request and never again: it is printed once, or with --output-file written to that file',
    '(mode 0600, atomically) and not printed; an existing file is replaced only when confirmed (--yes off a terminal).',
  ].join(' '),
  examples: [
    'forgectl tokens create --group acme --name cron-bot --scopes api --access-level maintainer --expires-in 180d -o json',
    'forgectl tokens create --project acme/api --name deploy --scopes read_repository,read_api --access-level developer --expires-in 90d',
    'forgectl tokens create --personal --user 2 --name ci --scopes read_api --expires-in 30d',
    'forgectl tokens create --personal --user alice --impersonation --name support --scopes read_api --expires-in 1d',
    'forgectl tokens create --service-account service_account_deploy --name nightly --scopes api --expires-in 90d -o json',
    'forgectl tokens create --project acme/api --name release --scopes read_api --expires-in 30d --output-file release.token',
  ],
  options: [
    ...targetOptions,
    { flags: '--name <name>', description: 'token name', required: true },
    { flags: '--scopes <a,b>', description: `scopes: ${RESOURCE_SCOPES.join(', ')} (personal also ${USER_SCOPES.join(', ')})`, parse: parseList, required: true },
    { flags: '--access-level <level>', description: 'group/project tokens: guest, planner, reporter, developer, maintainer (default), owner, or the number', parse: parseAccessLevel('--access-level', [10, 15, 20, 30, 40, 50]) },
    { flags: '--expires-at <date>', description: 'YYYY-MM-DD, at most one year ahead (default: the longest the instance allows)' },
    { flags: '--expires-in <duration>', description: 'expiry as a duration from today: 30d, 8w', parse: (value: string) => (parseDuration('--expires-in')(value), value) },
    { flags: '--description <text>', description: 'what the token is for' },
    { flags: '--output-file <path>', description: 'write the token to this file (mode 0600, atomically) instead of printing it', localFile: true },
    printTokenOption,
    ...userOptions,
  ],
  async run(opts, ctx) {
    const kind = resolveTarget(opts).kind;
    if (opts.personal && opts.user === undefined) throw new UsageError('--personal needs --user NAME|ID: personal tokens are created for a user by an administrator');
    const personalKind = kind === 'personal' || kind === 'service-account';
    if (personalKind && opts.accessLevel !== undefined) throw new UsageError(`--access-level is for group and project tokens, not with ${kind === 'personal' ? '--personal' : '--service-account'}`);
    const name = opts.name.trim();
    if (!name) throw new UsageError('--name must not be empty');
    const allowed = personalKind ? [...RESOURCE_SCOPES, ...USER_SCOPES] : RESOURCE_SCOPES;
    const unknown = opts.scopes.filter((scope) => !allowed.includes(scope));
    if (!opts.scopes.length || unknown.length) {
      throw new UsageError(`${unknown.length ? `unknown scope ${unknown.join(', ')}` : '--scopes is empty'} for ${kind === 'service-account' ? 'a service account\'s' : kind} tokens`, `choose from: ${allowed.join(', ')}`);
    }
    const expiresAt = expiryFrom(opts, ctx.now());
    const { target, userId } = await resolveUserTarget(opts, ctx);
    assertPrintTarget(ctx, opts.printToken, opts.outputFile !== undefined, 'write it to a file with --output-file FILE');
    const file = await secretFileFor(ctx, opts.outputFile, `${kind === 'service-account' ? 'service account' : kind} token`);
    // Personal tokens are created under their user (POST /users/:id/personal_access_tokens), as impersonation ones are.
    // An answer lost or without the token (an empty body from a proxy): the token may have been made, nobody holds it.
    const strayHint = `forgectl tokens list ${target.flags} --search "${name}" --state active shows it; revoke it (forgectl tokens revoke ID ${target.flags} --yes) and create another`;
    let created: TokenRecord | undefined;
    try {
      created = await ctx.api.call<TokenRecord>(target.route('create'), {
        ...target.createParams(userId),
        name,
        scopes: [...new Set(opts.scopes)],
        access_level: opts.accessLevel,
        expires_at: expiresAt,
        description: opts.description,
      });
    } catch (error) {
      if (!(error instanceof NetworkError) || !error.maybeProcessed) throw error;
      throw new CliError(`${error.message}; a token named "${name}" may have been created, and its value is lost`, ExitCode.server, strayHint);
    }
    if (ctx.globals.dryRun) return undefined;
    if (typeof created?.token !== 'string') {
      throw new CliError(`the server answered without the new token: a token named "${name}" was probably created, and its value is lost`, ExitCode.server, strayHint);
    }
    const record = target.kind === 'group' || target.kind === 'project' ? withLevelName(created) : created;
    // A token nobody holds (its file could not be written) is revoked rather than left working.
    const what = `${target.describe(created.id)} ("${name}")`;
    return handOverSecret(ctx, record as typeof record & { token: string }, file, { what, undone: `${what} was revoked again` }, () => ctx.api.call(target.route('delete'), target.params(created.id)));
  },
});
