import { createHash } from 'node:crypto';
import type { StoredOf } from '../api/fields.js';
import { SNIPPET_BRANCH, type snippets as declared } from '../api/resources/snippets.js';
import { defineTable, type Db } from './db.js';
import { projects, users } from './model.js';

/**
 * Project snippets (document 2, "Project snippet"): the table, shared by the snippets routes (routes/snippets.ts),
 * notes on snippets and storage moves, and the snippet's small repository (its versions, for raw files at a ref).
 */
export type Snippet = Pick<StoredOf<typeof declared>, 'id' | 'project_id' | 'title' | 'file_name' | 'description' | 'visibility' | 'created_at' | 'updated_at' | 'imported' | 'imported_from'> & {
  author_id: number;
  /** Files of the snippet's repository at its head: path → content. */
  files: Record<string, string>;
  /** Earlier versions of the files, newest last, by commit id (raw files can be read at any of them). */
  versions?: Array<{ sha: string; files: Record<string, string> }>;
  /** What the service records about the request that created the snippet (administrators can read it). */
  user_agent_detail?: { user_agent: string; ip_address: string; akismet_submitted: boolean };
  /** Absent on snippets created by modules that do not track storage: they are on `default`. */
  repository_storage?: string;
  /** Set while a repository storage move runs. */
  repository_read_only?: boolean;
};

export const snippets = defineTable<Snippet>('snippets');

/** Adds the demo snippet of acme/api once (the seed of every module that needs snippets may call this). */
export function seedDemoSnippet(db: Db, now: Date): void {
  if (snippets(db).length) return;
  const project = projects(db).find((p) => p.path_with_namespace === 'acme/api');
  const author = users(db).find((u) => u.username === 'alice');
  if (!project || !author) return;
  snippets(db).push({
    id: db.nextId('snippets'),
    project_id: project.id,
    title: 'Deploy checklist',
    file_name: 'checklist.md',
    description: 'Steps before a production deploy',
    visibility: 'private',
    author_id: author.id,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    imported: false,
    imported_from: 'none',
    files: {},
    repository_storage: 'default',
    user_agent_detail: { user_agent: 'Mozilla/5.0 (X11; Linux x86_64)', ip_address: '10.0.0.7', akismet_submitted: false },
  });
  commitSnippet(snippets(db).at(-1)!, { 'checklist.md': '- [ ] tag the release\n- [ ] announce the window\n', 'rollback.md': '1. revert the deploy tag\n2. page the on-call\n' });
}

export function snippetUrls(snippet: Snippet, db: Db, rootUrl: string): { web_url: string; raw_url: string; ssh_url_to_repo: string; http_url_to_repo: string } {
  const project = projects(db).find((p) => p.id === snippet.project_id);
  const base = `${rootUrl}/${project?.path_with_namespace ?? ''}/-/snippets/${snippet.id}`;
  const host = new URL(rootUrl).hostname;
  return {
    web_url: base,
    raw_url: `${base}/raw`,
    ssh_url_to_repo: `git@${host}:${project?.path_with_namespace ?? ''}/snippets/${snippet.id}.git`,
    http_url_to_repo: `${rootUrl}/${project?.path_with_namespace ?? ''}/snippets/${snippet.id}.git`,
  };
}

/** Records a new version of a snippet's files (a commit of its repository); returns its id. */
export function commitSnippet(snippet: Snippet, files: Record<string, string>): string {
  const parent = snippet.versions?.at(-1)?.sha ?? '';
  const sha = createHash('sha1').update(`${snippet.id}\n${parent}\n${JSON.stringify(files)}`).digest('hex');
  snippet.files = files;
  snippet.file_name = Object.keys(files)[0] ?? '';
  (snippet.versions ??= []).push({ sha, files });
  return sha;
}

/** The files at a ref: the default branch (or HEAD), or a commit id (or a prefix of 7 or more characters). */
export function snippetFilesAt(snippet: Snippet, ref: string): Record<string, string> | undefined {
  if (ref === SNIPPET_BRANCH || ref === 'HEAD') return snippet.files;
  if (!/^[0-9a-f]{7,40}$/i.test(ref)) return undefined;
  return snippet.versions?.find((v) => v.sha.startsWith(ref.toLowerCase()))?.files;
}
