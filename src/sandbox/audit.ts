import { auditTargetType, type AuditDetails } from '../resources/audit-events/resource.js';
import { findGroup, findProject } from './auth.js';
import type { Db } from './db.js';
import type { SandboxRequest, SandboxResponse } from './http.js';
import { auditEventsTable, users, type User } from './model.js';
import { safeDecode, type Router } from './router.js';

/**
 * Audit events of the simulated instance, recorded once for every change made through the API: dispatch calls
 * `auditBefore` before a write runs and `recordAudit` after it succeeded, so every module (those of today and those
 * to come) gets its events without a line of its own. What the event says comes from the request itself: the author
 * (the token's user, and the administrator behind a sudo), the entity the path names (a project, a group, a user or
 * the instance), the target (the collection in the path, its key, and the record's own name where the answer or the
 * record read before the change shows it) and, for an update, which fields changed from what to what (never a
 * value, token, password or other secret).
 */

/** Instance-level events belong to this entity, as the service files them. */
export const INSTANCE_SCOPE = { type: 'Gitlab::Audit::InstanceScope', id: 1, path: 'gitlab_instance' };

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Fields that never go into an event's from/to: secrets, and what changes on every write. */
const NOT_SHOWN = /value|token|password|secret|credential|^(created_at|updated_at|last_\w+)$/i;
/** Paths that change nothing an administrator audits (rendering, validation, previews). */
const NOT_AUDITED = /^\/(markdown|ci\/lint|projects\/[^/]+\/ci\/lint|projects\/[^/]+\/badges\/render)$|\/(render|preview)$/;

type Record_ = Record<string, unknown>;

interface Target {
  entity: { type: string; id: number; path: string; level: 'project' | 'group' | 'instance' | 'user' };
  /** Path segments below the entity. */
  rest: string[];
}

/** The entity a path names: /projects/:id/…, /groups/:id/…, /users/:id/…, else the instance. */
function entityOf(db: Db, rawPath: string, answer: unknown): Target | undefined {
  const segments = rawPath.split('/').filter(Boolean).map(safeDecode);
  const [kind, id, ...rest] = segments;
  try {
    if (kind === 'projects' && id !== undefined) {
      const project = findProject(db, id);
      return { entity: { type: 'Project', id: project.id, path: project.path_with_namespace, level: 'project' }, rest };
    }
    if (kind === 'groups' && id !== undefined) {
      const group = findGroup(db, id);
      return { entity: { type: 'Group', id: group.id, path: group.full_path, level: 'group' }, rest };
    }
  } catch {
    // A project or group that the request itself removed: its record is in the answer read before, or gone.
    return undefined;
  }
  // Creating a project or group: the new one is the entity.
  const created = answer as Record_ | undefined;
  if ((kind === 'projects' || kind === 'groups') && id === undefined && created && typeof created.id === 'number') {
    const level = kind === 'projects' ? 'project' : 'group';
    const path = String(created.path_with_namespace ?? created.full_path ?? created.path ?? '');
    return { entity: { type: level === 'project' ? 'Project' : 'Group', id: created.id, path, level }, rest: [] };
  }
  if (kind === 'users' && id !== undefined && /^\d+$/.test(id)) {
    const user = users(db).find((u) => u.id === Number(id));
    if (user) return { entity: { type: 'User', id: user.id, path: user.username, level: 'user' }, rest };
  }
  return { entity: { ...INSTANCE_SCOPE, level: 'instance' }, rest: segments };
}

/** What names a record for people: a variable's key, a member's username, a badge's or branch's name, a hook's URL. */
function labelOf(record: unknown): string | undefined {
  if (!record || typeof record !== 'object' || Array.isArray(record)) return undefined;
  const r = record as Record_;
  // A runner is named by its description (its `name` is the runner program's, the same for all).
  if (typeof r.runner_type === 'string' && typeof r.description === 'string' && r.description) return r.description;
  for (const name of ['key', 'username', 'name', 'title', 'url', 'path_with_namespace', 'full_path']) {
    if (typeof r[name] === 'string' && r[name] !== '') return r[name];
  }
  return undefined;
}

