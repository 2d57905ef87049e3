import { createHash } from 'node:crypto';
import { branches as branchDef } from './resource.js';
import { tags as tagDef } from '../tags/resource.js';
import { projectFor, projectRole, Role } from '../../sandbox/auth.js';
import { presentCommit } from '../../sandbox/git/present.js';
import { findCommit, isAncestor, moveBranch, repositoryOf, resolveRevision } from '../../sandbox/git/repository.js';
import { putBlob } from '../../sandbox/git/store.js';
import { commitToBranch } from '../../sandbox/git/write.js';
import { accepted, created, errors, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { mergeRequests, tagAnnotations, type Commit, type Project } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { paginate } from '../../sandbox/pagination.js';
import { mayPush, rulesFor, tagProtected } from '../../sandbox/protection.js';
import { readableProject } from '../../sandbox/repository-access.js';

/**
 * Branches and tags of a repository (the refs of src/sandbox/git): list (with search), get, create from a ref,
 * delete, delete the branches merged into the default one; tags lightweight or annotated (with a message). Names
 * keep their dots and slashes (`release/1.2`): each is one encoded path segment.
 */

/** Whether git would take this as a branch or tag name (git check-ref-format). */
export function validRefName(name: string): boolean {
  if (!name || name === '@' || name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  if ([...name].some((c) => c.charCodeAt(0) <= 0x20 || c.charCodeAt(0) === 0x7f)) return false;
  if (/[~^:?*[\\]|\.\.|@\{|\/\/|\.lock(\/|$)|(^|\/)\./.test(name)) return false;
  return true;
}

function presentBranch(req: SandboxRequest, project: Project, name: string, sha: string): Record<string, unknown> {
  const commit = findCommit(req.db, project.id, sha)!;
  const isDefault = name === project.default_branch;
  const head = resolveRevision(req.db, project, project.default_branch);
  const rules = rulesFor(req.db, project, name);
  const developers = (kind: 'push_access_levels' | 'merge_access_levels') => rules.some((rule) => rule[kind].some((entry) => entry.access_level === Role.developer && entry.user_id === undefined && entry.group_id === undefined));
  return {
    name,
    merged: !isDefault && head !== undefined && isAncestor(req.db, commit, head),
    // The project's protections and its groups' (a new project's default branch: Maintainers push and merge).
    protected: rules.length > 0,
    default: isDefault,
    developers_can_push: developers('push_access_levels'),
    developers_can_merge: developers('merge_access_levels'),
    can_push: mayPush(req.db, req.user, project, name),
    web_url: `${req.rootUrl}/${project.path_with_namespace}/-/tree/${name}`,
    commit: presentCommit(commit, project, req.rootUrl, { trailers: true }),
  };
}

function presentTag(req: SandboxRequest, project: Project, name: string, sha: string): Record<string, unknown> {
  const commit = findCommit(req.db, project.id, sha)!;
  const note = tagAnnotations(req.db).find((a) => a.project_id === project.id && a.name === name);
  return {
    commit: presentCommit(commit, project, req.rootUrl, { trailers: true }),
    release: null,
    name,
    target: note?.target ?? sha,
    message: note?.message ?? null,
    protected: tagProtected(req.db, project, name),
    created_at: note?.created_at ?? null,
  };
}

/** The service's words when a Developer deletes a protected branch or tag (its pre-receive checks). */
const PROTECTED_BRANCH_DELETION = 'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.';
const PROTECTED_TAG_DELETION = 'You are not allowed to delete protected tags from this project. Only a project maintainer or owner can delete a protected tag.';

/** `search`: names containing the text; `^text` starting with it, `text$` ending with it (case-insensitive). */
function searched(names: string[], search: unknown): string[] {
  if (search === undefined || search === '') return names;
  const text = String(search).toLowerCase();
  const starts = text.startsWith('^');
  const ends = text.endsWith('$');
  const core = text.slice(starts ? 1 : 0, ends ? -1 : undefined);
  return names.filter((name) => {
    const lower = name.toLowerCase();
    if (starts && ends) return lower === core;
    if (starts) return lower.startsWith(core);
    if (ends) return lower.endsWith(core);
    return lower.includes(core);
  });
}

function startCommit(req: SandboxRequest, project: Project, ref: string, message: string): Commit {
  const commit = resolveRevision(req.db, project, ref);
  if (!commit) throw errors.message(400, message);
  return commit;
}

export const branchesModule: SandboxModule = {
  routes(api) {
    const open = { auth: 'optional' as const };
    const r = branchDef.routes;

    api.route(r.list, (req) => {
      const project = readableProject(req);
      const repository = repositoryOf(req.db, project.id);
      const names = searched(Object.keys(repository.branches).sort(), req.query.search);
      return paginate(req, names, { present: (name) => presentBranch(req, project, name, repository.branches[name]) });
    }, open);

    api.route(r.get, (req) => {
      const project = readableProject(req);
      const sha = repositoryOf(req.db, project.id).branches[req.params.branch];
      if (!sha) throw errors.notFound('Branch');
      return ok(presentBranch(req, project, req.params.branch, sha));
    }, open);

    api.route(r.create, (req) => {
      const project = projectFor(req, Role.developer);
      const name = String(required(req, 'branch'));
      const ref = String(required(req, 'ref'));
      if (!validRefName(name)) throw errors.message(400, 'Branch name is invalid');
      const repository = repositoryOf(req.db, project.id);
      // In an empty repository the service first creates the default branch, with an empty README.md.
      if (!Object.keys(repository.branches).length) {
        commitToBranch(req, project, { branch: project.default_branch, message: 'Add README.md', change: (snapshot) => void snapshot.set('README.md', { mode: '100644', id: putBlob(req.db, Buffer.alloc(0)) }) });
      }
      if (repository.branches[name]) throw errors.message(400, 'Branch already exists');
      const commit = startCommit(req, project, ref, `Invalid reference name: ${ref}`);
      req.pushed(moveBranch(req.db, project, name, commit, req.user, req.now()));
      return created(presentBranch(req, project, name, commit.id));
    });

    api.route(r.delete, (req) => {
      const project = projectFor(req, Role.developer);
      const repository = repositoryOf(req.db, project.id);
      const name = req.params.branch;
      if (!repository.branches[name]) throw errors.notFound('Branch');
      if (name === project.default_branch) throw errors.message(405, 'Cannot remove HEAD branch');
      // A protected branch only Maintainers and Owners delete (the service's pre-receive check, answered as 400).
      if (rulesFor(req.db, project, name).length && projectRole(req.db, req.user, project) < Role.maintainer) throw errors.message(400, PROTECTED_BRANCH_DELETION);
      delete repository.branches[name];
      return noContent();
    });

    api.route(r.deleteMerged, (req) => {
      const project = projectFor(req, Role.developer);
      const repository = repositoryOf(req.db, project.id);
      const head = resolveRevision(req.db, project, project.default_branch);
      // As the service: never a protected branch (exact name or wildcard, the project's rules and its groups'), nor
      // one an open merge request comes from or goes to.
      const inReview = new Set(mergeRequests(req.db).filter((mr) => mr.project_id === project.id && mr.state === 'opened').flatMap((mr) => [mr.source_branch, mr.target_branch]));
      if (head) {
        for (const [name, sha] of Object.entries(repository.branches)) {
          const commit = findCommit(req.db, project.id, sha);
          if (name === project.default_branch || !commit || !isAncestor(req.db, commit, head)) continue;
          if (rulesFor(req.db, project, name).length || inReview.has(name)) continue;
          delete repository.branches[name];
        }
      }
      return accepted();
    });

    const t = tagDef.routes;
    api.route(t.list, (req) => {
      const project = readableProject(req);
      const repository = repositoryOf(req.db, project.id);
      const order = String(req.query.order_by ?? 'updated');
      if (!['name', 'updated', 'version'].includes(order)) throw errors.invalid('order_by');
      const sort = String(req.query.sort ?? 'desc');
      if (!['asc', 'desc'].includes(sort)) throw errors.invalid('sort');
      const dated = (name: string) => findCommit(req.db, project.id, repository.tags[name])?.committed_date ?? '';
      const names = searched(Object.keys(repository.tags), req.query.search).sort((a, b) => {
        if (order === 'name') return a.localeCompare(b);
        if (order === 'version') return a.localeCompare(b, undefined, { numeric: true });
        return dated(a).localeCompare(dated(b)) || a.localeCompare(b);
      });
      if (sort === 'desc') names.reverse();
      return paginate(req, names, { present: (name) => presentTag(req, project, name, repository.tags[name]) });
    }, open);

    api.route(t.get, (req) => {
      const project = readableProject(req);
      const sha = repositoryOf(req.db, project.id).tags[req.params.tag_name];
      if (!sha) throw errors.notFound('Tag');
      return ok(presentTag(req, project, req.params.tag_name, sha));
    }, open);

    api.route(t.create, (req) => {
      const project = projectFor(req, Role.developer);
      const name = String(required(req, 'tag_name'));
      const ref = String(required(req, 'ref'));
      if (!validRefName(name)) throw errors.message(400, 'Tag name invalid');
      const repository = repositoryOf(req.db, project.id);
      if (repository.tags[name]) throw errors.message(400, `Tag ${name} already exists`);
      const commit = startCommit(req, project, ref, `Target ${ref} is invalid`);
      repository.tags[name] = commit.id;
      const message = req.input.message === undefined || req.input.message === null ? '' : String(req.input.message).trim();
      if (message) {
        const target = createHash('sha1').update(`tag ${name}\nobject ${commit.id}\n\n${message}\n`).digest('hex');
        const table = tagAnnotations(req.db);
        table.splice(0, table.length, ...table.filter((a) => !(a.project_id === project.id && a.name === name)));
        table.push({ project_id: project.id, name, message, target, created_at: req.now().toISOString() });
      }
      return created(presentTag(req, project, name, commit.id));
    });

    api.route(t.delete, (req) => {
      const project = projectFor(req, Role.developer);
      const repository = repositoryOf(req.db, project.id);
      const name = req.params.tag_name;
      if (!repository.tags[name]) throw errors.notFound('Tag');
      if (tagProtected(req.db, project, name) && projectRole(req.db, req.user, project) < Role.maintainer) throw errors.message(400, PROTECTED_TAG_DELETION);
      delete repository.tags[name];
      const table = tagAnnotations(req.db);
      const index = table.findIndex((a) => a.project_id === project.id && a.name === name);
      if (index >= 0) table.splice(index, 1);
      return noContent();
    });
  },
};
