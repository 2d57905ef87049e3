import { createHash } from 'node:crypto';
import { projectSnippets, SNIPPET_BRANCH, type SnippetFileAction } from '../resources/snippets/resource.js';
import type { Db } from './db.js';
import { errors, type SandboxRequest, type SandboxResponse } from './http.js';
import { projects, snippets, users, type Snippet } from './model.js';
import { presentRecord, type Values } from './records.js';
import { projectById } from './hierarchy.js';

/**
 * Project snippets' files and small repository (their versions, for raw files at a ref), shared by the snippets
 * routes, notes on snippets and storage moves; personal snippets take their files as project snippets do.
 */

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

/** A snippet's raw content, as the service answers it: plain text. */
export const rawText = (data: string): SandboxResponse => ({ status: 200, raw: { data, contentType: 'text/plain; charset=utf-8' } });

/**
 * A project snippet as the service presents it, for the lists of snippets outside its project (`/snippets`,
 * `/snippets/all`): as the project snippets module presents it, from the declaration.
 */
export const presentedProjectSnippet = (snippet: Snippet, db: Db, rootUrl: string): Values =>
  presentRecord(projectSnippets, snippet, projectSnippetExtras(snippet, db, rootUrl));

/** What a project snippet's record adds to its stored fields: URLs, author, its files. */
export function projectSnippetExtras(snippet: Snippet, db: Db, rootUrl: string): Record<string, unknown> {
  const urls = snippetUrls(snippet, db, rootUrl);
  const author = users(db).find((u) => u.id === snippet.author_id);
  return {
    ...urls,
    author: author ? { id: author.id, username: author.username, email: author.email, name: author.name, state: author.state, created_at: author.created_at } : null,
    file_name: snippet.file_name,
    files: snippetFileUrls(urls.web_url, snippet.files),
    imported: snippet.imported ?? false,
    imported_from: snippet.imported_from ?? 'none',
  };
}

export function snippetUrls(snippet: Snippet, db: Db, rootUrl: string): SnippetUrls {
  const project = projectById(db, snippet.project_id);
  return snippetUrlsUnder(rootUrl, `${project?.path_with_namespace ?? ''}/`, snippet.id);
}

type SnippetUrls = { web_url: string; raw_url: string; ssh_url_to_repo: string; http_url_to_repo: string };

/** Where a snippet is served: under its project's path (`acme/api/`), or under none ('') for a personal snippet. */
export function snippetUrlsUnder(rootUrl: string, namespace: string, id: number): SnippetUrls {
  const base = `${rootUrl}/${namespace}-/snippets/${id}`;
  const host = new URL(rootUrl).hostname;
  return {
    web_url: base,
    raw_url: `${base}/raw`,
    ssh_url_to_repo: `git@${host}:${namespace}snippets/${id}.git`,
    http_url_to_repo: `${rootUrl}/${namespace}snippets/${id}.git`,
  };
}

/** A snippet's files as its record lists them: each path and the URL of its raw content on the default branch. */
export const snippetFileUrls = (webUrl: string, files: Record<string, string>): Array<{ path: string; raw_url: string }> =>
  Object.keys(files).map((path) => ({ path, raw_url: `${webUrl}/raw/${SNIPPET_BRANCH}/${path}` }));

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

/** A file path inside a snippet: relative, no `..`, no empty parts. */
function checkPath(path: unknown, name = 'file_path'): string {
  if (typeof path !== 'string' || !path.trim()) throw errors.missing(name);
  if (path.startsWith('/') || path.split('/').some((part) => part === '..' || part === '' || part === '.')) throw errors.error(400, `${name} should be a valid file path`);
  return path;
}

/** The files of a create: `files` (path and content each), or the deprecated `content` with `file_name`. */
export function createdFiles(req: SandboxRequest): Record<string, string> {
  const { files, content } = req.input;
  if (files !== undefined && content !== undefined) throw errors.error(400, 'files, content are mutually exclusive');
  if (files === undefined && content === undefined) throw errors.error(400, 'files, content are missing, exactly one parameter must be provided');
  if (content !== undefined) return { [checkPath(req.input.file_name ?? 'snippet.txt', 'file_name')]: String(content) };
  if (!Array.isArray(files) || !files.length) throw errors.invalid('files');
  const out: Record<string, string> = {};
  for (const file of files as Array<{ file_path?: unknown; content?: unknown }>) {
    const path = checkPath(file?.file_path, 'files[file_path]');
    if (file.content === undefined || file.content === null) throw errors.missing('files[content]');
    if (path in out) throw errors.badRequest(`Snippet files have duplicate paths: ${path}`);
    out[path] = String(file.content);
  }
  return out;
}

/** The files after an update's actions; 400 for an action on a file that is not there (or already is). */
export function updatedFiles(req: SandboxRequest, current: Record<string, string>): Record<string, string> | undefined {
  const { files, content } = req.input;
  if (files !== undefined && content !== undefined) throw errors.error(400, 'files, content are mutually exclusive');
  // The deprecated content and file_name change the one file of a single-file snippet: file_name alone renames it.
  if (content !== undefined || (files === undefined && req.input.file_name !== undefined)) {
    if (Object.keys(current).length > 1) throw errors.badRequest('To update Snippets with multiple files, you must use the `files` parameter');
    const [existing] = Object.keys(current);
    const path = req.input.file_name !== undefined ? checkPath(req.input.file_name, 'file_name') : (existing ?? 'snippet.txt');
    return { [path]: content !== undefined ? String(content) : (current[existing] ?? '') };
  }
  if (files === undefined) return undefined;
  if (!Array.isArray(files) || !files.length) throw errors.invalid('files');
  const next = { ...current };
  for (const action of files as SnippetFileAction[]) {
    const path = checkPath(action?.file_path, 'files[file_path]');
    switch (action.action) {
      case 'create':
        if (path in next) throw errors.badRequest(`A file with this name already exists: ${path}`);
        if (action.content === undefined) throw errors.missing('files[content]');
        next[path] = String(action.content);
        break;
      case 'update':
        if (!(path in next)) throw errors.badRequest(`A file with this name doesn't exist: ${path}`);
        if (action.content === undefined) throw errors.missing('files[content]');
        next[path] = String(action.content);
        break;
      case 'delete':
        if (!(path in next)) throw errors.badRequest(`A file with this name doesn't exist: ${path}`);
        delete next[path];
        break;
      case 'move': {
        const from = checkPath(action.previous_path, 'files[previous_path]');
        if (!(from in next)) throw errors.badRequest(`A file with this name doesn't exist: ${from}`);
        if (path in next && path !== from) throw errors.badRequest(`A file with this name already exists: ${path}`);
        const kept = next[from];
        delete next[from];
        next[path] = action.content === undefined ? kept : String(action.content);
        break;
      }
      default:
        throw errors.invalid('files[action]');
    }
  }
  if (!Object.keys(next).length) throw errors.badRequest('Snippet must have at least one file');
  return next;
}
