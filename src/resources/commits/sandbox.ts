import { findProject, projectFor, Role } from '../../sandbox/auth.js';
import { diffSnapshots } from '../../sandbox/git/diff.js';
import { presentCommit } from '../../sandbox/git/present.js';
import { findCommit, isAncestor, parentsOf, reachable, repositoryOf, resolveRevision, snapshotOf } from '../../sandbox/git/repository.js';
import { entryAt } from '../../sandbox/git/store.js';
import { applyActions, commitToBranch, type CommitAction } from '../../sandbox/git/write.js';
import { bool, created, errors, HttpError, int, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import {
  commitComments, commitSignatures, commitStatuses, commits as commitTable, projects, users,
  type Commit, type CommitComment, type CommitStatus, type CommitStatusState, type Project,
} from '../../sandbox/model.js';
import { presentUserBasic } from '../../sandbox/present.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { commitOf, readableProject } from '../../sandbox/repository-access.js';
import { paginate } from '../../sandbox/pagination.js';
import { commitComments as commitCommentDeclaration, commitStatuses as commitStatusDeclaration, COMMIT_STATUS_STATES, commits as declared } from './resource.js';
import { found, presentRecord, type Values } from '../../sandbox/records.js';

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
  return found(resolveRevision(req.db, project, req.params.sha), 'Commit');
}

/** The commit the route names, in a project whose code the caller may read. */
function readCommit(req: SandboxRequest): { project: Project; commit: Commit } {
  const project = readableProject(req);
  return { project, commit: commitParam(req, project) };
}

/** Copies a commit's history from another project of the fork network (objects are shared; commits are per project). */
function importHistory(req: SandboxRequest, commit: Commit, projectId: number): void {
  for (const c of reachable(req.db, [commit])) {
    if (!findCommit(req.db, projectId, c.id)) commitTable(req.db).push({ ...c, project_id: projectId });
  }
}

const REVERT_FAILED = 'Sorry, we cannot revert this commit automatically. This commit may already have been reverted, or a more recent commit may have updated some of its content.';

/**
 * Cherry-picks (or reverts) a commit onto `branch`: each path the commit changed must be on the branch as the
 * commit found it (as it left it, for a revert), else the change conflicts; a change already there is skipped. 400
 * with error_code conflict or empty as the service answers, and `dry_run` checks only.
 */
function applyCommit(req: SandboxRequest, project: Project, commit: Commit, how: { revert: boolean; message: string; failed: string }) {
  const branch = String(required(req, 'branch'));
  const dryRun = Boolean(bool(req.input.dry_run));
  const head = commitOf(req, project, branch, 'Branch');
  const parent = snapshotOf(req.db, parentsOf(req.db, commit)[0]);
  const child = snapshotOf(req.db, commit);
  const [before, after] = how.revert ? [child, parent] : [parent, child];
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
  if (failure) throw new HttpError(400, { message: how.failed, error_code: failure, ...(dryRun ? { dry_run: 'error' } : {}) });
  if (dryRun) return ok({ dry_run: 'success' });
  const written = commitToBranch(req, project, {
    branch,
    message: how.message,
    authorName: how.revert ? req.user!.name : commit.author_name,
    authorEmail: how.revert ? req.user!.email : commit.author_email,
    change: (snapshot) => {
      snapshot.clear();
      for (const [path, entry] of target) snapshot.set(path, entry);
    },
  });
  return created(presentCommit(written, project, req.rootUrl, { stats: true, single: true }));
}

/** The author of a comment or status, as its answer has it. */
const authorOf = (req: SandboxRequest, record: { author_id: number }): Values => {
  const author = users(req.db).find((u) => u.id === record.author_id);
  return { author: author ? presentUserBasic(author, req.rootUrl) : null };
};

const presentedComment = (req: SandboxRequest) => (comment: CommitComment): Values => presentRecord(commitCommentDeclaration, comment, authorOf(req, comment));

const presentedStatus = (req: SandboxRequest) => (status: CommitStatus): Values => presentRecord(commitStatusDeclaration, status, { allow_failure: false, ...authorOf(req, status) });

function addComment(req: SandboxRequest) {
  const { project, commit } = readCommit(req);
  const note = String(required(req, 'note'));
  const lineType = req.input.line_type === undefined ? undefined : String(req.input.line_type);
  if (lineType !== undefined && !['new', 'old'].includes(lineType)) throw errors.invalid('line_type');
  const path = req.input.path === undefined ? null : String(req.input.path);
  const line = path === null ? null : (int(req.input.line, 'line') ?? null);
  const comment: CommitComment = {
    id: req.db.nextId('commit_comments'), project_id: project.id, sha: commit.id, note, path, line,
    line_type: path === null ? null : ((lineType as CommitComment['line_type']) ?? 'new'), author_id: req.user!.id, created_at: req.now().toISOString(),
  };
  commitComments(req.db).push(comment);
  return created(presentedComment(req)(comment));
}

