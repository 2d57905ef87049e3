import type { OptionDef } from '../../cli/command.js';

export interface NoteableOptions {
  project?: string;
  issue?: number;
  snippet?: number;
  mr?: number;
}

export const bodyOptions: OptionDef[] = [
  { flags: '--body <text>', description: 'the note text (Markdown, at most 1,000,000 characters)' },
  { flags: '--body-file <file>', description: 'read the note text from a file, - for stdin', localFile: true },
];
