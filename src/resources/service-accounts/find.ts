import type { RecordOf } from '../../api/fields.js';
import type { Api } from '../../api/client.js';
import { CliError, ExitCode } from '../../errors.js';
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
