import { findGroup, groupRole, openToCaller, projectRole, Role } from './auth.js';
import type { CrudHooks } from './crud.js';
import type { Db } from './db.js';
import { descendantGroups } from './hierarchy.js';
import { bool, errors, int, type SandboxRequest } from './http.js';
import { intList, matches, ordering, sortRecords, withinTimes } from './listing.js';
import type { ParentKind } from '../api/resource.js';
import { projects, users, type Group, type Issue, type MergeRequest, type Project } from './model.js';
import { presentUserBasic } from './present.js';
import { parentOf, type Parent, type Values } from './records.js';

/**
 * What merge requests and issues share, as the issues and merge requests modules serve them (issuableHooks): who may
 * read them, the projects a list covers (a project's, a group's with its subgroups, everything the caller can see)
 * and its common filters, the next IID, closing and reopening, and the parts of their answers that are alike.
 */

/** What is particular to issues or to merge requests among what issuableHooks serves. */
export interface IssuableKind<T extends MergeRequest | Issue> {
  table: (db: Db) => T[];
  /** The role that reads them in a private project (public and internal ones are open to viewers). */
  readRole: number;
  /** The states and orderings their lists take, and the filters of their own. */
  states: string[];
  orderBy: readonly string[];
  filter(list: T[], req: SandboxRequest): T[];
  /** Fires the project's webhooks: `action` is 'open' for a create, else what the update's change of state names. */
  webhook(req: SandboxRequest, project: Project, record: T, action: string): void;
}

/**
 * The crudModule hooks of issues and merge requests: the lists and records of public projects and groups are read
 * without a token; a read needs a project the caller sees (its records hidden, 404, below `readRole` in a private
 * one), a write the declared role; a group's list is refused only when the group is hidden; a list covers its
 * parent's projects, each checked for the caller; a new one takes the project's next IID; creates and updates fire
 * the project's webhooks.
 */
export function issuableHooks<T extends MergeRequest | Issue>(kind: IssuableKind<T>): CrudHooks<T> {
  return {
    publicReads: ['project', 'group'],
    parent(req, placement, minRole) {
      if (placement.parent === 'group') return listedGroup(req);
      return parentOf(placement, req, minRole === Role[placement.roles.read] ? Role.guest : minRole);
    },
    visible: (db, parent, { placement }) => kind.table(db).filter((record) => placement.parent !== 'project' || record.project_id === parent.id),
    choose: (matches, req, { parent }) => (canRead(req, parent as Project, kind.readRole) ? matches[0] : undefined),
    listed(records, req, { parent, placement }) {
      const scope = scopeOf(req, parent, placement.parent);
      return kind.filter(filterIssuables(req, scope, records, kind.states, kind.readRole, kind.orderBy), req);
    },
    onInsert(record, { db }) {
      record.iid = nextIid(kind.table(db), record.project_id);
    },
    changed: (record, req, { parent }, previous) => kind.webhook(req, parent as Project, record, previous ? hookAction(previous.state, record.state) : 'open'),
  };
}

/** Merge requests and issues of a private project need Reporter (Guest for issues); public and internal ones are open to viewers. */
function canRead(req: SandboxRequest, project: Project, minRole: number): boolean {
  return projectRole(req.db, req.user, project) >= minRole || openToCaller(req, project.visibility);
}

/** The author and the closer of an issue or a merge request, as their answers present them (null when none). */
export function authorAndCloser(req: SandboxRequest, record: MergeRequest | Issue): Values {
  const presented = (id: number | undefined): Values | null => {
    const user = id === undefined ? undefined : users(req.db).find((u) => u.id === id);
    return user ? presentUserBasic(user, req.rootUrl) : null;
  };
  return { author: presented(record.author_id), closed_by: presented(record.closed_by_id) };
}

/** `!1` or `#1` as the service's references name it, short, relative and full. */
export const references = (project: Project, sign: string, iid: number) => ({
  short: `${sign}${iid}`, relative: `${sign}${iid}`, full: `${project.path_with_namespace}${sign}${iid}`,
});

/** Values the sandbox never changes (no time tracking, no tasks). */
export const UNTRACKED = {
  time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
  task_completion_status: { count: 0, completed_count: 0 },
};

/** The projects a list covers, each checked for the caller's right to read. */
export type Scope = { projects: Project[]; defaultScope: 'all' | 'created_by_me' };

