import { routeOf } from '../../api/resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { parseId } from '../../cli/resource-commands.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import type { DeployToken } from './resource.js';
import { ownerOf, ownerOptions, type OwnerOptions } from './shared.js';

interface Options extends OwnerOptions {
  id?: string;
  name?: string;
  projectsFile?: string;
}

export default defineCommand<Options>({
  effect: 'destructive',
  description: [
    'Needs the Maintainer role. Revokes at once: whatever signs in with the token is refused from then on. The token',
    'leaves the project\'s or group\'s list and the instance list. --name revokes the active tokens of',
    'that name instead of one id: the way to revoke over --projects-file, where each project has its own token (and',
    'id), after one question naming them all; a project without such a token fails, the others go on.',
  ].join(' '),
  examples: [
    'forgectl deploy-tokens revoke 2 --project acme/api --yes',
    'forgectl deploy-tokens revoke 4 --group acme',
    'forgectl deploy-tokens revoke --name ci-pull --projects-file services.txt --yes',
  ],
  fleet: 'projects-file',
  args: [{ spec: '[id]', description: 'the deploy token\'s ID (or give its name)' }],
  options: [...ownerOptions, { flags: '--name <name>', description: 'the active deploy tokens of this name, instead of an id' }],
  async run(opts, ctx) {
    if ((opts.id === undefined) === (opts.name === undefined)) throw new UsageError(opts.id === undefined ? 'which deploy token? give its id, or --name NAME' : 'give an id or --name, not both');
    if (opts.id !== undefined && opts.projectsFile !== undefined) {
      throw new UsageError("a deploy token's id belongs to one project: over --projects-file name the tokens with --name NAME");
    }
    const { resource, params, where } = ownerOf(opts, ctx);
    const tokens = opts.id !== undefined
      ? [await ctx.api.call<DeployToken>(routeOf(resource, 'get'), { ...params, token_id: parseId(resource, opts.id) })]
      : await named(ctx, routeOf(resource, 'list'), params, opts.name!, where);
    const what = `${tokens.length > 1 ? 'deploy tokens' : 'deploy token'} ${tokens.map((token) => `${token.id} ("${token.name}", user ${token.username})`).join(', ')} of ${where}`;
    await ctx.confirm(`Revoke ${what}?`);
    for (const token of tokens) await ctx.api.call(routeOf(resource, 'delete'), { ...params, token_id: token.id });
    ctx.io.note(`Revoked ${what}`);
    return undefined;
  },
});

/** The active tokens of a name (exit 5 when there is none). */
async function named(ctx: Context, route: string, params: Record<string, unknown>, name: string, where: string): Promise<DeployToken[]> {
  const found: DeployToken[] = [];
  for await (const token of ctx.api.list<DeployToken>(route, { ...params, active: true }, { all: true })) if (token.name === name) found.push(token);
  if (!found.length) throw new CliError(`${where} has no active deploy token named "${name}"`, ExitCode.notFound);
  return found;
}
