import { notes as declared } from './resource.js';
import type { Placement } from '../../api/resource.js';
import { findProject, projectFor, projectRole, Role } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { bool, created, errors, noContent, ok, type SandboxRequest } from '../../sandbox/http.js';
import { issues, notesTable, snippets, users, type Note, type NoteableType, type Project, type User } from '../../sandbox/model.js';
import { paginate } from '../../sandbox/pagination.js';
import { ordering, rubyErrors, sortRecords } from '../../sandbox/listing.js';
import { presentUserBasic } from '../../sandbox/present.js';
import type { Router } from '../../sandbox/router.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { seedDemoSnippet } from '../../sandbox/snippets.js';
import { notePayload, noteEvent } from '../../sandbox/webhook-payloads.js';
import { fireProjectHooks } from '../../sandbox/webhooks.js';
import { addNote } from '../../sandbox/notes.js';
import { found, presentRecord, type Values } from '../../sandbox/records.js';
import { findMergeRequest } from '../../sandbox/review.js';
import { characterCount, MAX_NOTE_CHARS } from '../../api/review.js';

/**
 * Notes on issues, project snippets and merge requests (spec 1, api-facts §1.3). Published draft notes become notes on
 * their merge request (draft-notes.ts; both add them with ../notes.ts). Internal notes are visible from Reporter up.
 */

/** A note's text, unless the model refuses it (blank, too long): 400 with its complaint after `what` ("Note"). */
function checkedText(body: unknown, what: string): string {
  const text = String(body);
  if (!text.trim()) throw errors.badRequest(`${what} ${rubyErrors({ note: ["can't be blank"] })}`);
  if (characterCount(text) > MAX_NOTE_CHARS) throw errors.badRequest(`${what} ${rubyErrors({ note: [`is too long (maximum is ${MAX_NOTE_CHARS} characters)`] })}`);
  return text;
}

/** What a note's answer has beyond its stored fields: its author, and what the service derives. */
function computed(note: Note, db: Db, rootUrl: string): Values {
  const author = users(db).find((u) => u.id === note.author_id);
  return {
    author: author ? { ...presentUserBasic(author, rootUrl), email: author.email, created_at: author.created_at } : null,
    resolvable: resolvable(note),
    confidential: note.internal,
    imported: false,
    imported_from: 'none',
    commands_changes: {},
  };
}

const resolvable = (note: Note): boolean => note.type !== null && !note.system;

/** What only some notes' answers have beyond the declared fields: a diff note's position, a thread note's resolving. */
function beyond(note: Note, db: Db, rootUrl: string): Values {
  const extra: Values = note.position ? { position: note.position } : {};
  if (!resolvable(note)) return extra;
  const resolver = note.resolved_by === null ? undefined : users(db).find((u) => u.id === note.resolved_by);
  return { ...extra, resolved: note.resolved, resolved_by: resolver ? presentUserBasic(resolver, rootUrl) : null, resolved_at: null };
}

const shown = (req: SandboxRequest) => (note: Note): Values => ({
  ...presentRecord(declared, note, computed(note, req.db, req.rootUrl)),
  ...beyond(note, req.db, req.rootUrl),
});

interface NoteableRef {
  project: Project;
  type: NoteableType;
  id: number;
  iid: number | null;
}

/** The issue, snippet or merge request of the path, checked for the caller's access (404 when hidden or missing). */
function noteable(req: SandboxRequest, type: NoteableType): NoteableRef {
  const project = projectFor(req, Role.guest);
  const key = req.params[NOTEABLE_PARAM[type]];
  if (type === 'Issue') {
    const issue = found(issues(req.db).find((i) => i.project_id === project.id && String(i.iid) === key), 'Issue');
    return { project, type, id: issue.id, iid: issue.iid };
  }
  if (type === 'MergeRequest') {
    const mr = findMergeRequest(req, project);
    return { project, type, id: mr.id, iid: mr.iid };
  }
  const snippet = found(snippets(req.db).find((s) => s.project_id === project.id && String(s.id) === key), 'Snippet');
  return { project, type, id: snippet.id, iid: null };
}

function canSeeInternal(req: SandboxRequest, project: Project): boolean {
  return projectRole(req.db, req.user, project) >= Role.reporter;
}

function notesOf(req: SandboxRequest, ref: NoteableRef): Note[] {
  const seeInternal = canSeeInternal(req, ref.project);
  return notesTable(req.db).filter((n) => n.noteable_type === ref.type && n.noteable_id === ref.id && (!n.internal || seeInternal || n.author_id === req.user?.id));
}

function findNote(req: SandboxRequest, ref: NoteableRef): Note {
  return found(notesOf(req, ref).find((n) => String(n.id) === req.params.note_id), 'Note');
}

/** The author may change a note; so may Maintainers (admin_note). */
function requireNoteAdmin(req: SandboxRequest, ref: NoteableRef, note: Note, user: User): void {
  if (note.author_id !== user.id && projectRole(req.db, user, ref.project) < Role.maintainer) throw errors.forbidden();
}

function choice(req: SandboxRequest, name: string, values: string[], fallback: string): string {
  const value = req.query[name] as string | undefined;
  if (value === undefined || value === '') return fallback;
  if (!values.includes(value)) throw errors.invalid(name);
  return value;
}

/** The route parameter naming the noteable, as the declaration names it. */
const NOTEABLE_PARAM: Record<NoteableType, string> = { Issue: 'issue_iid', Snippet: 'snippet_id', MergeRequest: 'merge_request_iid' };

