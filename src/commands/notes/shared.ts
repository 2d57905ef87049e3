import type { OptionDef } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { parseInteger } from '../../parse.js';
import type { Noteable } from '../../api/review.js';

export const noteColumns = ['id', 'author.username', 'created_at', 'system', 'internal', 'body'];

export interface NoteableOptions {
  project?: string;
  issue?: number;
  snippet?: number;
  mr?: number;
}

export const noteableOptions: OptionDef[] = [
  { flags: '--issue <iid>', description: 'notes of this issue (its IID, the number shown as #IID)', parse: parseInteger('--issue', 1) },
  { flags: '--snippet <id>', description: 'notes of this project snippet (its ID)', parse: parseInteger('--snippet', 1) },
  { flags: '--mr <iid>', description: 'notes of this merge request (its IID), e.g. published draft notes', parse: parseInteger('--mr', 1) },
];

/** Exactly one of --issue, --snippet, --mr. */
export function noteableOf(opts: NoteableOptions): Noteable {
  const given = [opts.issue, opts.snippet, opts.mr].filter((v) => v !== undefined).length;
  if (given !== 1) throw new UsageError(given ? 'give only one of --issue, --snippet and --mr' : 'say what the notes are on', 'pass --issue IID, --snippet ID or --mr IID');
  if (opts.issue !== undefined) return { kind: 'issue', iid: opts.issue };
  if (opts.snippet !== undefined) return { kind: 'snippet', id: opts.snippet };
  return { kind: 'merge_request', iid: opts.mr! };
}

export const bodyOptions: OptionDef[] = [
  { flags: '--body <text>', description: 'the note text (Markdown, at most 1,000,000 characters)' },
  { flags: '--body-file <file>', description: 'read the note text from a file, - for stdin' },
];

export const parseNoteId = parseInteger('note id', 1);
