import { toQueryString, type Query } from '../../api/path.js';
import { users as declared } from './resource.js';
import { requireUser } from '../../sandbox/auth.js';
import { bool, errors, HttpError, int, ok, type SandboxRequest, type SandboxResponse } from '../../sandbox/http.js';
import { members, projects, users as usersTable, type User } from '../../sandbox/model.js';
import { backwards, paginate, type Sequence } from '../../sandbox/pagination.js';
import { groupChain } from '../../sandbox/hierarchy.js';
import { recordOrder } from '../../sandbox/listing.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { filterUsers, identities, isPremium, presentFullUser } from '../../sandbox/users.js';
import { presentUserBasic } from '../../sandbox/present.js';
import { found } from '../../sandbox/records.js';

/**
 * Users (spec document 3, api-facts §1.15): the list with everyone's and the administrator's filters, offset and
 * keyset pagination, and single users. Optional fields a test or seed may set on a user record:
 * user_type, two_factor_enabled, identities, is_auditor, public_email, custom_attributes, updated_at, created_by_id.
 */

const ORDER_BY = ['id', 'name', 'username', 'created_at', 'updated_at'];
/** Users with access to no project through membership (of the project or of one of its groups). */
function projectMemberIds(req: SandboxRequest): Set<number> {
  const groupIdsWithProjects = new Set<number>();
  for (const project of projects(req.db)) {
    for (const group of groupChain(req.db, project.namespace_id)) groupIdsWithProjects.add(group.id);
  }
  return new Set(
    members(req.db)
      .filter((m) => m.source_type === 'project' || groupIdsWithProjects.has(m.source_id))
      .map((m) => m.user_id),
  );
}

/** The administrator's filters; others' are ignored, except extern_uid with provider, which answers 403. */
function filterAsAdmin(req: SandboxRequest, list: readonly User[]): readonly User[] {
  const q = req.query;
  if (q.extern_uid && q.provider && !req.user?.is_admin) throw errors.forbidden();
  if (!req.user?.is_admin) return list;
  if (q.extern_uid && q.provider) {
    list = list.filter((u) => identities(u).some((i) => i.provider === String(q.provider) && i.extern_uid === String(q.extern_uid)));
  }
  if (q.two_factor === 'enabled') list = list.filter((u) => u.two_factor_enabled === true);
  if (q.two_factor === 'disabled') list = list.filter((u) => u.two_factor_enabled !== true);
  if (bool(q.without_projects)) {
    const withProjects = projectMemberIds(req);
    list = list.filter((u) => !withProjects.has(u.id));
  }
  if (bool(q.admins)) list = list.filter((u) => u.is_admin);
  if (isPremium(req)) {
    if (bool(q.auditors)) list = list.filter((u) => u.is_auditor === true);
    const samlProvider = int(q.saml_provider_id, 'saml_provider_id');
    if (samlProvider !== undefined) list = list.filter((u) => identities(u).some((i) => i.saml_provider_id === samlProvider));
    if (bool(q.skip_ldap)) list = list.filter((u) => !identities(u).some((i) => i.provider.startsWith('ldap')));
  }
  const attributes = q.custom_attributes;
  if (attributes && typeof attributes === 'object' && !Array.isArray(attributes)) {
    list = list.filter((u) => Object.entries(attributes as Record<string, string>).every(([k, v]) => (u.custom_attributes as Record<string, string> | undefined)?.[k] === v));
  }
  return list;
}

type Position = { value: unknown; id: number };

const fieldOf = (user: User, orderBy: string): unknown => (orderBy === 'updated_at' ? (user.updated_at ?? user.created_at) : user[orderBy]);

/** Order and direction with the id as the tie-breaker, so offset and keyset pages agree on one order. */
const ordering = (orderBy: string, sort: 'asc' | 'desc'): ((a: Position, b: Position) => number) =>
  recordOrder<Position>((position) => (orderBy === 'id' ? 0 : (position.value as string | number | null | undefined)), sort);

const positionOf = (user: User, orderBy: string): Position => ({ value: fieldOf(user, orderBy), id: user.id });

