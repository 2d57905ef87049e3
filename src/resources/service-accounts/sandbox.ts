import { randomBytes } from 'node:crypto';
import { authenticateRotation, createPersonalToken, filterTokens, revokeToken, rotate, withValue } from '../../sandbox/access-tokens.js';
import { checkScope, groupFor, requireAdmin, requireTier, Role } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { bool, created, errors, int, noContent, ok, type SandboxRequest } from '../../sandbox/http.js';
import { emailTable, tokens, users, type AccessToken, type Group, type User } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { paginate } from '../../sandbox/pagination.js';
import { presentPersonalToken } from '../../sandbox/present.js';
import { addToken, addUser, isoDate } from '../../sandbox/seed.js';
import { deleteUser, userType } from '../../sandbox/users.js';
import { groupServiceAccountTokens, serviceAccounts as declared, USERNAME_PATTERN } from './resource.js';

/**
 * Service accounts (the service's Service accounts API; Premium and Ultimate): users of type service_account, an
 * instance's (administrators) or provisioned by a top-level group (its Owners), and the personal access tokens of a
 * group's accounts under the group's routes. An instance's accounts' tokens are personal tokens: the access tokens
 * module serves them. Their rotation is the access tokens' (src/sandbox/access-tokens.ts), reuse detection included.
 */

const isServiceAccount = (user: User): boolean => userType(user) === 'service_account';
const provisionedBy = (user: User): number | undefined => user.provisioned_by_group_id as number | undefined;

/** A service account as the service presents one (Entities::ServiceAccount): unconfirmed_email only while there is one. */
function present(user: User): Record<string, unknown> {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    email: user.email,
    public_email: user.public_email ?? null,
    ...(user.unconfirmed_email ? { unconfirmed_email: user.unconfirmed_email } : {}),
  };
}

/** order_by (id, username) and sort (desc unless asc), as Grape checks them. */
function sorted(req: SandboxRequest, list: User[]): User[] {
  const orderBy = String(req.query.order_by ?? 'id');
  const sort = String(req.query.sort ?? 'desc');
  if (!['id', 'username'].includes(orderBy)) throw errors.invalid('order_by');
  if (!['asc', 'desc'].includes(sort)) throw errors.invalid('sort');
  const sign = sort === 'asc' ? 1 : -1;
  return [...list].sort((a, b) => (orderBy === 'id' ? a.id - b.id : a.username.localeCompare(b.username)) * sign);
}

/** The host of the no-reply addresses: the instance's. */
const noreplyHost = (req: SandboxRequest): string => `noreply.${new URL(req.rootUrl).hostname}`;

/**
 * A new service account from a create request: what is not given is generated as the service does (a username
 * `<prefix>_<hash>`, the name "Service account user", a no-reply email). Taken names are refused as the user model
 * refuses them, every message in one sentence.
 */
function createAccount(req: SandboxRequest, prefix: string, group?: Group): User {
  const given = (name: string): string | undefined => (req.input[name] === undefined || req.input[name] === null || req.input[name] === '' ? undefined : String(req.input[name]));
  const username = given('username') ?? `${prefix}_${randomBytes(16).toString('hex')}`;
  const email = given('email') ?? `${username}@${noreplyHost(req)}`;
  const problems = accountProblems(req.db, { username, email });
  if (problems.length) throw errors.badRequest(problems.join(' and '));
  return addUser(req.db, {
    username, name: given('name') ?? 'Service account user', email, bot: true, external: true, user_type: 'service_account',
    ...(group ? { provisioned_by_group_id: group.id } : {}), created_by_id: req.user!.id,
  }, req.now());
}

/** What the user model says of a username and an email (the account's own taken ones excepted). */
function accountProblems(db: Db, fields: { username?: string; email?: string }, self?: User): string[] {
  const problems: string[] = [];
  const { username, email } = fields;
  if (username !== undefined) {
    if (!USERNAME_PATTERN.test(username) || /\.(git|atom)$/.test(username)) problems.push("Username can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.");
    else if (users(db).some((u) => u !== self && u.username.toLowerCase() === username.toLowerCase())) problems.push('Username has already been taken');
  }
  if (email !== undefined) {
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) problems.push('Email is invalid');
    else if (users(db).some((u) => u !== self && u.email.toLowerCase() === email.toLowerCase()) || emailTable(db).some((e) => e.user_id !== self?.id && e.email.toLowerCase() === email.toLowerCase())) {
      problems.push('Email has already been taken');
    }
  }
  return problems;
}

/** PATCH: name, username and email as given; 400 with the model's messages. */
function updateAccount(req: SandboxRequest, account: User): User {
  const changes: { name?: string; username?: string; email?: string } = {};
  for (const name of ['name', 'username', 'email'] as const) if (req.input[name] !== undefined) changes[name] = String(req.input[name]);
  const problems = accountProblems(req.db, changes, account);
  if (changes.name !== undefined && !changes.name.trim()) problems.push("Name can't be blank");
  if (problems.length) throw errors.message(400, problems.join(' and '));
  Object.assign(account, changes, { updated_at: req.now().toISOString() });
  return account;
}

