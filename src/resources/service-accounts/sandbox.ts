import { randomBytes } from 'node:crypto';
import { placed } from '../../api/resource.js';
import { authenticateRotation, createPersonalToken, filterTokens, presentPersonalToken, revokeToken, rotate, withValue } from '../../sandbox/access-tokens.js';
import { checkScope, Role } from '../../sandbox/auth.js';
import { crudModule, type Where } from '../../sandbox/crud.js';
import type { Db } from '../../sandbox/db.js';
import { bool, created, errors, int, noContent, ok, type SandboxRequest } from '../../sandbox/http.js';
import { emailTable, tokens, users, type AccessToken, type Group, type StoredRecord, type User } from '../../sandbox/model.js';
import { paginate } from '../../sandbox/pagination.js';
import { found, parentOf } from '../../sandbox/records.js';
import type { Router } from '../../sandbox/router.js';
import { addToken, isoDate } from '../../sandbox/seed.js';
import { deleteBelongings, userType } from '../../sandbox/users.js';
import { groupServiceAccountTokens, serviceAccounts as declared, USERNAME_PATTERN } from './resource.js';

/**
 * Service accounts (the service's Service accounts API; Premium and Ultimate), served from their declaration: users
 * of type service_account in the users table, an instance's (administrators) or provisioned by a top-level group (its
 * Owners). The kernel's CRUD serves list, create, update and a group's delete; hooks add what the service derives
 * (generated usernames, names and no-reply emails; the user model's checks; a subgroup refused) and what a delete
 * takes with it (tokens, memberships; with hard_delete the groups it alone owns). An instance's account is deleted
 * with the users API (the users module). A group's accounts' tokens have routes of their own here; an instance's
 * are personal tokens (the access tokens module). Rotation, reuse detection included, is the kernel's
 * (src/sandbox/access-tokens.ts).
 */

/**
 * What the sandbox keeps of a service account beside its declared fields: it is a user like any other, made by
 * `created_by_id`, provisioned by the top-level group `provisioned_by_group_id` (none for the instance's).
 */
type AccountState = Pick<User, 'state' | 'is_admin' | 'bot' | 'external' | 'created_at' | 'provisioned_by_group_id'> & {
  updated_at?: string;
  user_type: string;
  created_by_id?: number;
};

type StoredServiceAccount = StoredRecord<typeof declared, AccountState>;

const isServiceAccount = (user: { user_type?: unknown; bot?: unknown }): boolean => userType(user as User) === 'service_account';
const atGroup = (where: Where): boolean => where.placement.parent === 'group';

/** The host of the no-reply addresses: the instance's. */
const noreplyHost = (req: SandboxRequest): string => `noreply.${new URL(req.rootUrl).hostname}`;

/** What the user model says of a username and an email (the account's own taken ones excepted). */
function accountProblems(db: Db, account: StoredServiceAccount, self?: StoredServiceAccount): string[] {
  const problems: string[] = [];
  const { username, email } = account;
  const others = users(db).filter((u) => u.id !== self?.id);
  if (!USERNAME_PATTERN.test(username) || /\.(git|atom)$/.test(username)) problems.push("Username can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.");
  else if (others.some((u) => u.username.toLowerCase() === username.toLowerCase())) problems.push('Username has already been taken');
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) problems.push('Email is invalid');
  else if (others.some((u) => u.email.toLowerCase() === email.toLowerCase()) || emailTable(db).some((e) => e.user_id !== self?.id && e.email.toLowerCase() === email.toLowerCase())) {
    problems.push('Email has already been taken');
  }
  if (!account.name.trim()) problems.push("Name can't be blank");
  return problems;
}

/**
 * A new account gets what is not given as the service makes it up (a username `<prefix>_<hash>`, the name "Service
 * account user", a no-reply email); only a top-level group makes them. Every problem in one sentence, 400.
 */
function check(account: StoredServiceAccount, req: SandboxRequest, previous: StoredServiceAccount | undefined, where: Where): void {
  if (!previous) {
    if (atGroup(where) && (where.parent as Group).parent_id) throw errors.badRequest('User does not have permission to create a service account in this namespace.');
    const prefix = atGroup(where) ? `service_account_group_${where.parent.id}` : 'service_account';
    account.username ||= `${prefix}_${randomBytes(16).toString('hex')}`;
    account.name ||= 'Service account user';
    account.email ||= `${account.username}@${noreplyHost(req)}`;
    account.created_by_id = req.user!.id;
  } else {
    account.updated_at = req.now().toISOString();
  }
  const problems = accountProblems(req.db, account, previous);
  // A create answers in Grape's bad_request! words, an update with the model's errors as they are.
  if (problems.length) throw previous ? errors.message(400, problems.join(' and ')) : errors.badRequest(problems.join(' and '));
}