function listStatuses(req: SandboxRequest) {
  const { project, commit } = readCommit(req);
  const { ref, name, stage } = req.query as Record<string, string | undefined>;
  let list = commitStatuses(req.db).filter((s) => s.project_id === project.id && s.sha === commit.id);
  if (ref) list = list.filter((s) => s.ref === ref);
  if (name) list = list.filter((s) => s.name === name);
  if (stage) list = list.filter((s) => s.stage === stage);
  // Without all=true, only the newest status of each name and ref.
  if (!bool(req.query.all)) list = list.filter((s) => !list.some((t) => t.id > s.id && t.name === s.name && t.ref === s.ref));
  return paginate(req, list, { present: presentedStatus(req) });
}

/** External commit statuses: CI systems outside the instance report here. */
const FINISHED: CommitStatusState[] = ['success', 'failed', 'canceled', 'skipped'];
const EVENT: Record<CommitStatusState, string> = { pending: 'enqueue', running: 'run', success: 'success', failed: 'drop', canceled: 'cancel', skipped: 'skip' };

/** A status of the same name that has not finished moves to the new state; a finished one is followed by a new one. */
function setStatus(req: SandboxRequest) {
  const project = projectFor(req, Role.developer);
  const commit = commitParam(req, project);
  const state = String(required(req, 'state')) as CommitStatusState;
  if (!COMMIT_STATUS_STATES.includes(state)) throw errors.invalid('state');
  const ref = req.input.ref === undefined || req.input.ref === '' ? project.default_branch : String(req.input.ref);
  const name = String(req.input.name ?? req.input.context ?? 'default');
  const at = req.now().toISOString();
  const coverage = req.input.coverage === undefined ? null : Number(req.input.coverage);
  if (coverage !== null && !Number.isFinite(coverage)) throw errors.invalid('coverage');
  const table = commitStatuses(req.db);
  let status = table.find((s) => s.project_id === project.id && s.sha === commit.id && s.ref === ref && s.name === name && !FINISHED.includes(s.status));
  if (status && status.status === state) throw errors.badRequest(`Cannot transition status via :${EVENT[state]} from :${status.status}`);
  if (!status) {
    status = {
      id: req.db.nextId('commit_statuses'), project_id: project.id, sha: commit.id, ref, name, stage: 'external', status: 'pending',
      target_url: null, description: null, created_at: at, started_at: null, finished_at: null, coverage: null,
      pipeline_id: int(req.input.pipeline_id, 'pipeline_id') ?? req.db.nextId('status_pipelines') + 1000, author_id: req.user!.id,
    };
    table.push(status);
  }
  status.status = state;
  if (req.input.target_url !== undefined) status.target_url = String(req.input.target_url);
  if (req.input.description !== undefined) status.description = String(req.input.description);
  if (coverage !== null) status.coverage = coverage;
  if (state === 'running' && !status.started_at) status.started_at = at;
  if (FINISHED.includes(state)) status.finished_at = at;
  return created(presentedStatus(req)(status));
}

const CHERRY_PICK_FAILED = 'Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content.';

// Reads: the history, one commit, its refs, sequence number, signature and diff, its comments.

/** The commits ref_name selects, filtered by date, author and path. */
function listCommits(req: SandboxRequest) {
  const project = readableProject(req);
  let list = selectCommits(req, project);
  const { since, until, path, author } = req.query as Record<string, string | undefined>;
  if (since) list = list.filter((c) => c.committed_date >= new Date(since).toISOString());
  if (until) list = list.filter((c) => c.committed_date <= new Date(until).toISOString());
  if (author) list = list.filter((c) => `${c.author_name} <${c.author_email}>`.toLowerCase().includes(author.toLowerCase()));
  if (path) list = list.filter((c) => touches(req, c, path.replace(/^\/+|\/+$/g, '')));
  const options = { stats: Boolean(bool(req.query.with_stats)), trailers: Boolean(bool(req.query.trailers)) };
  return paginate(req, list, { withoutCount: true, present: (c) => presentCommit(c, project, req.rootUrl, options) });
}

