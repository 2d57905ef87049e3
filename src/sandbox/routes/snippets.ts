import { SNIPPET_BRANCH, snippets as resource, type SnippetFileAction } from '../../api/resources/snippets.js';
import { projectFor, projectRole, requireAdmin, Role } from '../auth.js';
import { crudModule, type Crud } from '../crud.js';
import { errors, HttpError, ok, type SandboxRequest, type SandboxResponse } from '../http.js';
import { users, type Project } from '../model.js';
import { commitSnippet, snippetFilesAt, snippets, snippetUrls, type Snippet } from '../snippets.js';

/**
 * Project snippets (document 2; api-facts §1.12): CRUD from the declaration with the files of the snippet (created
 * with `files`, changed with create/update/delete/move actions, or the deprecated content/file_name of a
 * single-file snippet), raw content of the snippet and of one file at a ref, and the user agent details.
 */

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

/** Changing or deleting a snippet: its author, or a Maintainer. */
function requireAuthorOrMaintainer(req: SandboxRequest, snippet: Snippet, project: Project): void {
  if (snippet.author_id !== req.user?.id && projectRole(req.db, req.user, project) < Role.maintainer) throw errors.forbidden();
}

const text = (data: string): SandboxResponse => ({ status: 200, raw: { data, contentType: 'text/plain; charset=utf-8' } });

export const snippetsModule: Crud<Snippet> = crudModule<Snippet>(resource, {
  validate(snippet, req, previous) {
    if (!previous) {
      const files = createdFiles(req);
      Object.assign(snippet, {
        author_id: req.user!.id,
        imported: false,
        imported_from: 'none',
        repository_storage: 'default',
        user_agent_detail: { user_agent: String(req.headers['user-agent'] ?? ''), ip_address: '127.0.0.1', akismet_submitted: false },
        files: {},
        versions: [],
      });
      commitSnippet(snippet, files);
      return;
    }
    // CRUD routes name the project parameter `project`.
    requireAuthorOrMaintainer(req, previous, projectFor(req, Role.reporter));
    const files = updatedFiles(req, previous.files);
    snippet.files = previous.files;
    if (files) commitSnippet(snippet, files);
  },
  computed(snippet, req) {
    const urls = snippetUrls(snippet, req.db, req.rootUrl);
    const author = users(req.db).find((u) => u.id === snippet.author_id);
    return {
      ...urls,
      author: author ? { id: author.id, username: author.username, email: author.email, name: author.name, state: author.state, created_at: author.created_at } : null,
      file_name: snippet.file_name,
      files: Object.keys(snippet.files).map((path) => ({ path, raw_url: `${urls.web_url}/raw/${SNIPPET_BRANCH}/${path}` })),
      imported: snippet.imported ?? false,
      imported_from: snippet.imported_from ?? 'none',
    };
  },
  beforeDelete(snippet, req) {
    requireAuthorOrMaintainer(req, snippet, projectFor(req, Role.reporter));
  },
  routes(api) {
    const find = (req: SandboxRequest): Snippet => {
      const project = projectFor(req, Role.guest);
      const snippet = snippets(req.db).find((s) => s.project_id === project.id && String(s.id) === req.params.snippet_id);
      if (!snippet) throw errors.notFound('Snippet');
      return snippet;
    };
    api.route(resource.routes.raw, (req) => {
      const snippet = find(req);
      return text(snippet.files[snippet.file_name] ?? '');
    });
    api.route(resource.routes.fileRaw, (req) => {
      const snippet = find(req);
      const files = snippetFilesAt(snippet, req.params.ref);
      const path = req.params.file_path;
      if (!files || !(path in files)) throw errors.notFound('File');
      return text(files[path]);
    });
    api.route(resource.routes.userAgent, (req) => {
      requireAdmin(req);
      const snippet = find(req);
      if (!snippet.user_agent_detail) throw new HttpError(404, { message: '404 UserAgentDetail Not Found' });
      return ok(snippet.user_agent_detail);
    });
  },
});
