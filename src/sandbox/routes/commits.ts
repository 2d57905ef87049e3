import { findProject } from '../auth.js';
import { diffSnapshots } from '../git/diff.js';
import { presentCommit } from '../git/present.js';
import { findCommit, isAncestor, parentsOf, reachable, repositoryOf, resolveRevision, snapshotOf } from '../git/repository.js';
import { entryAt } from '../git/store.js';
import { applyActions, commitToBranch, type CommitAction } from '../git/write.js';
import { bool, created, errors, HttpError, ok, required, type SandboxRequest } from '../http.js';
import { commits as commitTable, type Commit, type Project } from '../model.js';
import type { SandboxModule } from '../module.js';
import { paginate } from '../pagination.js';
import { commits as declared } from '../../api/resources/commits.js';
import { commitOf, readableProject } from './repository.js';
import { projectFor, Role } from '../auth.js';

/** The commits a ref_name selects: a branch, tag or sha, or a range `a..b` (in b, not in a) or `a...b`. */
function selectCommits(req: SandboxRequest, project: Project): Commit[] {
  const firstParent = Boolean(bool(req.query.first_parent));
  const order = req.query.order === 'topo' ? 'topo' : 'default';
  if (req.query.order !== undefined && !['default', 'topo'].includes(String(req.query.order))) throw errors.invalid('order');
  if (bool(req.query.all)) {
    const repository = repositoryOf(req.db, project.id);
    const heads = [...Object.values(repository.branches), ...Object.values(repository.tags)].map((sha) => findCommit(req.db, project.id, sha)).filter((c): c is Commit => c !== undefined);
    return reachable(req.db, heads, { firstParent, order });
  }
  const refName = String(req.query.ref_name ?? project.default_branch);
  const range = /^(.+?)(\.\.\.?)(.+)$/.exec(refName);
  if (range) {
    const from = resolveRevision(req.db, project, range[1]);
    const to = resolveRevision(req.db, project, range[3]);
    if (!from || !to) return [];
    const exclude = new Set(reachable(req.db, range[2] === '...' ? [] : [from]).map((c) => c.id));
    if (range[2] === '...') {
      const inFrom = new Set(reachable(req.db, [from]).map((c) => c.id));
      const inTo = new Set(reachable(req.db, [to]).map((c) => c.id));
      return reachable(req.db, [from, to], { firstParent, order }).filter((c) => !(inFrom.has(c.id) && inTo.has(c.id)));
    }
    return reachable(req.db, [to], { firstParent, order }).filter((c) => !exclude.has(c.id));
  }
  const head = resolveRevision(req.db, project, refName);
  return head ? reachable(req.db, [head], { firstParent, order }) : [];
}

function touches(req: SandboxRequest, commit: Commit, path: string): boolean {
  const here = entryAt(req.db, commit.tree, path);
  const parents = parentsOf(req.db, commit);
  if (!parents.length) return here !== undefined;
  return parents.every((p) => {
    const there = entryAt(req.db, p.tree, path);
    return here?.id !== there?.id || here?.mode !== there?.mode;
  });
}

function commitParam(req: SandboxRequest, project: Project): Commit {
  const commit = resolveRevision(req.db, project, req.params.sha);
  if (!commit) throw errors.notFound('Commit');
  return commit;
}

/** Copies a commit's history from another project of the fork network (objects are shared; commits are per project). */
function importHistory(req: SandboxRequest, commit: Commit, projectId: number): void {
  for (const c of reachable(req.db, [commit])) {
    if (!findCommit(req.db, projectId, c.id)) commitTable(req.db).push({ ...c, project_id: projectId });
  }
}

const CHERRY_PICK_FAILED = 'Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content.';

