import type { OptionDef } from '../../cli/command.js';
import { projects } from '../projects/resource.js';
import { readLocalFile } from '../../files.js';
import { parseChoice } from '../../parse.js';
import type { Context } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { encodeContent } from '../../git/content.js';

/** Options and helpers shared by the `files` commands. */

/** The ref to read: --ref, else the project's default branch (files get and info need one; the service has no default). */
export async function refOrDefault(ctx: Context, project: string, ref: string | undefined): Promise<string> {
  if (ref) return ref;
  const { default_branch: branch } = await ctx.api.call<{ default_branch?: string | null }>(projects.routes.get, { project });
  if (!branch) throw new UsageError(`project ${project} has no default branch (is its repository empty?)`, 'pass --ref BRANCH, TAG or COMMIT');
  return branch;
}

export const refOption = (required: boolean, help = 'branch, tag or commit'): OptionDef => ({ flags: '--ref <ref>', description: required ? help : `${help} (default: the default branch)`, required });

export const writeOptions: OptionDef[] = [
  { flags: '--branch <branch>', description: 'the branch to commit to', required: true },
  { flags: '-m, --message <text>', description: 'commit message', required: true },
  { flags: '--start-branch <branch>', description: 'create --branch from this branch' },
  { flags: '--author-name <name>', description: 'commit author (default: you)' },
  { flags: '--author-email <email>', description: 'commit author email (default: yours)' },
];

export const contentOptions: OptionDef[] = [
  { flags: '--content-file <file>', description: 'the new content, from a file or - for stdin', required: true, localFile: true },
  { flags: '--encoding <encoding>', description: 'text or base64 (default: base64 for binary content, text otherwise)', parse: parseChoice('--encoding', ['text', 'base64'] as const) },
  { flags: '--exec', description: 'make the file executable (--no-exec: not executable)' },
  { flags: '--no-exec', description: 'make the file not executable' },
];

export interface WriteFlags {
  branch: string;
  message: string;
  startBranch?: string;
  authorName?: string;
  authorEmail?: string;
}

export interface ContentFlags {
  contentFile: string;
  encoding?: 'text' | 'base64';
  exec?: boolean;
}

export const writeBody = (opts: WriteFlags) => ({
  branch: opts.branch,
  commit_message: opts.message,
  start_branch: opts.startBranch,
  author_name: opts.authorName,
  author_email: opts.authorEmail,
});

/** The bytes of --content-file (or stdin). */
export async function readContent(ctx: Context, file: string): Promise<Buffer> {
  return file === '-' ? ctx.io.readStdinBuffer() : readLocalFile(file);
}

/** The content fields of a create or update: the bytes as text or base64 (chosen from the bytes unless --encoding). */
export function contentBody(bytes: Buffer, opts: ContentFlags): Record<string, unknown> {
  const encoded = opts.encoding === 'base64' ? { content: bytes.toString('base64'), encoding: 'base64' } : opts.encoding === 'text' ? { content: bytes.toString('utf8'), encoding: 'text' } : encodeContent(bytes);
  return { ...encoded, execute_filemode: opts.exec };
}