/** order_by (id, username) and sort (desc unless asc), as Grape checks them. */
function sorted(req: SandboxRequest, list: StoredServiceAccount[]): StoredServiceAccount[] {
  const orderBy = String(req.query.order_by ?? 'id');
  const sort = String(req.query.sort ?? 'desc');
  if (!['id', 'username'].includes(orderBy)) throw errors.invalid('order_by');
  if (!['asc', 'desc'].includes(sort)) throw errors.invalid('sort');
  const sign = sort === 'asc' ? 1 : -1;
  return [...list].sort((a, b) => (orderBy === 'id' ? a.id - b.id : a.username.localeCompare(b.username)) * sign);
}

export const serviceAccounts = crudModule<StoredServiceAccount>(declared, {
  table: 'users',
  notFound: 'User',
  servedElsewhere: [declared.parents.instance.routes.delete],
  // A route names any user of its owner (the instance's: any not provisioned by a group); the lists show the service accounts.
  visible: (db, parent, where) => (users(db) as unknown as StoredServiceAccount[]).filter((u) => u.provisioned_by_group_id === (atGroup(where) ? parent.id : undefined)),
  listed: (records, req) => sorted(req, records.filter(isServiceAccount)),
  filters: { order_by: () => true, sort: () => true },
  choose(matches, req, where) {
    const [user] = matches;
    if (user && !isServiceAccount(user)) throw atGroup(where) ? errors.badRequest('User is not of type Service Account') : errors.message(400, 'User is not of type Service Account');
    return user;
  },
  validate: check,
  onInsert(account, { now }) {
    const groupId = account.group_id;
    delete account.group_id;
    delete account.instance_id;
    Object.assign(account, { state: 'active', is_admin: false, bot: true, external: false, user_type: 'service_account', created_at: now.toISOString() });
    if (groupId !== undefined) account.provisioned_by_group_id = groupId;
  },
  // unconfirmed_email only while a changed email waits for its confirmation.
  computed: (account) => ({ unconfirmed_email: account.unconfirmed_email || undefined }),
  // At once here (the service deletes in the background); one that alone owns a group is kept without hard_delete (409).
  beforeDelete: (account, req) => deleteBelongings(req.db, account as unknown as User, Boolean(bool(req.input.hard_delete))),
  routes: (api) => tokenRoutes(api),
  // The demo's instance service account (a Reporter in acme, from the members' seed) gets a token for its automation.
  seedAfter: ['members'],
  seed(db, { seed, now }) {
    const deployer = seed === 'demo' ? users(db).find((u) => u.username === 'service_account_deploy') : undefined;
    if (deployer) addToken(db, deployer, { name: 'deploy', description: 'Deploys from CI', scopes: ['api'], expires_at: isoDate(now, 60) }, now);
  },
});

const groupPlacement = placed(declared, 'group');

/** The group's service account the route names, for its Owners (404 when the group did not make it, 400 when it is no service account). */
const groupAccount = (req: SandboxRequest): User => serviceAccounts.find(req, parentOf(groupPlacement, req, Role.owner), 'group') as unknown as User;

const personalTokensOf = (db: Db, user: User): AccessToken[] => tokens(db).filter((t) => t.kind === 'personal' && t.user_id === user.id);

/** One token of the account the route names: 404 otherwise. */
function accountToken(req: SandboxRequest, account: User): AccessToken {
  return found(personalTokensOf(req.db, account).find((t) => t.id === int(req.params.token_id, 'token_id')), 'Personal Access Token');
}

/** The personal access tokens of a group's service accounts, under the group's routes. */
function tokenRoutes(api: Router): void {
  const routes = groupServiceAccountTokens.routes;
  api.route(routes.list, (req) => paginate(req, filterTokens(req, personalTokensOf(req.db, groupAccount(req))), { present: presentPersonalToken }));
  api.route(routes.create, (req) => created(withValue(createPersonalToken(req, groupAccount(req)))));
  api.route(routes.delete, (req) => {
    revokeToken(accountToken(req, groupAccount(req)));
    return noContent();
  });
  // A rotation authenticates itself: the old token presented again revokes its family (reuse detection).
  api.route(routes.rotate, (req) => {
    authenticateRotation(req);
    checkScope(req, 'write');
    const token = accountToken(req, groupAccount(req));
    return ok(withValue(rotate(req, token, () => errors.badRequest('Token already revoked'))));
  }, { auth: 'none' });
}
