import { createHash } from 'node:crypto';
import { projectFor, Role } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { crudModule } from '../../sandbox/crud.js';
import { bool, errors, noContent, ok, type SandboxRequest } from '../../sandbox/http.js';
import { draftNoteTable, notesTable, type DraftNote, type MergeRequest, type NotePosition, type Project } from '../../sandbox/model.js';
import { draftNotes as declaredDrafts } from './resource.js';
import { MAX_NOTE_CHARS } from '../../api/review.js';
import { addNote } from '../../sandbox/notes.js';
import { findMergeRequest } from '../../sandbox/review.js';
import type { Values } from '../../sandbox/records.js';

/**
 * Draft notes of a merge request (spec 1, api-facts §1.4): pending comments that only their author sees (anyone else
 * gets 404). Publishing turns a draft into a note on the merge request — a new thread, a reply to the thread named by
 * in_reply_to_discussion_id (resolving it when resolve_discussion is set), or a diff note when it has a position.
 */

const POSITION_TYPES = ['text', 'image', 'file'];

/** position[…] as Grape validates it: the three SHAs and the type are required once a position is given. */
function parsePosition(value: unknown): NotePosition | null | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw errors.invalid('position');
  const position = value as Record<string, unknown>;
  for (const key of ['base_sha', 'start_sha', 'head_sha', 'position_type']) {
    if (position[key] === undefined || position[key] === null || position[key] === '') throw errors.missing(`position[${key}]`);
  }
  if (!POSITION_TYPES.includes(String(position.position_type))) throw errors.invalid('position[position_type]');
  const out: NotePosition = {
    base_sha: String(position.base_sha),
    start_sha: String(position.start_sha),
    head_sha: String(position.head_sha),
    position_type: String(position.position_type),
    old_path: position.old_path === undefined ? null : String(position.old_path),
    new_path: position.new_path === undefined ? null : String(position.new_path),
    old_line: null,
    new_line: null,
    line_range: position.line_range ?? null,
  };
  for (const key of ['old_line', 'new_line', 'width', 'height', 'x', 'y'] as const) {
    if (position[key] === undefined || position[key] === null || position[key] === '') continue;
    const n = Number(position[key]);
    if (!Number.isFinite(n) || ((key === 'old_line' || key === 'new_line' || key === 'width' || key === 'height') && !Number.isInteger(n))) throw errors.invalid(`position[${key}]`);
    out[key] = n;
  }
  return out;
}

/** The diff line code of a text position: sha1(path)_old_new, as the service computes it. */
function lineCode(position: NotePosition | null): string | null {
  if (!position || position.position_type !== 'text') return null;
  const path = (position.new_path ?? position.old_path) as string | null;
  if (!path) return null;
  return `${createHash('sha1').update(path).digest('hex')}_${position.old_line ?? ''}_${position.new_line ?? ''}`;
}

/** The project and merge request of the route, 404 when the caller may not see them. */
function context(req: SandboxRequest): { project: Project; mr: MergeRequest } {
  const project = projectFor(req, Role.guest);
  return { project, mr: findMergeRequest(req, project) };
}

function noteText(value: unknown): string {
  const text = String(value);
  if (!text.trim()) throw errors.validation({ note: ["can't be blank"] });
  if (text.length > MAX_NOTE_CHARS) throw errors.validation({ note: [`is too long (maximum is ${MAX_NOTE_CHARS} characters)`] });
  return text;
}

/** Turns one draft into a note on its merge request and removes the draft. */
function publish(db: Db, mr: MergeRequest, draft: DraftNote, now: Date): void {
  const at = now.toISOString();
  const thread = draft.discussion_id ? notesTable(db).filter((n) => n.discussion_id === draft.discussion_id) : [];
  addNote(db, {
    project_id: mr.project_id, noteable_type: 'MergeRequest', noteable_id: mr.id, noteable_iid: mr.iid, author_id: draft.author_id,
    body: draft.note, created_at: at, updated_at: at,
    discussion_id: draft.discussion_id ?? undefined,
    type: draft.position ? 'DiffNote' : thread[0]?.type ?? 'DiscussionNote',
    position: draft.position, commit_id: draft.commit_id,
  });
  if (draft.resolve_discussion && draft.discussion_id) {
    for (const note of notesTable(db).filter((n) => n.discussion_id === draft.discussion_id)) {
      note.resolved = true;
      note.resolved_by = draft.author_id;
    }
  }
  draftNoteTable(db).splice(draftNoteTable(db).indexOf(draft), 1);
}

/** What a new draft is: a thread of its own, a reply to the thread named by in_reply_to_discussion_id, or a diff note. */
function newDraft(req: SandboxRequest, mergeRequestId: number): Values {
  if (req.input.note === undefined || req.input.note === null) throw errors.missing('note');
  const position = parsePosition(req.input.position) ?? null;
  const note = noteText(req.input.note);
  const replyTo = req.input.in_reply_to_discussion_id as string | undefined;
  if (replyTo && !notesTable(req.db).some((n) => n.discussion_id === replyTo && n.noteable_type === 'MergeRequest' && n.noteable_id === mergeRequestId)) {
    throw errors.validation({ base: ['Thread to reply to cannot be found'] });
  }
  const commitId = req.input.commit_id as string | undefined;
  return {
    note,
    commit_id: commitId && commitId !== 'undefined' ? commitId : null,
    discussion_id: replyTo || null,
    resolve_discussion: bool(req.input.resolve_discussion) ?? false,
    position,
    line_code: lineCode(position),
    created_at: req.now().toISOString(),
  };
}

/**
 * The drafts, from the declaration: those of the route's merge request written by the caller (anyone else's are
 * 404), listed whole. An update (its text or position, as Grape checks them before the draft is looked up) and
 * publishing are served here.
 */
export const draftNotes = crudModule<DraftNote>(declaredDrafts, {
  notFound: '',
  // Guests of a public project write drafts too; the merge request is hidden from those of a private one (scope).
  parent: (req) => projectFor(req, Role.guest),
  scope: (req, { parent }) => ({ merge_request_id: findMergeRequest(req, parent as Project).id, author_id: req.user!.id }),
  unpaginated: true,
  input: (req, where) => newDraft(req, where.scope.merge_request_id as number),
  servedElsewhere: [declaredDrafts.routes.update],
  routes(api) {
    const { routes } = declaredDrafts;
    api.route(routes.update, (req) => {
      const { project } = context(req);
      const position = parsePosition(req.input.position);
      const hasNote = req.input.note !== undefined && req.input.note !== null && req.input.note !== '';
      if (!hasNote && position === undefined) throw errors.badRequest('Missing params to modify');
      const draft = draftNotes.find(req, project);
      if (hasNote) draft.note = noteText(req.input.note);
      if (position !== undefined) Object.assign(draft, { position, line_code: lineCode(position) });
      return ok(draftNotes.present(draft, req, project));
    });
    api.route(routes.publish, (req) => {
      const { project, mr } = context(req);
      publish(req.db, mr, draftNotes.find(req, project), req.now());
      return noContent();
    });
    api.route(routes.publishAll, (req) => {
      const { mr } = context(req);
      for (const draft of draftNoteTable(req.db).filter((d) => d.merge_request_id === mr.id && d.author_id === req.user!.id)) publish(req.db, mr, draft, req.now());
      return noContent();
    });
  },
});
