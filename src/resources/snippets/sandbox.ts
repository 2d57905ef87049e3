import { projectSnippets as resource } from './resource.js';
import { projectFor, projectRole, requireAdmin, Role } from '../../sandbox/auth.js';
import { crudModule, type Crud } from '../../sandbox/crud.js';
import { errors, HttpError, ok, type SandboxRequest } from '../../sandbox/http.js';
import type { Project, Snippet } from '../../sandbox/model.js';
import { commitSnippet, createdFiles, projectSnippetExtras, rawText, snippetFilesAt, updatedFiles } from '../../sandbox/snippets.js';

/**
 * Project snippets (document 2; api-facts §1.12): CRUD from the declaration with the files of the snippet (created
 * with `files`, changed with create/update/delete/move actions, or the deprecated content/file_name of a
 * single-file snippet), raw content of the snippet and of one file at a ref, and the user agent details.
 */

/** Changing or deleting a snippet: its author, or a Maintainer. */
function requireAuthorOrMaintainer(req: SandboxRequest, snippet: Snippet, project: Project): void {
  if (snippet.author_id !== req.user?.id && projectRole(req.db, req.user, project) < Role.maintainer) throw errors.forbidden();
}

export const snippetsModule: Crud<Snippet> = crudModule<Snippet>(resource, {
  validate(snippet, req, previous) {
    if (!previous) {
      const files = createdFiles(req);
      Object.assign(snippet, {
        author_id: req.user!.id,
        imported: false,
        imported_from: 'none',
        repository_storage: 'default',
        // No user agent detail: the service records one only while spam checking (Akismet) is enabled, which the
        // sandbox does not simulate; its user_agent_detail answers 404 then (the seeded snippet has one).
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
  computed: (snippet, req) => projectSnippetExtras(snippet, req.db, req.rootUrl),
  beforeDelete(snippet, req) {
    requireAuthorOrMaintainer(req, snippet, projectFor(req, Role.reporter));
  },
  routes(api) {
    const find = (req: SandboxRequest): Snippet => snippetsModule.find(req, projectFor(req, Role.guest));
    api.route(resource.routes.raw, (req) => {
      const snippet = find(req);
      return rawText(snippet.files[snippet.file_name] ?? '');
    });
    api.route(resource.routes.fileRaw, (req) => {
      const snippet = find(req);
      const files = snippetFilesAt(snippet, req.params.ref);
      const path = req.params.file_path;
      if (!files || !(path in files)) throw errors.notFound('File');
      return rawText(files[path]);
    });
    api.route(resource.routes.userAgent, (req) => {
      requireAdmin(req);
      const snippet = find(req);
      if (!snippet.user_agent_detail) throw new HttpError(404, { message: '404 UserAgentDetail Not Found' });
      return ok(snippet.user_agent_detail);
    });
  },
});