/** The top-level group of the route, managed by its Owners and administrators, on Premium and Ultimate. */
function managedGroup(req: SandboxRequest): Group {
  const group = groupFor(req, Role.owner);
  requireTier(req, 'premium');
  return group;
}

/** One of the group's service accounts: 404 when the group did not provision it, 400 when it is no service account. */
function groupAccount(req: SandboxRequest, group: Group): User {
  const id = int(req.params.user, 'user_id');
  const user = users(req.db).find((u) => u.id === id && provisionedBy(u) === group.id);
  if (!user) throw errors.notFound('User');
  if (!isServiceAccount(user)) throw errors.badRequest('User is not of type Service Account');
  return user;
}

const personalTokensOf = (db: Db, user: User): AccessToken[] => tokens(db).filter((t) => t.kind === 'personal' && t.user_id === user.id);


function instanceRoutes(api: Parameters<SandboxModule['routes']>[0]): void {
  const routes = declared.parents.instance.routes;
  const administer = (req: SandboxRequest): void => {
    requireAdmin(req);
    requireTier(req, 'premium');
  };
  api.route(routes.list, (req) => {
    administer(req);
    return paginate(req, sorted(req, users(req.db).filter((u) => isServiceAccount(u) && provisionedBy(u) === undefined)), { present });
  });
  api.route(routes.create, (req) => {
    administer(req);
    return created(present(createAccount(req, 'service_account')));
  });
  api.route(routes.update, (req) => {
    administer(req);
    const account = users(req.db).find((u) => u.id === int(req.params.user, 'user_id'));
    if (!account) throw errors.notFound('User');
    if (!isServiceAccount(account)) throw errors.message(400, 'User is not of type Service Account');
    return ok(present(updateAccount(req, account)));
  });
  // DELETE /users/{user}, the instance's accounts' delete route, is the users API's (src/resources/users).
}

function groupRoutes(api: Parameters<SandboxModule['routes']>[0]): void {
  const routes = declared.parents.group.routes;
  api.route(routes.list, (req) => {
    const group = managedGroup(req);
    return paginate(req, sorted(req, users(req.db).filter((u) => isServiceAccount(u) && provisionedBy(u) === group.id)), { present });
  });
  api.route(routes.create, (req) => {
    const group = managedGroup(req);
    // Only a top-level group provisions service accounts (its subgroups' members inherit them).
    if (group.parent_id) throw errors.badRequest('User does not have permission to create a service account in this namespace.');
    return created(present(createAccount(req, `service_account_group_${group.id}`, group)));
  });
  api.route(routes.update, (req) => {
    const account = groupAccount(req, managedGroup(req));
    return ok(present(updateAccount(req, account)));
  });
  // At once here (the service deletes in the background); one that alone owns a group is kept without hard_delete (409).
  api.route(routes.delete, (req) => {
    deleteUser(req.db, groupAccount(req, managedGroup(req)), Boolean(bool(req.input.hard_delete)));
    return noContent();
  });

  const tokenRoutes = groupServiceAccountTokens.routes;
  api.route(tokenRoutes.list, (req) => {
    const account = groupAccount(req, managedGroup(req));
    return paginate(req, filterTokens(req, personalTokensOf(req.db, account)), { present: presentPersonalToken });
  });
  api.route(tokenRoutes.create, (req) => {
    const account = groupAccount(req, managedGroup(req));
    return created(withValue(createPersonalToken(req, account)));
  });
  api.route(tokenRoutes.delete, (req) => {
    const account = groupAccount(req, managedGroup(req));
    const token = personalTokensOf(req.db, account).find((t) => t.id === int(req.params.token_id, 'token_id'));
    if (!token) throw errors.notFound('Personal Access Token');
    revokeToken(token);
    return noContent();
  });
  // A rotation authenticates itself: the old token presented again revokes its family (reuse detection).
  api.route(tokenRoutes.rotate, (req) => {
    authenticateRotation(req);
    checkScope(req, 'write');
    const account = groupAccount(req, managedGroup(req));
    const token = personalTokensOf(req.db, account).find((t) => t.id === int(req.params.token_id, 'token_id'));
    if (!token) throw errors.notFound();
    return ok(withValue(rotate(req, token, () => errors.badRequest('Token already revoked'))));
  }, { auth: 'none' });
}

export const serviceAccountsModule: SandboxModule = {
  routes(api) {
    instanceRoutes(api);
    groupRoutes(api);
  },
  // The demo's instance service account (a Reporter in acme, from the members' seed) gets a token for its automation.
  seedAfter: ['members'],
  seed(db, { seed, now }) {
    const deployer = seed === 'demo' ? users(db).find((u) => u.username === 'service_account_deploy') : undefined;
    if (deployer) addToken(db, deployer, { name: 'deploy', description: 'Deploys from CI', scopes: ['api'], expires_at: isoDate(now, 60) }, now);
  },
};

/** Registered as `service-accounts` in routes/index.ts. */
export { serviceAccountsModule as serviceAccounts };
