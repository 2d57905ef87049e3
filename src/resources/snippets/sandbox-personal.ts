import { placed } from '../../api/resource.js';
import { snippets } from './resource.js';
import { openToCaller, projectRole, requireAdmin, requireUser, Role } from '../../sandbox/auth.js';
import { created, errors, HttpError, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { personalSnippets, snippets as projectSnippets, users, VISIBILITIES, type PersonalSnippet, type Snippet, type Visibility } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { paginate } from '../../sandbox/pagination.js';
import { presentUserBasic } from '../../sandbox/present.js';
import { createdFiles, presentedProjectSnippet, rawText, snippetFileUrls, snippetUrlsUnder, updatedFiles } from '../../sandbox/snippets.js';
import { presentRecord, requireOneOf, type Values } from '../../sandbox/records.js';
import { projectById } from '../../sandbox/hierarchy.js';

/**
 * Personal snippets (`/snippets`): the caller's own, the public ones of everybody, one by id (as its visibility
 * allows), create, update (the author or an administrator; files as project snippets change them), delete, raw.
 */

const personal = placed(snippets, 'personal');

/** What a personal snippet's answer has that it does not store: author, URLs, files. */
function computed(req: SandboxRequest, snippet: PersonalSnippet): Values {
  const urls = snippetUrlsUnder(req.rootUrl, '', snippet.id);
  const author = users(req.db).find((u) => u.id === snippet.author_id);
  return {
    author: author ? presentUserBasic(author, req.rootUrl) : null,
    project_id: null, ...urls, file_name: Object.keys(snippet.files)[0] ?? '',
    files: snippetFileUrls(urls.web_url, snippet.files), imported: false, imported_from: 'none',
  };
}

const presented = (req: SandboxRequest, snippet: PersonalSnippet): Values => presentRecord(personal, snippet, computed(req, snippet));


function visible(req: SandboxRequest, snippet: PersonalSnippet): boolean {
  return openToCaller(req, snippet.visibility) || Boolean(req.user && (req.user.is_admin || snippet.author_id === req.user.id));
}

function find(req: SandboxRequest): PersonalSnippet {
  const snippet = personalSnippets(req.db).find((s) => String(s.id) === req.params.snippet_id);
  if (!snippet || !visible(req, snippet)) throw errors.notFound('Snippet');
  return snippet;
}

function ownSnippet(req: SandboxRequest): PersonalSnippet {
  const snippet = find(req);
  if (snippet.author_id !== requireUser(req).id && !req.user!.is_admin) throw errors.forbidden();
  return snippet;
}

function visibilityFrom(req: SandboxRequest): Visibility | undefined {
  if (req.input.visibility === undefined) return undefined;
  const visibility = String(req.input.visibility) as Visibility;
  if (!VISIBILITIES.includes(visibility)) throw errors.invalid('visibility');
  return visibility;
}

/** A project snippet the caller may see: an administrator, or a reader of its project (as its visibility allows). */
function projectSnippetVisible(req: SandboxRequest, snippet: Snippet): boolean {
  const project = projectById(req.db, snippet.project_id);
  if (!project || !req.user) return false;
  return req.user.is_admin === true || projectRole(req.db, req.user, project) >= Role.guest || (openToCaller(req, project.visibility) && openToCaller(req, snippet.visibility));
}

/** Personal and project snippets in one list, newest first (they share one sequence of ids). */
function listed(req: SandboxRequest, personal: PersonalSnippet[], ofProjects: Snippet[]) {
  const all = [...personal.map((s) => ({ id: s.id, record: () => presented(req, s) })), ...ofProjects.map((s) => ({ id: s.id, record: () => presentedProjectSnippet(s, req.db, req.rootUrl) }))];
  return paginate(req, all.sort((a, b) => b.id - a.id), { present: (entry) => entry.record() });
}

export const personalSnippetsModule: SandboxModule = {
  routes(api) {
    const { routes } = personal;
    // As the service: your personal snippets and those you wrote in projects, newest first.
    api.route(routes.list, (req) => {
      const user = requireUser(req);
      return listed(req, personalSnippets(req.db).filter((s) => s.author_id === user.id), projectSnippets(req.db).filter((s) => s.author_id === user.id && projectSnippetVisible(req, s)));
    });
    api.route(routes.public, (req) => paginate(req, personalSnippets(req.db).filter((s) => s.visibility === 'public').reverse(), { present: (s) => presented(req, s) }));
    api.route(routes.all, (req) => {
      requireUser(req);
      return listed(req, personalSnippets(req.db).filter((s) => visible(req, s)), projectSnippets(req.db).filter((s) => projectSnippetVisible(req, s)));
    });
    api.route(routes.get, (req) => ok(presented(req, find(req))), { auth: 'optional' });
    api.route(routes.userAgent, (req) => {
      requireAdmin(req);
      find(req);
      // The service records one only while spam checking (Akismet) is enabled, which the sandbox does not simulate.
      throw new HttpError(404, { message: '404 UserAgentDetail Not Found' });
    });
    api.route(routes.raw, (req) => {
      const snippet = find(req);
      return rawText(snippet.files[Object.keys(snippet.files)[0]] ?? '');
    }, { auth: 'optional' });
    api.route(routes.create, (req) => {
      const user = requireUser(req);
      const title = String(required(req, 'title'));
      const files = createdFiles(req);
      const at = req.now().toISOString();
      const snippet: PersonalSnippet = {
        id: req.db.nextId('snippets'), title, description: req.input.description === undefined ? null : String(req.input.description),
        visibility: visibilityFrom(req) ?? 'private', author_id: user.id, created_at: at, updated_at: at, files,
      };
      personalSnippets(req.db).push(snippet);
      return created(presented(req, snippet));
    });
    api.route(routes.update, (req) => {
      const snippet = ownSnippet(req);
      requireOneOf(req, ['title', 'description', 'visibility', 'content', 'file_name', 'files']);
      const files = updatedFiles(req, snippet.files);
      const visibility = visibilityFrom(req);
      if (req.input.title !== undefined) snippet.title = String(req.input.title);
      if (req.input.description !== undefined) snippet.description = req.input.description === null ? null : String(req.input.description);
      if (visibility) snippet.visibility = visibility;
      if (files) snippet.files = files;
      snippet.updated_at = req.now().toISOString();
      return ok(presented(req, snippet));
    });
    api.route(routes.delete, (req) => {
      const snippet = ownSnippet(req);
      personalSnippets(req.db).splice(personalSnippets(req.db).indexOf(snippet), 1);
      return noContent();
    });
  },
};
