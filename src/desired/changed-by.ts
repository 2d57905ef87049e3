import { placed } from '../api/resource.js';
import { auditEvents, auditTargetType, type AuditEvent } from '../resources/audit-events/resource.js';
import { users } from '../resources/users/resource.js';
import { ApiError } from '../errors.js';
import type { Change, Owner, SectionIo } from './model.js';
import { unmark } from './section.js';
import { sectionOf } from './sections/index.js';

/**
 * Who changed a drifted object, and when, from its owner's audit events: the newest event whose target is the
 * object (its kind by the service's target type, and its id or its name). One query per owner that has changes,
 * bounded to the last 90 days and 300 events. A caller who may not read audit events (403, 404), or an instance
 * whose tier has none, gets the plan without names, silently.
 */

export const CHANGED_BY_WINDOW_DAYS = 90;
const MAX_EVENTS = 300;

export interface ChangedBy {
  /** The author's username where the event names it, else their name. */
  author: string;
  at: string;
}

/** The owner's recent events, newest first; none when they cannot be read. */
async function recentEvents(io: SectionIo, owner: Owner, now: Date): Promise<AuditEvent[]> {
  const created_after = new Date(now.getTime() - CHANGED_BY_WINDOW_DAYS * 86_400_000).toISOString();
  const [key, params] = owner.level === 'project' ? ['project', { project: owner.path }] : owner.level === 'group' ? ['group', { group: owner.path }] : ['instance', { entity_type: 'Gitlab::Audit::InstanceScope' }];
  const route = placed(auditEvents, key).routes.list!;
  const events: AuditEvent[] = [];
  try {
    for await (const event of io.api.list<AuditEvent>(route, { ...params, created_after }, { perPage: 100, limit: MAX_EVENTS })) events.push(event);
  } catch (error) {
    // Not allowed, not there (an older or free instance), or failing: the plan stands without names.
    if (error instanceof ApiError && error.status !== 401) return [];
    throw error;
  }
  return events;
}

/** Whether an event is about the object a change names: same kind, and the same id or name. */
function about(event: AuditEvent, change: Change, level: Owner['level']): boolean {
  const details = event.details ?? {};
  if (details.target_type !== auditTargetType(change.section, level)) return false;
  // A section of one object (a push rule): any event about its kind is about it.
  if (sectionOf(level, change.section)?.shape === 'one') return true;
  const ids = Object.values(change.ref ?? {}).map(String);
  if (details.target_id !== undefined && ids.includes(String(details.target_id))) return true;
  const named = typeof details.target_details === 'string' ? unmark(details.target_details).value : undefined;
  if (named === undefined) return false;
  // An identity of several fields ("KEY … *": a variable's key and scope) is named by its first.
  return [change.key, unmark(change.key).value, change.key.split(' … ')[0]].includes(named) || (change.key.startsWith('"') && JSON.stringify(named) === change.key);
}

/**
 * What one run looks up once: usernames by user id (events name their author by id and display name), and the
 * user the run acts as.
 */
export interface Authors {
  usernames: Map<number, Promise<string | undefined>>;
  self?: Promise<number | undefined>;
}

export const newAuthors = (): Authors => ({ usernames: new Map() });

/**
 * Adds changed_by to the owner's changes that the audit events explain (in place). The newest event about the
 * object decides; when its author is the user this run acts as, the change was forgectl's own (an apply), not one
 * made by hand, and nobody is named.
 */
export async function explainChanges(io: SectionIo, owner: Owner, changes: Change[], now: Date, authors: Authors): Promise<void> {
  const explained = changes.filter((change) => change.action !== 'violation');
  if (!explained.length) return;
  const events = await recentEvents(io, owner, now);
  if (!events.length) return;
  authors.self ??= io.api.call<{ id: number }>(users.routes.current).then((user) => user.id, () => undefined);
  const self = await authors.self;
  for (const change of explained) {
    const event = events.find((candidate) => about(candidate, change, owner.level));
    if (event && event.author_id !== self) change.changed_by = { author: await authorOf(io, event, authors), at: event.created_at };
  }
}

/** How the plan names an event's author: their username, else the name the event gives, else the id. */
async function authorOf(io: SectionIo, event: AuditEvent, authors: Authors): Promise<string> {
  let username = authors.usernames.get(event.author_id);
  if (!username) {
    username = io.api.call<{ username?: string }>(users.routes.get, { user: event.author_id }).then((user) => user.username, () => undefined);
    authors.usernames.set(event.author_id, username);
  }
  return (await username) ?? event.details?.author_name ?? `user ${String(event.author_id)}`;
}
