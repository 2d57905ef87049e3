import { routeOf } from '../../api/resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { confirmedBeforeReading, TokenTarget } from '../../commands/tokens/shared.js';
import type { TokenRecord } from '../access-tokens/values.js';
import { placementOptions } from '../../cli/resource-commands.js';
import { ApiError } from '../../errors.js';
import { directMemberships, soleOwnedGroups, someOf } from '../users/shared.js';
import { accountOwner, findServiceAccount } from './find.js';
import { serviceAccounts } from './resource.js';

interface Options {
  account: string;
  hardDelete?: boolean;
}

export default defineCommand<Options>({
  effect: 'destructive',
  description: [
    'The account is named by its username or ID. Asks first, naming the tokens that stop working with it: whatever',
    'signs in with them is refused from then on. What it made passes to the ghost user; --hard-delete deletes that',
    'instead, and the groups it alone owns, which the question names (without it, the service keeps an account that alone owns a group). The',
    'service finishes the deletion in the background. Give --instance or --group.',
  ].join(' '),
  examples: [
    'forgectl service-accounts delete svc-old --instance --yes',
    'forgectl service-accounts delete acme-release --group acme --hard-delete',
  ],
  args: [{ spec: '<account>', description: 'the service account\'s username or ID' }],
  options: [
    ...placementOptions(serviceAccounts),
    { flags: '--hard-delete', description: 'also delete what it made (instead of handing it to the ghost user) and the groups it alone owns' },
  ],
  async run(opts, ctx) {
    const { resource, params, where, owner } = accountOwner(opts, ctx);
    // Off a terminal, --yes comes before any request, reads included.
    await confirmedBeforeReading(ctx, `Delete service account ${opts.account} of ${where} and revoke its tokens?`);
    const account = await findServiceAccount(ctx.api, owner, opts.account);
    const tokens = new TokenTarget('service-account', owner.group ?? '', account.username, account);
    const dying = await activeTokens(ctx, tokens);
    const what = `service account ${account.username} (id ${account.id}) of ${where}`;
    const goes = opts.hardDelete ? ` and what it made${await soleOwnedWords(ctx, account)}` : '';
    await ctx.confirm(`Delete ${what}${goes}? ${tokensLine(dying, tokens)}`);
    await ctx.api.call(routeOf(resource, 'delete'), { ...params, user: account.id, hard_delete: opts.hardDelete || undefined });
    ctx.io.note(`Deleted ${what}; ${dying.length ? `revoked with it: ${dying.join('; ')}` : 'it had no active token'}`);
    return undefined;
  },
});

/** The account's active tokens, each as the question names a token. */
async function activeTokens(ctx: Context, target: TokenTarget): Promise<string[]> {
  const found: string[] = [];
  for await (const token of ctx.api.list<TokenRecord>(target.route('list'), { ...target.params(), state: 'active' }, { all: true, perPage: 100 })) {
    found.push(`token "${token.name}" (id ${token.id}, expires ${token.expires_at ?? 'never'})`);
  }
  return found;
}

/**
 * ", and the groups it alone owns: acme-tools (with their projects)" — what a hard delete takes besides — or, where
 * the token may not read the account's memberships (administrators only), that it takes any such group.
 */
async function soleOwnedWords(ctx: Context, account: { id: number; username: string }): Promise<string> {
  try {
    const sole = await soleOwnedGroups(ctx, account, await directMemberships(ctx.api, account.id));
    return sole.length ? `, and the groups it alone owns: ${someOf(sole.map((group) => group.full_path))} (with their projects)` : '';
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 403) throw error;
    return ', and any group it alone owns (with its projects; an administrator\'s token can name them)';
  }
}

/** "Its 2 active tokens stop working: …", or that it has none. */
function tokensLine(tokens: string[], target: TokenTarget): string {
  if (!tokens.length) return 'It has no active token.';
  return `Its ${tokens.length === 1 ? 'active token stops' : `${tokens.length} active tokens stop`} working: ${tokens.join('; ')} (forgectl tokens list ${target.flags}).`;
}
