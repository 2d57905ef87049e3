import { createHash } from 'node:crypto';
import type { Db } from './db.js';
import { notesTable, type Note } from './model.js';

/** Adding a note (a comment, a reply in a thread, a diff note): the notes routes and published draft notes share it. */

function newDiscussionId(db: Db): string {
  return createHash('sha1').update(`discussion-${db.nextId('discussions')}-${Math.random()}`).digest('hex');
}

export function addNote(db: Db, fields: Omit<Note, 'id' | 'discussion_id' | 'resolved' | 'resolved_by' | 'type' | 'position' | 'commit_id' | 'system' | 'internal'> & Partial<Note>): Note {
  const note: Note = {
    system: false, internal: false, type: null, position: null, commit_id: null, resolved: false, resolved_by: null,
    ...fields,
    discussion_id: fields.discussion_id ?? newDiscussionId(db),
    id: db.nextId('notes'),
  };
  notesTable(db).push(note);
  return note;
}
