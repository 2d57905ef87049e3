import { findProject, projectFor, requireAdmin } from '../../sandbox/auth.js';
import { repositorySnapshot } from '../../sandbox/git/snapshot.js';
import { serveBytes } from '../../sandbox/bytes.js';
import { archiveFormat, ARCHIVE_TYPES, buildArchive } from '../../sandbox/git/archive.js';
import { diffSnapshots } from '../../sandbox/git/diff.js';
import { presentCommit, presentCommitSummary } from '../../sandbox/git/present.js';
import { findCommit, mergeBase, reachable, repositoryOf, resolveRevision, seedCommit, snapshotOf } from '../../sandbox/git/repository.js';
import { findBlobId, getBlob, isBinary, listTree, type PathEntry } from '../../sandbox/git/store.js';
import { array, bool, contentDisposition, errors, ok, type SandboxRequest } from '../../sandbox/http.js';
import type { Db } from '../../sandbox/db.js';
import { projects } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { commitOf, readableProject } from '../../sandbox/repository-access.js';
import { paginate } from '../../sandbox/pagination.js';
import { found, presentDerived } from '../../sandbox/records.js';
import { repositoryTree as declared } from './resource.js';

/** A tree entry as the service presents it: its declared fields, the type from the mode. */
const entryOf = (entry: PathEntry): Record<string, unknown> =>
  presentDerived(declared, { ...entry, type: entry.mode === '040000' ? 'tree' : entry.mode === '160000' ? 'commit' : 'blob' });

/** The tree is keyset-paginated only: `page_token` names the last entry served; the next page comes through Link. */
function treePage(req: SandboxRequest, entries: PathEntry[]) {
  const all = req.query.pagination === 'none' && bool(req.query.recursive);
  const perPage = all ? entries.length : Math.min(100, Math.max(1, Number(req.query.per_page) || 20));
  let start = 0;
  if (req.query.page_token) {
    const after = Buffer.from(String(req.query.page_token), 'base64url').toString('utf8');
    start = entries.findIndex((e) => e.path === after) + 1;
    if (start === 0) throw errors.invalid('page_token');
  }
  const slice = entries.slice(start, start + perPage);
  const headers: Record<string, string> = {};
  if (start + perPage < entries.length) {
    const url = new URL(`${req.baseUrl}${req.rawPath}`);
    for (const [key, value] of Object.entries(req.query)) if (typeof value === 'string' && key !== 'page' && key !== 'page_token') url.searchParams.set(key, value);
    url.searchParams.set('pagination', 'keyset');
    url.searchParams.set('per_page', String(perPage));
    url.searchParams.set('page_token', Buffer.from(slice[slice.length - 1].path).toString('base64url'));
    headers.Link = `<${url.toString()}>; rel="next"`;
  }
  return ok(slice.map(entryOf), headers);
}

/** A 1×1 PNG: the demo repository's binary file. */
const LOGO = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/**
 * History worth browsing in acme/api, on top of the core seed's commits: a binary file, an executable script, a
 * submodule, a release tag, and branches `feature` (ahead of main, for compare) and `stable` (behind it).
 */
function seedDemoRepository(db: Db, now: Date): void {
  const project = projects(db).find((p) => p.path_with_namespace === 'acme/api');
  if (!project) return;
  const repository = repositoryOf(db, project.id);
  const main = findCommit(db, project.id, repository.branches.main);
  if (!main) return;
  const day = (n: number) => new Date(now.getTime() - (5 - n) * 86_400_000);
  const alice = { name: 'Alice Maintainer', email: 'alice@example.com' };
  const c1 = seedCommit(db, project.id, main, 'Add the logo and a deploy script\n\nReviewed-by: Bob Developer <bob@example.com>', {
    'assets/logo.png': { data: LOGO },
    'bin/deploy.sh': { data: Buffer.from('#!/bin/sh\nset -eu\necho "deploying $1"\n'), executable: true },
  }, day(1), alice);
  const c2 = seedCommit(db, project.id, c1, 'Vendor the common library as a submodule', {
    '.gitmodules': '[submodule "vendor/common"]\n\tpath = vendor/common\n\turl = https://git.example.com/acme/common.git\n',
    'vendor/common': { submodule: '3f4e5a1b2c3d4e5f60718293a4b5c6d7e8f90123' },
  }, day(2));
  const c3 = seedCommit(db, project.id, c2, 'Describe the configuration\n\nChangelog: added', {
    'README.md': '# acme/api\n\nThe API of Acme.\n\n## Configuration\n\nSet the port in src/config.yml.\n',
  }, day(3), alice);
  const f1 = seedCommit(db, project.id, c3, 'Add a status page', {
    'src/status.rb': 'get "/status" do\n  "all systems go"\nend\n',
    'README.md': '# acme/api\n\nThe API of Acme.\n\n## Configuration\n\nSet the port in src/config.yml.\n\n## Status\n\nGET /status answers when the service is up.\n',
  }, day(4), alice);
  Object.assign(repository.branches, { main: c3.id, feature: f1.id, stable: repository.tags['v1.0.0'] });
  repository.tags['v1.1.0'] = c3.id;
}