function getCommit(req: SandboxRequest) {
  const { project, commit } = readCommit(req);
  return ok(presentCommit(commit, project, req.rootUrl, { stats: bool(req.query.stats) !== false, single: true }));
}

/** The branches and tags (type: branch, tag or all) whose history holds the commit. */
function refsOf(req: SandboxRequest) {
  const { project, commit } = readCommit(req);
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
}

/** The number of commits in the commit's history (with first_parent, along first parents only). */
function sequenceOf(req: SandboxRequest) {
  const { commit } = readCommit(req);
  return ok({ count: reachable(req.db, [commit], { firstParent: Boolean(bool(req.query.first_parent)) }).length });
}

function signatureOf(req: SandboxRequest) {
  const { project, commit } = readCommit(req);
  const signature = found(commitSignatures(req.db).find((s) => s.project_id === project.id && s.sha === commit.id), 'Signature');
  return ok(signature.record);
}

/** The commit's changes against its first parent, without the line counts. */
function diffOf(req: SandboxRequest) {
  const { commit } = readCommit(req);
  const diffs = diffSnapshots(req.db, snapshotOf(req.db, parentsOf(req.db, commit)[0]), snapshotOf(req.db, commit), { unidiff: Boolean(bool(req.query.unidiff)) });
  return paginate(req, diffs.map(({ additions: _a, deletions: _d, ...diff }) => diff));
}

function listComments(req: SandboxRequest) {
  const { project, commit } = readCommit(req);
  return paginate(req, commitComments(req.db).filter((c) => c.project_id === project.id && c.sha === commit.id), { present: presentedComment(req) });
}

// Writes: a commit of actions, a cherry-pick, a revert.

/** A commit of file actions on a branch, which may start from another project's history (start_project). */
function createCommit(req: SandboxRequest) {
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
    change: (snapshot, parent) => applyActions(req, project, snapshot, parent, actions as CommitAction[]),
  });
  return created(presentCommit(commit, project, req.rootUrl, { stats: bool(req.input.stats) !== false, single: true }));
}

function cherryPick(req: SandboxRequest) {
  const project = projectFor(req, Role.developer);
  const commit = commitParam(req, project);
  const message = req.input.message ? String(req.input.message) : `${commit.message.replace(/\n+$/, '')}\n\n(cherry picked from commit ${commit.id})`;
  return applyCommit(req, project, commit, { revert: false, message, failed: CHERRY_PICK_FAILED });
}

function revert(req: SandboxRequest) {
  const project = projectFor(req, Role.developer);
  const commit = commitParam(req, project);
  const message = `Revert "${commit.title}"\n\nThis reverts commit ${commit.id}`;
  return applyCommit(req, project, commit, { revert: true, message, failed: REVERT_FAILED });
}

export const commits: SandboxModule = {
  // The signed commit is one of the repository module's history.
  seedAfter: ['repository'],
  seed(db) {
    // Alice signs her commits with her GPG key: acme/api's configuration commit has a verified signature.
    const project = projects(db).find((p) => p.path_with_namespace === 'acme/api');
    const signed = commitTable(db).find((c) => c.project_id === project?.id && c.title === 'Describe the configuration');
    if (!project || !signed) return;
    commitSignatures(db).push({ project_id: project.id, sha: signed.id, record: {
      signature_type: 'PGP', verification_status: 'verified', gpg_key_id: 1, gpg_key_primary_keyid: 'A1CE5EED0F1E2D3C',
      gpg_key_user_name: signed.author_name, gpg_key_user_email: signed.author_email, gpg_key_subkey_id: null, commit_source: 'gitaly',
    } });
  },
  routes(api) {
    const { routes } = declared;
    // Reads
    api.route(routes.list, listCommits, { auth: 'optional' });
    api.route(routes.get, getCommit, { auth: 'optional' });
    api.route(routes.refs, refsOf, { auth: 'optional' });
    api.route(routes.sequence, sequenceOf, { auth: 'optional' });
    api.route(routes.signature, signatureOf, { auth: 'optional' });
    api.route(routes.diff!, diffOf, { auth: 'optional' });
    api.route(commitCommentDeclaration.routes.list, listComments, { auth: 'optional' });
    api.route(commitStatusDeclaration.routes.list, listStatuses, { auth: 'optional' });
    // Writes
    api.route(routes.create, createCommit);
    api.route(routes.cherryPick, cherryPick);
    api.route(routes.revert!, revert);
    api.route(commitCommentDeclaration.routes.create, addComment);
    api.route(commitStatusDeclaration.routes.create, setStatus);
  },
};