/** The notes of a noteable: sort, order_by and activity_filter as the service takes them (newest first). */
function listNotes(req: SandboxRequest, type: NoteableType) {
  const ref = noteable(req, type);
  const { orderBy, sort } = ordering(req, ['created_at', 'updated_at'], { orderBy: 'created_at', sort: 'desc' });
  const filter = choice(req, 'activity_filter', ['all_notes', 'only_comments', 'only_activity'], 'all_notes');
  const list = notesOf(req, ref).filter((n) => filter === 'all_notes' || (filter === 'only_activity') === n.system);
  return paginate(req, sortRecords(list, (n) => n[orderBy as 'created_at' | 'updated_at'], sort), { present: shown(req) });
}

/** Discussions (threads): the read side only, so that a thread's ID can be found to reply to it (draft notes). */
function listDiscussions(req: SandboxRequest, type: NoteableType) {
  const list = notesOf(req, noteable(req, type)).sort((a, b) => a.id - b.id);
  const threads = [...new Set(list.map((n) => n.discussion_id))].map((id) => list.filter((n) => n.discussion_id === id));
  return paginate(req, threads, {
    present: (thread) => ({ id: thread[0].discussion_id, individual_note: thread[0].type === null, notes: thread.map(shown(req)) }),
  });
}

/** Setting created_at needs administrator or owner rights; otherwise the service ignores it. */
function createdAt(req: SandboxRequest, user: User, role: number): string {
  if (req.input.created_at === undefined || !(user.is_admin || role >= Role.owner)) return req.now().toISOString();
  const time = Date.parse(String(req.input.created_at));
  if (Number.isNaN(time)) throw errors.invalid('created_at');
  return time > Date.UTC(1970, 0, 1) ? new Date(time).toISOString() : req.now().toISOString();
}

function createNote(req: SandboxRequest, type: NoteableType) {
  const ref = noteable(req, type);
  const user = req.user!;
  const body = req.input.body;
  if (body === undefined || body === null) throw errors.missing('body');
  const text = checkedText(body, 'Note');
  const role = projectRole(req.db, user, ref.project);
  const at = createdAt(req, user, role);
  // internal overrides the deprecated confidential; marking notes internal needs Reporter.
  const internal = (bool(req.input.internal) ?? bool(req.input.confidential) ?? false) && role >= Role.reporter;
  const note = addNote(req.db, {
    project_id: ref.project.id, noteable_type: ref.type, noteable_id: ref.id, noteable_iid: ref.iid, author_id: user.id,
    body: text, internal, created_at: at, updated_at: at,
  });
  fireProjectHooks(req, ref.project, noteEvent(note), notePayload(req, ref.project, note, user));
  return created(shown(req)(note));
}

function updateNote(req: SandboxRequest, type: NoteableType) {
  const ref = noteable(req, type);
  const note = findNote(req, ref);
  requireNoteAdmin(req, ref, note, req.user!);
  if (note.system) throw errors.forbidden();
  if (req.input.body !== undefined && req.input.body !== null) note.body = checkedText(req.input.body, 'Failed to save note');
  const confidential = bool(req.input.confidential) ?? bool(req.input.internal);
  if (confidential !== undefined && projectRole(req.db, req.user, ref.project) >= Role.reporter) note.internal = confidential;
  note.updated_at = req.now().toISOString();
  return ok(shown(req)(note));
}

function deleteNote(req: SandboxRequest, type: NoteableType) {
  const ref = noteable(req, type);
  const note = findNote(req, ref);
  requireNoteAdmin(req, ref, note, req.user!);
  notesTable(req.db).splice(notesTable(req.db).indexOf(note), 1);
  return noContent();
}

/** The notes of one kind of noteable, served on the declaration's routes. */
function routesFor(api: Router, placement: Placement, type: NoteableType): void {
  const routes = placement.routes as Record<'list' | 'get' | 'create' | 'update' | 'delete' | 'discussions', string>;
  api.route(routes.list, (req) => listNotes(req, type));
  api.route(routes.discussions, (req) => listDiscussions(req, type));
  api.route(routes.get, (req) => ok(shown(req)(findNote(req, noteable(req, type)))));
  api.route(routes.create, (req) => createNote(req, type));
  api.route(routes.update, (req) => updateNote(req, type));
  api.route(routes.delete, (req) => deleteNote(req, type));
}

export const notes: SandboxModule = {
  routes(api) {
    routesFor(api, declared.parents.issue, 'Issue');
    routesFor(api, declared.parents.snippet, 'Snippet');
    routesFor(api, declared.parents.mr, 'MergeRequest');
  },

  seed(db, { now }) {
    const project = findProject(db, 'acme/api');
    const alice = users(db).find((u) => u.username === 'alice')!;
    const bob = users(db).find((u) => u.username === 'bob')!;
    const at = (hoursAgo: number) => new Date(now.getTime() - hoursAgo * 3_600_000).toISOString();
    seedDemoSnippet(db, now);
    const issue = issues(db).find((i) => i.project_id === project.id && i.iid === 1);
    if (issue) {
      const onIssue = { project_id: project.id, noteable_type: 'Issue' as const, noteable_id: issue.id, noteable_iid: issue.iid };
      addNote(db, { ...onIssue, author_id: alice.id, body: 'changed the description', system: true, created_at: at(48), updated_at: at(48) });
      addNote(db, { ...onIssue, author_id: bob.id, body: 'I will take this one; see !1.', created_at: at(24), updated_at: at(24) });
    }
    const snippet = snippets(db).find((s) => s.project_id === project.id)!;
    addNote(db, {
      project_id: project.id, noteable_type: 'Snippet', noteable_id: snippet.id, noteable_iid: null, author_id: bob.id,
      body: 'Add a step: check the error budget before the window.', created_at: at(12), updated_at: at(12),
    });
  },
};