/** A user's state changes (POST /users/:id/block …), as the service names their events: user_blocked, "Blocked user". */
const USER_STATE_EVENTS: Record<string, string> = {
  block: 'blocked', unblock: 'unblocked', ban: 'banned', unban: 'unbanned', deactivate: 'deactivated', activate: 'activated', approve: 'approved',
};

const isRecord = (value: unknown): value is Record_ => Boolean(value) && typeof value === 'object' && !Array.isArray(value);
const singular = (collection: string): string => collection.replace(/ies$/, 'y').replace(/(ss|sh|ch|x)es$/, '$1').replace(/s$/, '').replace(/_/g, ' ');

/**
 * The record a write is about, as it was before (read through the GET route of the same path, as the writer): for
 * an update it gives the from values, for a delete the name of what goes. Undefined when there is no such route or
 * it refuses.
 */
export async function auditBefore(router: Router, req: SandboxRequest): Promise<Record_ | undefined> {
  if (req.method !== 'PUT' && req.method !== 'PATCH' && req.method !== 'DELETE') return undefined;
  const route = router.match('GET', req.rawPath);
  if (!route) return undefined;
  try {
    const answer = await route.handler({ ...req, method: 'GET', params: route.params, query: {}, input: {} });
    return answer.status === 200 && isRecord(answer.body) ? structuredClone(answer.body) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The fields an update changed, compared as JSON, secrets and timestamps left out: those the request named, or
 * (when it named them otherwise: user_ids for users) every field that moved.
 */
function changedFields(req: SandboxRequest, before: Record_, after: Record_): Array<{ field: string; from: unknown; to: unknown }> {
  const moved = Object.keys(after)
    .filter((field) => !NOT_SHOWN.test(field) && field in before && JSON.stringify(before[field]) !== JSON.stringify(after[field]))
    .map((field) => ({ field, from: before[field], to: after[field] }));
  const named = moved.filter((change) => change.field in req.input);
  return named.length ? named : moved;
}

/**
 * A value as an event shows it: who an access list allows by their words ("Developers + Maintainers, Alice"), as
 * the service's events say it, not the entries' JSON.
 */
function readable(value: unknown): unknown {
  const entries = Array.isArray(value) && value.every((entry) => isRecord(entry) && 'access_level_description' in entry) ? (value as Record_[]) : undefined;
  return entries ? entries.map((entry) => String(entry.access_level_description)).join(', ') || 'No one' : value;
}

/** Records the event of a write that succeeded. */
export function recordAudit(req: SandboxRequest, response: SandboxResponse, before: Record_ | undefined): void {
  if (!WRITES.has(req.method) || response.status >= 400 || !req.user || NOT_AUDITED.test(req.rawPath)) return;
  const answer = isRecord(response.body) ? response.body : undefined;
  const located = entityOf(req.db, req.rawPath, req.method === 'POST' ? answer : undefined);
  if (!located) return;
  const { entity } = located;
  // The instance's settings and plan limits live under /application/: named as the collections they are.
  const rest = entity.level === 'instance' && located.rest[0] === 'application' && located.rest.length === 2
    ? [located.rest[1] === 'settings' ? 'application_settings' : located.rest[1]]
    : located.rest;
  const level = entity.level === 'user' ? 'instance' : entity.level;

  // The collection and key the path names: [collection, key, collection, key …], maybe ending in an action.
  let collection = rest.length >= 2 ? rest[rest.length - (rest.length % 2 === 0 ? 2 : 1)] : rest[0];
  let key = rest.length % 2 === 0 ? rest[rest.length - 1] : undefined;
  let action: string | undefined;
  const last = rest[rest.length - 1];
  if (rest.length % 2 === 1 && rest.length >= 3 && (!last.endsWith('s') || last === 'reset_approvals')) {
    // An action on a record (approve, rotate, unprotect): the record is the pair before it.
    action = last;
    collection = rest[rest.length - 3];
    key = rest[rest.length - 2];
  }
  const userState = entity.level === 'user' && req.method === 'POST' && rest.length === 1 ? USER_STATE_EVENTS[rest[0]] : undefined;
  const self = rest.length === 0 || userState !== undefined;
  const targetType = self ? entity.type : auditTargetType(collection, level);
  const record = answer ?? before;
  // A key in the path that is a name (a variable's key, a branch, an integration's slug) names the target; an id
  // does not, so the record's own name does.
  const pathName = key !== undefined && !/^\d+$/.test(key) ? key : undefined;
  const named = self ? entity.path : pathName ?? labelOf(before) ?? labelOf(answer) ?? key ?? singular(collection);
  const targetId = (!self && typeof record?.id === 'number' ? record.id : undefined) ?? (key && /^\d+$/.test(key) ? Number(key) : entity.id);
  const noun = self ? entity.type.toLowerCase() : singular(collection);

  const what: AuditDetails = {};
  let eventName: string;
  if (userState) {
    what.custom_message = `${userState[0].toUpperCase()}${userState.slice(1)} user ${entity.path}`;
    eventName = `user_${userState}`;
  } else if (action) {
    what.custom_message = `${action.replace(/_/g, ' ')} ${noun} ${named}`;
    eventName = `${noun.replace(/ /g, '_')}_${action}`;
  } else if (req.method === 'DELETE') {
    what.remove = noun;
    eventName = `${noun.replace(/ /g, '_')}_destroyed`;
  } else if (req.method === 'POST' && !key && !self) {
    what.add = noun;
    eventName = `${noun.replace(/ /g, '_')}_created`;
  } else {
    const changes = before && answer ? changedFields(req, before, answer) : [];
    if (changes.length === 1) Object.assign(what, { change: changes[0].field, from: readable(changes[0].from), to: readable(changes[0].to) });
    else if (changes.length) what.change = changes.map((c) => c.field).join(', ');
    else what.custom_message = `changed ${noun} ${named}`;
    eventName = `${noun.replace(/ /g, '_')}_updated`;
  }

  const author = req.user;
  const actedBy = req.token ? users(req.db).find((u) => u.id === req.token!.user_id) : undefined;
  const impersonatedBy = actedBy && actedBy.id !== author.id ? actedBy.name : req.token?.impersonation ? 'an administrator (impersonation token)' : undefined;
  addAuditEvent(req.db, { author, entity, target: { type: targetType, id: targetId, details: named }, at: req.now(), eventName, what, impersonatedBy });
}

/** What an event records: who did what to which target of which entity, when, and who stood behind the author (sudo, impersonation). */
interface AuditEventInput {
  author: User;
  entity: { type: string; id: number; path: string };
  target: { type: string; id: number; details: string };
  at: Date;
  eventName: string;
  what: AuditDetails;
  impersonatedBy?: string;
}

/** Adds an event to the history: every write's (recordAudit), and the seed's. */
export function addAuditEvent(db: Db, event: AuditEventInput): void {
  auditEventsTable(db).push({
    id: db.nextId('audit_events'),
    author_id: event.author.id,
    entity_id: event.entity.id,
    entity_type: event.entity.type,
    event_name: event.eventName,
    details: {
      ...event.what,
      author_name: event.author.name,
      author_email: event.author.email,
      target_id: event.target.id,
      target_type: event.target.type,
      target_details: event.target.details,
      ...(event.impersonatedBy ? { impersonated_by: event.impersonatedBy } : {}),
      ip_address: '127.0.0.1',
      entity_path: event.entity.path,
    },
    created_at: event.at.toISOString(),
  });
}