/** The blob a route's sha names (a prefix will do) in a repository the caller may read, else 404. */
function blobOf(req: SandboxRequest): { id: string; data: Buffer } {
  readableProject(req);
  const id = found(findBlobId(req.db, req.params.sha), 'Blob');
  return { id, data: getBlob(req.db, id)! };
}

/** An archive of the tree at a ref (or of a path in it), in the format its suffix names. */
async function archive(req: SandboxRequest) {
  const project = readableProject(req);
  const format = archiveFormat(req.params.format);
  const ref = req.query.sha === undefined || req.query.sha === '' ? project.default_branch : String(req.query.sha);
  const commit = commitOf(req, project, ref, 'Ref');
  const path = String(req.query.path ?? '').replace(/^\/+|\/+$/g, '');
  const excluded = (array(req.query.exclude_paths) ?? []).map((p) => p.replace(/^\/+|\/+$/g, ''));
  const snapshot = snapshotOf(req.db, commit);
  for (const file of [...snapshot.keys()]) {
    const outside = path && file !== path && !file.startsWith(`${path}/`);
    if (outside || excluded.some((e) => file === e || file.startsWith(`${e}/`))) snapshot.delete(file);
  }
  if (path && !snapshot.size) throw errors.notFound('Path');
  const root = `${project.path}-${ref.replace(/[^A-Za-z0-9._-]+/g, '-')}-${commit.id}${path ? `-${path.replace(/\//g, '-')}` : ''}`;
  const data = await buildArchive(req.db, snapshot, root, format, new Date(commit.committed_date));
  return serveBytes(req, data, {
    contentType: ARCHIVE_TYPES[format],
    etag: `"${commit.id}-${format}-${Buffer.from(`${path}|${excluded.join(',')}`).toString('base64url')}"`,
    headers: { 'Content-Disposition': `attachment; filename="${root}.${format}"`, 'Content-Transfer-Encoding': 'binary' },
  });
}

/** The commits and diffs between two refs: from their merge base, or straight from `from`. */
function compare(req: SandboxRequest) {
  const project = readableProject(req);
  if (req.query.from === undefined || req.query.from === '') throw errors.missing('from');
  if (req.query.to === undefined || req.query.to === '') throw errors.missing('to');
  const fromProject = req.query.from_project_id ? findProject(req.db, String(req.query.from_project_id)) : project;
  const from = resolveRevision(req.db, fromProject, String(req.query.from));
  const to = resolveRevision(req.db, project, String(req.query.to));
  if (!from || !to) throw errors.notFound('Ref');
  const straight = Boolean(bool(req.query.straight));
  const base = straight || fromProject.id !== project.id ? from : (mergeBase(req.db, [from, to]) ?? from);
  const known = new Set(reachable(req.db, [base]).map((c) => c.id));
  const added = reachable(req.db, [to]).filter((c) => !known.has(c.id)).reverse();
  const diffs = diffSnapshots(req.db, snapshotOf(req.db, base), snapshotOf(req.db, to), { unidiff: Boolean(bool(req.query.unidiff)) });
  return ok({
    commit: added.length ? presentCommitSummary(to, project, req.rootUrl) : null,
    commits: added.map((c) => presentCommitSummary(c, project, req.rootUrl)),
    diffs: diffs.map(({ additions: _a, deletions: _d, ...diff }) => diff),
    compare_timeout: false,
    compare_same_ref: String(req.query.from) === String(req.query.to),
    web_url: `${req.rootUrl}/${project.path_with_namespace}/-/compare/${req.query.from}...${req.query.to}`,
  });
}

/** Who authored the commits reachable from a ref, with their counts, in the order asked. */
function contributors(req: SandboxRequest) {
  const project = readableProject(req);
  const head = resolveRevision(req.db, project, String(req.query.ref ?? project.default_branch));
  const byEmail = new Map<string, { name: string; email: string; commits: number; additions: number; deletions: number }>();
  for (const commit of head ? reachable(req.db, [head]) : []) {
    if (commit.parent_ids.length > 1) continue;
    const key = commit.author_email.toLowerCase();
    const entry = byEmail.get(key) ?? { name: commit.author_name, email: commit.author_email, commits: 0, additions: 0, deletions: 0 };
    entry.commits++;
    entry.additions += commit.stats.additions;
    entry.deletions += commit.stats.deletions;
    byEmail.set(key, entry);
  }
  const orderBy = String(req.query.order_by ?? 'commits');
  if (!['name', 'email', 'commits'].includes(orderBy)) throw errors.invalid('order_by');
  const sort = String(req.query.sort ?? 'asc');
  if (!['asc', 'desc'].includes(sort)) throw errors.invalid('sort');
  const list = [...byEmail.values()].sort((a, b) => {
    const key = orderBy as 'name' | 'email' | 'commits';
    const order = key === 'commits' ? a.commits - b.commits : a[key].localeCompare(b[key]);
    return sort === 'asc' ? order : -order;
  });
  return paginate(req, list);
}

/** The best common ancestor of two refs or more. */
function mergeBaseOf(req: SandboxRequest) {
  const project = readableProject(req);
  const refs = array(req.query.refs) ?? [];
  if (refs.length < 2) throw errors.message(400, 'Provide at least 2 refs');
  const resolved = refs.map((ref) => ({ ref, commit: resolveRevision(req.db, project, ref) }));
  const missing = resolved.filter((r) => !r.commit).map((r) => r.ref);
  if (missing.length) throw errors.message(400, `Could not find ref(s): ${missing.join(', ')}`);
  const base = found(mergeBase(req.db, resolved.map((r) => r.commit!)), 'Merge Base');
  return ok(presentCommit(base, project, req.rootUrl, { single: true }));
}

export const repository: SandboxModule = {
  seed(db, { now }) {
    seedDemoRepository(db, now);
  },
  routes(api) {
    const { routes } = declared;
    const open = { auth: 'optional' as const };

    api.route(routes.list, (req) => {
      const project = readableProject(req);
      const commit = commitOf(req, project, req.query.ref, 'Tree');
      const entries = found(listTree(req.db, commit.tree, String(req.query.path ?? ''), Boolean(bool(req.query.recursive))), 'Tree');
      return treePage(req, entries);
    }, open);

    api.route(routes.blob, (req) => {
      const { id, data } = blobOf(req);
      return ok({ size: data.length, encoding: 'base64', content: data.toString('base64'), sha: id });
    }, open);

    api.route(routes.blobRaw, (req) => {
      const { id, data } = blobOf(req);
      return serveBytes(req, data, { contentType: isBinary(data) ? 'application/octet-stream' : 'text/plain; charset=utf-8', etag: `"${id}"` });
    }, open);

    api.route(routes.archive, archive, open);
    api.route(`${routes.archive}.{format}`, archive, open);

    api.route(routes.compare, compare, open);
    api.route(routes.contributors, contributors, open);
    api.route(routes.mergeBase, mergeBaseOf);

    // A tar of the bare repository, for administrators (backups).
    api.route(routes.snapshot, async (req) => {
      requireAdmin(req);
      const project = projectFor(req);
      if (bool(req.query.wiki)) throw errors.notFound();
      const data = await repositorySnapshot(req.db, project, req.now());
      return { status: 200, raw: { data, contentType: 'application/x-tar' }, headers: { 'Content-Disposition': contentDisposition('attachment', `${project.path}.tar`) } };
    });
  },
};