export const commits: SandboxModule = {
  routes(api) {
    const { routes } = declared;

    api.route(routes.list, (req) => {
      const project = readableProject(req);
      let list = selectCommits(req, project);
      const { since, until, path, author } = req.query as Record<string, string | undefined>;
      if (since) list = list.filter((c) => c.committed_date >= new Date(since).toISOString());
      if (until) list = list.filter((c) => c.committed_date <= new Date(until).toISOString());
      if (author) list = list.filter((c) => `${c.author_name} <${c.author_email}>`.toLowerCase().includes(author.toLowerCase()));
      if (path) list = list.filter((c) => touches(req, c, path.replace(/^\/+|\/+$/g, '')));
      const options = { stats: Boolean(bool(req.query.with_stats)), trailers: Boolean(bool(req.query.trailers)) };
      return paginate(req, list, { withoutCount: true, present: (c) => presentCommit(c, project, req.rootUrl, options) });
    }, { auth: 'optional' });

    api.route(routes.create, (req) => {
      const project = projectFor(req, Role.developer);
      const branch = String(required(req, 'branch'));
      const message = String(required(req, 'commit_message'));
      const actions = req.input.actions;
      if (!Array.isArray(actions) || !actions.length) throw errors.missing('actions');
      const startProjectParam = req.input.start_project;
      if (startProjectParam !== undefined && String(startProjectParam) !== String(project.id) && String(startProjectParam) !== project.path_with_namespace) {
        const startProject = findProject(req.db, String(startProjectParam));
        const start = resolveRevision(req.db, startProject, String(req.input.start_sha ?? req.input.start_branch ?? startProject.default_branch));
        if (!start) throw errors.message(400, `Invalid start reference in project ${startProject.path_with_namespace}`);
        importHistory(req, start, project.id);
      }
      const commit = commitToBranch(req, project, {
        branch,
        message,
        startBranch: req.input.start_branch,
        startSha: req.input.start_sha,
        force: Boolean(bool(req.input.force)),
        authorName: req.input.author_name,
        authorEmail: req.input.author_email,
        change: (snapshot, parent) => applyActions(req, snapshot, parent, actions as CommitAction[]),
      });
      return created(presentCommit(commit, project, req.rootUrl, { stats: bool(req.input.stats) !== false, single: true }));
    });

    api.route(routes.get, (req) => {
      const project = readableProject(req);
      const commit = commitParam(req, project);
      return ok(presentCommit(commit, project, req.rootUrl, { stats: bool(req.query.stats) !== false, single: true }));
    }, { auth: 'optional' });

    api.route(routes.refs, (req) => {
      const project = readableProject(req);
      const commit = commitParam(req, project);
      const type = String(req.query.type ?? 'all');
      if (!['branch', 'tag', 'all'].includes(type)) throw errors.invalid('type');
      const repository = repositoryOf(req.db, project.id);
      const refs: Array<{ type: 'branch' | 'tag'; name: string }> = [];
      const contains = (sha: string): boolean => {
        const head = findCommit(req.db, project.id, sha);
        return head !== undefined && isAncestor(req.db, commit, head);
      };
      if (type !== 'tag') for (const [name, sha] of Object.entries(repository.branches)) if (contains(sha)) refs.push({ type: 'branch', name });
      if (type !== 'branch') for (const [name, sha] of Object.entries(repository.tags)) if (contains(sha)) refs.push({ type: 'tag', name });
      return paginate(req, refs, { withoutCount: true });
    }, { auth: 'optional' });

    api.route(routes.sequence, (req) => {
      const project = readableProject(req);
      const commit = commitParam(req, project);
      return ok({ count: reachable(req.db, [commit], { firstParent: Boolean(bool(req.query.first_parent)) }).length });
    }, { auth: 'optional' });

    api.route(routes.cherryPick, (req) => {
      const project = projectFor(req, Role.developer);
      const commit = commitParam(req, project);
      const branch = String(required(req, 'branch'));
      const dryRun = Boolean(bool(req.input.dry_run));
      const head = commitOf(req, project, branch, 'Branch');
      const before = snapshotOf(req.db, parentsOf(req.db, commit)[0]);
      const after = snapshotOf(req.db, commit);
      const target = snapshotOf(req.db, head);
      const same = (a?: { id: string; mode: string }, b?: { id: string; mode: string }) => a?.id === b?.id && a?.mode === b?.mode;
      let applied = 0;
      let conflict = false;
      for (const diff of diffSnapshots(req.db, before, after)) {
        for (const path of new Set([diff.old_path, diff.new_path])) {
          const was = before.get(path);
          const now = after.get(path);
          const there = target.get(path);
          if (same(was, now)) continue;
          if (same(there, now)) continue;
          if (!same(there, was)) conflict = true;
          else {
            if (now) target.set(path, now);
            else target.delete(path);
            applied++;
          }
        }
      }
      const failure = conflict ? 'conflict' : applied === 0 ? 'empty' : undefined;
      if (failure) throw new HttpError(400, { message: CHERRY_PICK_FAILED, error_code: failure, ...(dryRun ? { dry_run: 'error' } : {}) });
      if (dryRun) return ok({ dry_run: 'success' });
      const picked = commitToBranch(req, project, {
        branch,
        message: req.input.message ? String(req.input.message) : `${commit.message.replace(/\n+$/, '')}\n\n(cherry picked from commit ${commit.id})`,
        authorName: commit.author_name,
        authorEmail: commit.author_email,
        change: (snapshot) => {
          snapshot.clear();
          for (const [path, entry] of target) snapshot.set(path, entry);
        },
      });
      return created(presentCommit(picked, project, req.rootUrl, { stats: true, single: true }));
    });
  },
};
