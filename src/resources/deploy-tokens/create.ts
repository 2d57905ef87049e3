import { routeOf } from '../../api/resource.js';
import { DEPLOY_TOKEN_SCOPES, deployTokens, type DeployToken } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { parseDateTime, parseDuration, parseList } from '../../parse.js';
import { assertPrintTarget, handOverSecret, printTokenOption, secretTarget } from '../../commands/new-secret.js';
import { ownerOf, ownerOptions, type OwnerOptions } from './shared.js';

interface Options extends OwnerOptions {
  name: string;
  scopes: string[];
  username?: string;
  expiresAt?: string;
  expiresIn?: string;
  outputFile?: string;
  printToken?: boolean;
  outputDir?: string;
  projectsFile?: string;
}

export default defineCommand<Options>({
  effect: 'write',
  description: [
    'Needs the Maintainer role. The token\'s value is in the answer of this one request and never again: it is',
    'printed once, or with --output-file written to that file (mode 0600, atomically) and not printed. Without',
    '--username the service names it gitlab+deploy-token-N; without an expiry it never expires. With --projects-file',
    'every project the file names gets its own token, and --output-dir DIR is required: each token is written to',
    'DIR/<project path>.token (mode 0600, atomically) as soon as it is made, never printed, and an existing file is',
    'not replaced (that project fails, the others go on).',
  ].join(' '),
  examples: [
    'forgectl deploy-tokens create --project acme/api --name k8s-pull --scopes read_registry --expires-in 90d -o json',
    'forgectl deploy-tokens create --group acme --name ci-packages --scopes read_package_registry,write_package_registry --username ci-packages --output-file ci-packages.token',
    'forgectl deploy-tokens create --projects-file services.txt --name k8s-pull --scopes read_registry --expires-in 90d --output-dir tokens',
  ],
  fleet: 'projects-file',
  columns: deployTokens.columns,
  options: [
    ...ownerOptions,
    { flags: '--name <name>', description: 'a name for the token', required: true },
    { flags: '--scopes <a,b>', description: `what it may do: ${DEPLOY_TOKEN_SCOPES.join(', ')}`, parse: parseList, required: true },
    { flags: '--username <name>', description: 'the username it signs in with: letters, digits, _ - + . (default gitlab+deploy-token-N)' },
    { flags: '--expires-at <datetime>', description: 'when it stops working: YYYY-MM-DD or an ISO 8601 date-time (default: never)', parse: parseDateTime('--expires-at') },
    { flags: '--expires-in <duration>', description: 'expiry as a duration from now: 30d, 8w', parse: (value: string) => (parseDuration('--expires-in')(value), value) },
    { flags: '--output-file <path>', description: 'write the token to this file (mode 0600, atomically) instead of printing it', localFile: true },
    { flags: '--output-dir <dir>', description: "with --projects-file (required there): write each project's token to DIR/<project path>.token (mode 0600)", localFile: true },
    printTokenOption,
  ],
  async run(opts, ctx) {
    const name = opts.name.trim();
    if (!name) throw new UsageError('--name must not be empty');
    const unknown = opts.scopes.filter((scope) => !(DEPLOY_TOKEN_SCOPES as readonly string[]).includes(scope));
    if (!opts.scopes.length || unknown.length) throw new UsageError(unknown.length ? `unknown scope ${unknown.join(', ')}` : '--scopes is empty', `choose from: ${DEPLOY_TOKEN_SCOPES.join(', ')}`);
    if (opts.username !== undefined && !/^[a-zA-Z0-9.+_-]{1,255}$/.test(opts.username)) {
      throw new UsageError(`--username may hold only letters, digits, '_', '-', '+' and '.', got "${opts.username}"`);
    }
    const expiresAt = expiry(opts, ctx.now());
    const { resource, params, where } = ownerOf(opts, ctx);
    assertPrintTarget(ctx, opts.printToken, opts.outputFile !== undefined || opts.outputDir !== undefined, 'write it to a file with --output-file FILE');
    const file = await secretTarget(ctx, opts, String(params.project), 'deploy token');
    const token = await ctx.api.call<DeployToken & { token: string }>(routeOf(resource, 'create'), { ...params, name, scopes: [...new Set(opts.scopes)], username: opts.username, expires_at: expiresAt });
    if (ctx.globals.dryRun || !token) return undefined;
    // A token nobody holds (its file could not be written) is revoked rather than left working.
    const what = `deploy token ${token.id} ("${token.name}") of ${where}`;
    return handOverSecret(ctx, token, file, { what, undone: `${what} was revoked again` }, () => ctx.api.call(routeOf(resource, 'delete'), { ...params, token_id: token.id }));
  },
});

/** --expires-at or --expires-in as a date-time in the future; undefined: never expires. */
function expiry(opts: Options, now: Date): string | undefined {
  if (opts.expiresAt !== undefined && opts.expiresIn !== undefined) throw new UsageError('give --expires-at or --expires-in, not both');
  if (opts.expiresIn !== undefined) return new Date(now.getTime() + parseDuration('--expires-in')(opts.expiresIn)).toISOString();
  if (opts.expiresAt === undefined) return undefined;
  const at = /^\d{4}-\d{2}-\d{2}$/.test(opts.expiresAt) ? `${opts.expiresAt}T00:00:00Z` : opts.expiresAt;
  if (Date.parse(at) <= now.getTime()) throw new UsageError(`--expires-at must be in the future, got ${opts.expiresAt}`);
  return opts.expiresAt;
}