function orderParams(req: SandboxRequest): { orderBy: string; sort: 'asc' | 'desc' } {
  const orderBy = req.query.order_by === undefined ? 'id' : String(req.query.order_by);
  const sort = req.query.sort === undefined ? 'desc' : String(req.query.sort);
  if (!ORDER_BY.includes(orderBy)) throw errors.error(400, 'order_by does not have a valid value');
  if (sort !== 'asc' && sort !== 'desc') throw errors.error(400, 'sort does not have a valid value');
  // Ordering is for administrators; everyone else gets the default order.
  return req.user?.is_admin ? { orderBy, sort } : { orderBy: 'id', sort: 'desc' };
}

/** Where a keyset page starts: the cursor of a Link header ({field, id, _kd}), or id_after. */
function keysetStart(req: SandboxRequest, orderBy: string): Position | undefined {
  if (req.query.cursor) {
    let cursor: Record<string, unknown>;
    try {
      cursor = JSON.parse(Buffer.from(String(req.query.cursor), 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      throw errors.invalid('cursor');
    }
    const id = Number(cursor.id);
    if (!Number.isInteger(id)) throw errors.invalid('cursor');
    return { value: cursor[orderBy], id };
  }
  if (req.query.id_after !== undefined) {
    const id = int(req.query.id_after, 'id_after')!;
    const user = usersTable(req.db).find((u) => u.id === id);
    return { value: user ? fieldOf(user, orderBy) : undefined, id };
  }
  return undefined;
}

function keysetPage(req: SandboxRequest, ordered: Sequence<User>, orderBy: string, sort: 'asc' | 'desc', present: (u: User) => unknown): SandboxResponse {
  const perPage = Math.min(100, Math.max(1, Number(req.query.per_page) || 20));
  const compare = ordering(orderBy, sort);
  const start = keysetStart(req, orderBy);
  // First record strictly after the start position (binary search: the list is in this order).
  let from = 0;
  if (start) {
    let high = ordered.length;
    while (from < high) {
      const middle = (from + high) >>> 1;
      if (compare(positionOf(ordered.at(middle)!, orderBy), start) <= 0) from = middle + 1;
      else high = middle;
    }
  }
  const slice = ordered.slice(from, from + perPage);
  const headers: Record<string, string> = {};
  const last = slice[slice.length - 1];
  if (last && from + perPage < ordered.length) {
    const position: Record<string, unknown> = orderBy === 'id' ? {} : { [orderBy]: fieldOf(last, orderBy) };
    const cursor = Buffer.from(JSON.stringify({ ...position, id: String(last.id), _kd: 'n' })).toString('base64url');
    const query: Query = { ...(req.query as Query), per_page: perPage, cursor, pagination: 'keyset' };
    delete query.page;
    delete query.id_after;
    headers.Link = `<${req.baseUrl}${req.rawPath}${toQueryString(query)}>; rel="next"`;
  }
  return { status: 200, body: slice.map(present), headers };
}

export const users: SandboxModule = {
  routes(api) {
    api.route(declared.routes.current, (req) => ok(presentFullUser(requireUser(req), req)), { scope: 'read_user' });

    api.route(declared.routes.list, (req) => {
      const { orderBy, sort } = orderParams(req);
      const compare = ordering(orderBy, sort);
      const list = filterAsAdmin(req, filterUsers(req));
      // The table is in id order: the default order (id desc) is the list read backwards, nothing sorted or copied.
      const ordered = orderBy === 'id' ? (sort === 'asc' ? list : backwards(list)) : [...list].sort((a, b) => compare(positionOf(a, orderBy), positionOf(b, orderBy)));
      // Everyone else sees the list item fields of the spec; administrators the full record with their fields.
      const present = req.user?.is_admin ? (u: User) => presentFullUser(u, req) : (u: User) => presentUserBasic(u, req.rootUrl);
      if (req.query.pagination === 'keyset') return keysetPage(req, ordered, orderBy, sort, present);
      return paginate(req, ordered, { offsetLimit: 'User', present });
    }, { scope: 'read_user' });

    api.route(declared.routes.get, (req) => {
      requireUser(req);
      if (!/^\d+$/.test(req.params.user)) throw new HttpError(400, { error: 'id is invalid' });
      const user = found(usersTable(req.db).find((u) => u.id === Number(req.params.user)), 'User');
      return ok(presentFullUser(user, req));
    }, { scope: 'read_user' });
  },
};
