import { branches as branchDef } from './resource.js';
import { projectFor, Role } from '../../sandbox/auth.js';
import { presentCommit } from '../../sandbox/git/present.js';
import { findCommit, isAncestor, moveBranch, repositoryOf, resolveRevision } from '../../sandbox/git/repository.js';
import { putBlob } from '../../sandbox/git/store.js';
import { commitToBranch } from '../../sandbox/git/write.js';
import { accepted, created, errors, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { mergeRequests, type Project } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { paginate } from '../../sandbox/pagination.js';
import { mayPush, rulesFor } from '../../sandbox/protection.js';
import { presentDerived } from '../../sandbox/records.js';
import { readableProject, refTarget, refuseProtectedDeletion, searchedRefs, startCommit, validRefName } from '../../sandbox/repository-access.js';

/**
 * Branches of a repository (the refs of src/sandbox/git): list (with search), get, create from a ref, delete, delete
 * the branches merged into the default one. Names keep their dots and slashes (`release/1.2`): each is one encoded
 * path segment.
 */

/** A branch as the service presents it, from its ref: its declared fields, each computed. */
function branchOf(req: SandboxRequest, project: Project, name: string, sha: string): Record<string, unknown> {
  const commit = findCommit(req.db, project.id, sha)!;
  const isDefault = name === project.default_branch;
  const head = resolveRevision(req.db, project, project.default_branch);
  const rules = rulesFor(req.db, project, name);
  const developers = (kind: 'push_access_levels' | 'merge_access_levels') => rules.some((rule) => rule[kind].some((entry) => entry.access_level === Role.developer && entry.user_id === undefined && entry.group_id === undefined));
  return presentDerived(branchDef, {
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
  });
}

export const branchesModule: SandboxModule = {
  routes(api) {
    const open = { auth: 'optional' as const };
    const r = branchDef.routes;

    api.route(r.list, (req) => {
      const project = readableProject(req);
      const repository = repositoryOf(req.db, project.id);
      const names = searchedRefs(Object.keys(repository.branches).sort(), req.query.search);
      return paginate(req, names, { present: (name) => branchOf(req, project, name, repository.branches[name]) });
    }, open);

    api.route(r.get, (req) => {
      const project = readableProject(req);
      return ok(branchOf(req, project, req.params.branch, refTarget(req, project, 'branch', req.params.branch)));
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
      return created(branchOf(req, project, name, commit.id));
    });

    api.route(r.delete, (req) => {
      const project = projectFor(req, Role.developer);
      const name = req.params.branch;
      refTarget(req, project, 'branch', name); // 404 when there is none
      if (name === project.default_branch) throw errors.message(405, 'Cannot remove HEAD branch');
      refuseProtectedDeletion(req, project, 'branch', rulesFor(req.db, project, name).length > 0);
      delete repositoryOf(req.db, project.id).branches[name];
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
  },
};