/** The group of a group's list: 404 when it is private and the caller no member (anyone lists a public or internal one's). */
export function listedGroup(req: SandboxRequest): Group {
  const group = findGroup(req.db, req.params.group);
  if (groupRole(req.db, req.user, group) === 0 && group.visibility === 'private') throw errors.notFound('Group');
  return group;
}

/** What a list of a project, of a group (with its subgroups unless include_subgroups=false) or of the instance covers. */
export function scopeOf(req: SandboxRequest, parent: Parent, kind: ParentKind): Scope {
  if (kind === 'project') return { projects: [parent as Project], defaultScope: 'all' };
  if (kind === 'instance') return { projects: projects(req.db), defaultScope: 'created_by_me' };
  const ids = new Set([parent.id, ...(bool(req.query.include_subgroups) === false ? [] : descendantGroups(req.db, parent.id).map((g) => g.id))]);
  return { projects: projects(req.db).filter((p) => ids.has(p.namespace_id)), defaultScope: 'all' };
}

/** The `scope` filter: the caller's own, or all (the sandbox assigns and asks reviews of no one). */
function byScope<T extends MergeRequest | Issue>(req: SandboxRequest, scope: Scope, list: T[]): T[] {
  const scopeParam = String(req.query.scope ?? scope.defaultScope).replace(/-/g, '_');
  if (!['created_by_me', 'assigned_to_me', 'all', 'reviews_for_me'].includes(scopeParam)) throw errors.invalid('scope');
  if (scopeParam === 'created_by_me') return req.user ? list.filter((record) => record.author_id === req.user!.id) : [];
  return scopeParam === 'assigned_to_me' || scopeParam === 'reviews_for_me' ? [] : list;
}

/** Filters shared by merge requests and issues: state, scope, author, iids, search, dates; then ordering. */
export function filterIssuables<T extends MergeRequest | Issue>(req: SandboxRequest, scope: Scope, list: T[], states: string[], minRole: number, orderBy: readonly string[]): T[] {
  const q = req.query;
  const readable = new Set(scope.projects.filter((p) => canRead(req, p, minRole)).map((p) => p.id));
  let out = list.filter((record) => readable.has(record.project_id));
  const state = String(q.state ?? 'all');
  if (!states.includes(state)) throw errors.invalid('state');
  if (state !== 'all') out = out.filter((record) => record.state === state);
  out = byScope(req, scope, out);
  const authorId = int(q.author_id, 'author_id');
  if (authorId !== undefined) out = out.filter((record) => record.author_id === authorId);
  if (q.author_username) out = out.filter((record) => users(req.db).find((u) => u.id === record.author_id)?.username === String(q.author_username));
  const iids = intList(q.iids, 'iids');
  if (iids) out = out.filter((record) => iids.includes(record.iid));
  if (q.search) out = out.filter((record) => matches(q.search, record.title, record.description));
  out = withinTimes(req, out, { created: (record) => record.created_at, updated: (record) => record.updated_at });
  const { orderBy: by, sort } = ordering(req, orderBy, { orderBy: 'created_at', sort: 'desc' });
  return sortRecords(out, (record) => (by === 'title' ? record.title.toLowerCase() : ((record as unknown as Record<string, string>)[by] ?? record.created_at)), sort);
}

export const nextIid = (table: Array<{ project_id: number; iid: number }>, projectId: number): number =>
  Math.max(0, ...table.filter((r) => r.project_id === projectId).map((r) => r.iid)) + 1;

/** `state_event` close or reopen, as both resources take it. */
export function applyStateEvent(req: SandboxRequest, record: MergeRequest | Issue): void {
  const event = req.input.state_event;
  if (event === undefined) return;
  if (event !== 'close' && event !== 'reopen') throw errors.invalid('state_event');
  if (record.state === 'merged') return;
  if (event === 'close' && record.state === 'opened') Object.assign(record, { state: 'closed', closed_at: req.now().toISOString(), closed_by_id: req.user!.id });
  if (event === 'reopen' && record.state === 'closed') Object.assign(record, { state: 'opened', closed_at: null, closed_by_id: undefined });
}

/** The `action` of a webhook payload for a change from one state to another. */
export function hookAction(before: string, after: string): string {
  if (before === after) return 'update';
  return { closed: 'close', opened: 'reopen', merged: 'merge' }[after] ?? 'update';
}
