import { defineTable, type Db } from './db.js';
import { projects, users } from './model.js';

/**
 * Project snippets (document 2, "Project snippet"). Only the table and its seed live here so far: storage moves
 * need snippets to move, and the snippet commands can build on the same table.
 */
export interface Snippet {
  id: number;
  project_id: number;
  title: string;
  file_name: string;
  description: string | null;
  visibility: 'private' | 'internal' | 'public';
  author_id: number;
  created_at: string;
  updated_at: string;
  imported: boolean;
  imported_from: string;
  /** Files of the snippet's repository: path → content. */
  files: Record<string, string>;
  /** Absent on snippets created by modules that do not track storage: they are on `default`. */
  repository_storage?: string;
  /** Set while a repository storage move runs. */
  repository_read_only?: boolean;
}

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
    files: { 'checklist.md': '- [ ] tag the release\n- [ ] announce the window\n' },
    repository_storage: 'default',
  });
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
