import { createHash } from 'node:crypto';
import { projectFor, Role } from '../../sandbox/auth.js';
import { serveBytes } from '../../sandbox/bytes.js';
import { blame } from '../../sandbox/git/blame.js';
import { presentCommit } from '../../sandbox/git/present.js';
import { lastCommitFor } from '../../sandbox/git/repository.js';
import { entryAt, getBlob, isBinary } from '../../sandbox/git/store.js';
import { applyActions, branchWriteOf, checkPath, commitToBranch, fileChanged } from '../../sandbox/git/write.js';
import { bool, contentDisposition, created, errors, int, noContent, ok, type SandboxRequest } from '../../sandbox/http.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { presentDerived } from '../../sandbox/records.js';
import { commitOf, readableProject } from '../../sandbox/repository-access.js';
import { repositoryFiles as declared } from './resource.js';

/** A file at a ref: its record (the service's field order) and the response headers that carry the same data. */
function fileAt(req: SandboxRequest) {
  const project = readableProject(req);
  const path = checkPath(req.params.file_path);
  const ref = req.query.ref;
  if (ref === undefined || ref === '') throw errors.missing('ref');
  const commit = commitOf(req, project, ref, 'Commit');
  const entry = entryAt(req.db, commit.tree, path);
  if (!entry || entry.mode === '040000' || entry.mode === '160000') throw errors.notFound('File');
  const data = getBlob(req.db, entry.id) ?? Buffer.alloc(0);
  const values = {
    file_name: path.split('/').pop()!,
    file_path: path,
    size: data.length,
    encoding: 'base64',
    content_sha256: createHash('sha256').update(data).digest('hex'),
    ref: String(ref),
    blob_id: entry.id,
    commit_id: commit.id,
    last_commit_id: lastCommitFor(req.db, commit, path).id,
    execute_filemode: entry.mode === '100755',
  };
  // Real instances name these X-Gitlab-*; the service's documentation X-Service-*: both are sent.
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    const name = key.split('_').map((w) => w[0].toUpperCase() + w.slice(1)).join('-');
    headers[`X-Gitlab-${name}`] = headerText(String(value));
    headers[`X-Service-${name}`] = headerText(String(value));
  }
  return { project, path, data, record: values, headers };
}

/**
 * A header value as real instances put a file name on the wire: its UTF-8 bytes (Node writes a header string's
 * characters as single bytes). Control characters, which HTTP does not allow in a header, are percent-encoded.
 */
function headerText(value: string): string {
  // eslint-disable-next-line no-control-regex
  const printable = value.replace(/[\x00-\x08\x0a-\x1f\x7f]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return Buffer.from(printable, 'utf8').toString('latin1');
}

export const files: SandboxModule = {
  routes(api) {
    const { routes } = declared;

    api.route(routes.get, (req) => {
      const { data, record, headers } = fileAt(req);
      return ok(presentDerived(declared, { ...record, content: data.toString('base64') }), headers);
    }, { auth: 'optional' });

    api.route(routes.raw, (req) => {
      if (req.query.ref === undefined || req.query.ref === '') req.query.ref = 'HEAD';
      const { data, record, headers } = fileAt(req);
      return serveBytes(req, data, {
        contentType: isBinary(data) ? 'application/octet-stream' : 'text/plain; charset=utf-8',
        etag: `"${record.blob_id}"`,
        headers: { ...headers, 'Content-Disposition': contentDisposition('inline', record.file_name) },
      });
    }, { auth: 'optional' });

    api.route(routes.blame, (req) => {
      const { project, path, headers } = fileAt(req);
      const commit = commitOf(req, project, req.query.ref, 'Commit');
      const runs = blame(req.db, commit, path) ?? [];
      const range = req.query.range as { start?: string; end?: string } | undefined;
      const start = int(range?.start, 'range[start]');
      const end = int(range?.end, 'range[end]');
      if (range && (start === undefined || end === undefined || start < 1 || end < start)) throw errors.invalid('range');
      const out = [];
      for (const run of runs) {
        const lines = run.lines.filter((_, i) => start === undefined || (run.start + i >= start && run.start + i <= end!));
        if (!lines.length) continue;
        const c = presentCommit(run.commit, project, req.rootUrl);
        const commitFields = ['id', 'message', 'parent_ids', 'authored_date', 'author_name', 'author_email', 'committed_date', 'committer_name', 'committer_email'];
        out.push({ commit: Object.fromEntries(commitFields.map((k) => [k, c[k]])), lines });
      }
      return ok(out, headers);
    }, { auth: 'optional' });

    const write = (action: 'create' | 'update' | 'delete') => (req: SandboxRequest) => {
      const project = projectFor(req, Role.developer);
      const path = checkPath(req.params.file_path);
      const params = branchWriteOf(req);
      if (action !== 'delete' && req.input.content === undefined) throw errors.missing('content');
      const exec = bool(req.input.execute_filemode);
      commitToBranch(req, project, {
        ...params,
        change: (snapshot, base) => {
          // An update checks last_commit_id in its own words; a delete takes it and does not check it, as the service does.
          if (action === 'update' && fileChanged(req, project, base, path, req.input.last_commit_id)) {
            throw errors.message(400, 'You are attempting to update a file that has changed since you started editing it.');
          }
          applyActions(req, project, snapshot, base, [{ action, file_path: path, content: req.input.content, encoding: req.input.encoding }]);
          const entry = snapshot.get(path);
          if (entry && exec !== undefined) snapshot.set(path, { ...entry, mode: exec ? '100755' : '100644' });
        },
      });
      if (action === 'delete') return noContent();
      const body = { file_path: path, branch: params.branch };
      return action === 'create' ? created(body) : ok(body);
    };
    api.route(routes.create, write('create'));
    api.route(routes.update, write('update'));
    api.route(routes.delete, write('delete'));
  },
};
