import type { RecordOf } from '../../api/fields.js';
import type { Api } from '../../api/client.js';
import type { Context } from '../../cli/command.js';
import { placementFor } from '../../cli/resource-commands.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { serviceAccounts } from './resource.js';

export type ServiceAccount = RecordOf<typeof serviceAccounts>;

/** Whose service accounts: the instance's (`group` undefined), or a top-level group's (its id or path as given). */
export interface AccountOwner {
  group?: string;
}

/** "the instance", "group acme". */
export const ownerLabel = (owner: AccountOwner): string => (owner.group === undefined ? 'the instance' : `group ${owner.group}`);

/** The options that name the owner again: `--instance` or `--group acme`. */
export const ownerFlags = (owner: AccountOwner): string => (owner.group === undefined ? '--instance' : `--group ${owner.group}`);

/**
 * Only a top-level group has service accounts (its subgroups and projects reach them by membership): a subgroup's
 * path is refused before anything is sent, naming the top-level group. A numeric id goes to the service, which
 * refuses a subgroup itself.
 */
export function topLevelGroup(group: string): string {
  const path = group.replace(/^\/+|\/+$/g, '');
  if (path.includes('/')) {
    throw new UsageError(`${path} is a subgroup: service accounts belong to the instance or to a top-level group`, `its top-level group: --group ${path.split('/')[0]}`);
  }
  return group;
}

/**
 * Whose accounts a service-accounts command names (--instance, or --group, else the profile's default group), with
 * the route parameters and words of that placement; a subgroup refused (topLevelGroup).
 */
export function accountOwner(opts: object, ctx: Context): ReturnType<typeof placementFor> & { owner: AccountOwner } {
  const placement = placementFor(serviceAccounts, opts, ctx);
  const group = placement.key === 'group' ? topLevelGroup(String(placement.params.group)) : undefined;
  return { ...placement, owner: group === undefined ? {} : { group } };
}

/** The list route of the owner's accounts and its parameters. */
function listOf(owner: AccountOwner): { route: string; params: Record<string, string> } {
  return owner.group === undefined
    ? { route: serviceAccounts.parents.instance.routes.list, params: {} }
    : { route: serviceAccounts.parents.group.routes.list, params: { group: owner.group } };
}

/**
 * A service account of the owner by username (case-insensitive) or id. The service reads no single account, so this
 * walks the owner's list, which also proves the account is the owner's: exit 5, naming the list to look at, when not.
 */
export async function findServiceAccount(api: Api, owner: AccountOwner, nameOrId: string): Promise<ServiceAccount> {
  const { route, params } = listOf(owner);
  const wanted = nameOrId.toLowerCase();
  const byId = /^\d+$/.test(nameOrId) ? Number(nameOrId) : undefined;
  for await (const account of api.list<ServiceAccount>(route, params, { all: true, perPage: 100 })) {
    if (account.id === byId || account.username.toLowerCase() === wanted) return account;
  }
  throw new CliError(
    `no service account ${byId === undefined ? `"${nameOrId}"` : nameOrId} of ${ownerLabel(owner)}`,
    ExitCode.notFound,
    `forgectl service-accounts list ${ownerFlags(owner)} shows them${owner.group === undefined ? '; a group\'s accounts are named with --group' : ''}`,
  );
}
