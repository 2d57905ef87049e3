import { findGroup, findProject, groupFor, projectFor, requireAdmin, requireTier, Role } from '../../sandbox/auth.js';
import { addAuditEvent, INSTANCE_SCOPE } from '../../sandbox/audit.js';
import { errors, int, ok, type SandboxRequest } from '../../sandbox/http.js';
import { approvalRules, auditEventsTable, protectedBranches, users, type StoredAuditEvent } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { auditEvents as declared } from './resource.js';
import { paginate } from '../../sandbox/pagination.js';
import { timeParam } from '../../sandbox/listing.js';

/**
 * The audit event lists (Premium): the instance's for administrators (filtered by entity too), a group's for its
 * owners, a project's for its maintainers; newest first, offset or keyset pagination (order by id, descending).
 * The events themselves are recorded where every write is dispatched (src/sandbox/audit.ts).
 */

/** Events of one entity (or every entity), in a time window, newest first. */
function eventsOf(req: SandboxRequest, entity?: { type: string; id?: number }): StoredAuditEvent[] {
  const after = timeParam(req, 'created_after');
  const before = timeParam(req, 'created_before');
  const at = (event: StoredAuditEvent): number => Date.parse(event.created_at);
  const all = auditEventsTable(req.db);
  const found: StoredAuditEvent[] = [];
  for (let i = all.length - 1; i >= 0; i--) {
    const event = all[i];
    if (entity && (event.entity_type !== entity.type || (entity.id !== undefined && event.entity_id !== entity.id))) continue;
    if (after !== undefined && at(event) < after) continue;
    if (before !== undefined && at(event) > before) continue;
    found.push(event);
  }
  return found;
}

const page = (req: SandboxRequest, events: StoredAuditEvent[]) => paginate(req, events, { keyset: { orderBy: ['id'], id: (event) => event.id } });

function one(req: SandboxRequest, events: StoredAuditEvent[]) {
  const event = events.find((e) => String(e.id) === req.params.audit_event_id);
  if (!event) throw errors.notFound('Audit Event');
  return ok(event);
}

const ENTITY_TYPES = ['User', 'Group', 'Project', INSTANCE_SCOPE.type];

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

export const auditEvents: SandboxModule = {
  routes(api) {
    const instance = (req: SandboxRequest) => {
      requireAdmin(req);
      requireTier(req, 'premium');
      return eventsOf(req, instanceFilter(req));
    };
    const { instance: atInstance, group: atGroup, project: atProject } = declared.parents;
    api.route(atInstance.routes.list, (req) => page(req, instance(req)));
    api.route(atInstance.routes.get, (req) => one(req, instance(req)));

    const ofGroup = (req: SandboxRequest) => {
      const group = groupFor(req, Role.owner);
      requireTier(req, 'premium');
      return eventsOf(req, { type: 'Group', id: group.id });
    };
    api.route(atGroup.routes.list, (req) => page(req, ofGroup(req)));
    api.route(atGroup.routes.get, (req) => one(req, ofGroup(req)));

    const ofProject = (req: SandboxRequest) => {
      const project = projectFor(req, Role.maintainer);
      requireTier(req, 'premium');
      return eventsOf(req, { type: 'Project', id: project.id });
    };
    api.route(atProject.routes.list, (req) => page(req, ofProject(req)));
    api.route(atProject.routes.get, (req) => one(req, ofProject(req)));
  },

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
};
