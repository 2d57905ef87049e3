import { findGroup, findProject, Role } from '../../sandbox/auth.js';
import { addAuditEvent, INSTANCE_SCOPE } from '../../sandbox/audit.js';
import { crudModule, type Where } from '../../sandbox/crud.js';
import { errors, int, type SandboxRequest } from '../../sandbox/http.js';
import { approvalRules, auditEventsTable, protectedBranches, users, type StoredAuditEvent } from '../../sandbox/model.js';
import { parentOf } from '../../sandbox/records.js';
import { auditEvents as declared } from './resource.js';
import { timeParam } from '../../sandbox/listing.js';

/**
 * The audit event lists (Premium), served from their declaration: the instance's for administrators (filtered by
 * entity too), a group's for its owners, a project's for its maintainers; newest first, offset or keyset pagination
 * (order by id, descending). The filters hold for one event too: one outside them is 404. The events themselves are
 * recorded where every write is dispatched (src/sandbox/audit.ts).
 */

const ENTITY_TYPES = ['User', 'Group', 'Project', INSTANCE_SCOPE.type];

/** The instance's list filtered by entity: `entity_type`, and `entity_id` with it. */
function instanceFilter(req: SandboxRequest): { type: string; id?: number } | undefined {
  const type = req.query.entity_type as string | undefined;
  const id = int(req.query.entity_id, 'entity_id');
  if (type === undefined || type === '') {
    if (id !== undefined) throw errors.error(400, 'entity_type is missing');
    return undefined;
  }
  if (!ENTITY_TYPES.includes(type)) throw errors.error(400, 'entity_type does not have a valid value');
  return { type, id };
}

/** The events the request's filters select: the instance's entity filter, then the time window. */
function selected(req: SandboxRequest, events: StoredAuditEvent[], where: Where): StoredAuditEvent[] {
  const entity = where.placement.parent === 'instance' ? instanceFilter(req) : undefined;
  const after = timeParam(req, 'created_after');
  const before = timeParam(req, 'created_before');
  const at = (event: StoredAuditEvent): number => Date.parse(event.created_at);
  return events.filter(
    (event) =>
      (!entity || (event.entity_type === entity.type && (entity.id === undefined || event.entity_id === entity.id))) &&
      (after === undefined || at(event) >= after) &&
      (before === undefined || at(event) <= before),
  );
}

export const auditEvents = crudModule<StoredAuditEvent>(declared, {
  // The instance's events are for administrators and a group's for its owners; a project's for its maintainers, as declared.
  parent: (req, placement, minRole) => parentOf(placement, req, placement.parent === 'project' ? minRole : Role.owner),
  // A group's and a project's events are those whose entity they are; newest first.
  visible: (db, parent, { placement }) =>
    auditEventsTable(db).filter((event) => placement.parent === 'instance' || (event.entity_type === (placement.parent === 'group' ? 'Group' : 'Project') && event.entity_id === parent.id)).reverse(),
  listed: (events, req, where) => selected(req, events, where),
  choose: (matches, req, where) => selected(req, matches, where)[0],
  keyset: { orderBy: ['id'], id: (event) => event.id },

  // Some history: who set up acme and its projects over the last days, naming the protection and the approval rule
  // those modules seed.
  seedAfter: ['merge-request-approvals'],
  seed(db, { now }) {
    const user = (name: string) => users(db).find((u) => u.username === name);
    const root = user('root');
    const alice = user('alice');
    const bob = user('bob');
    if (!root || !alice || !bob) return;
    const daysAgo = (days: number, hour = 10) => new Date(now.getTime() - days * 86_400_000 + hour * 60_000);
    const acme = findGroup(db, 'acme');
    const api = findProject(db, 'acme/api');
    const web = findProject(db, 'acme/web');
    const branch = protectedBranches(db).find((b) => b.project_id === api.id && b.name === api.default_branch);
    const rule = approvalRules(db).find((r) => r.project_id === api.id);
    const group = { type: 'Group', id: acme.id, path: acme.full_path };
    const project = (p: typeof api) => ({ type: 'Project', id: p.id, path: p.path_with_namespace });
    addAuditEvent(db, { author: root, entity: group, target: { type: 'User', id: alice.id, details: alice.username }, at: daysAgo(10), eventName: 'member_created', what: { add: 'user_access', as: 'Maintainer' } });
    addAuditEvent(db, { author: alice, entity: group, target: { type: 'User', id: bob.id, details: bob.username }, at: daysAgo(9), eventName: 'member_created', what: { add: 'user_access', as: 'Developer' } });
    addAuditEvent(db, { author: root, entity: project(api), target: { type: 'Project', id: api.id, details: api.path_with_namespace }, at: daysAgo(10, 5), eventName: 'project_created', what: { add: 'project' } });
    addAuditEvent(db, { author: root, entity: project(web), target: { type: 'Project', id: web.id, details: web.path_with_namespace }, at: daysAgo(10, 6), eventName: 'project_created', what: { add: 'project' } });
    addAuditEvent(db, { author: alice, entity: project(api), target: { type: 'ProtectedBranch', id: branch?.id ?? 0, details: api.default_branch }, at: daysAgo(8), eventName: 'protected_branch_updated', what: { change: 'push_access_levels', from: 'Developers + Maintainers', to: 'Maintainers' } });
    addAuditEvent(db, { author: alice, entity: project(api), target: { type: 'ApprovalProjectRule', id: rule?.id ?? 0, details: rule?.name ?? 'Maintainers' }, at: daysAgo(3), eventName: 'approval_rule_updated', what: { change: 'approvals_required', from: 0, to: 1 } });
    addAuditEvent(db, { author: root, entity: { ...INSTANCE_SCOPE }, target: { type: 'ApplicationSetting', id: 1, details: 'application settings' }, at: daysAgo(2), eventName: 'application_setting_updated', what: { change: 'signup_enabled', from: true, to: false } });
  },
});
