import { deflateSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { gitCommitText, sortTreeEntries } from '../../git/objects.js';
import type { Db } from '../db.js';
import type { Commit, Project } from '../model.js';
import { findCommit, reachable, repositoryOf } from './repository.js';
import { getBlob, getTree } from './store.js';

/**
 * `GET /projects/:project/snapshot`: the repository as a tar of a bare git repository (HEAD, config, refs and loose
 * objects), which `git clone` and `git fsck` read, as the service's snapshot is a tar of the repository's directory.
 */
export async function repositorySnapshot(db: Db, project: Project, mtime: Date): Promise<Buffer> {
  const repository = repositoryOf(db, project.id);
  const objects = new Map<string, Buffer>();
  const add = (id: string, type: string, body: Buffer): void => {
    if (!objects.has(id)) objects.set(id, deflateSync(Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body])));
  };
  const addTree = (id: string): void => {
    if (objects.has(id)) return;
    const entries = sortTreeEntries(getTree(db, id) ?? []);
    const body = Buffer.concat(entries.flatMap((e) => [Buffer.from(`${e.mode === '040000' ? '40000' : e.mode} ${e.name}\0`), Buffer.from(e.id, 'hex')]));
    add(id, 'tree', body);
    for (const entry of entries) {
      if (entry.mode === '040000') addTree(entry.id);
      else if (entry.mode !== '160000') add(entry.id, 'blob', getBlob(db, entry.id) ?? Buffer.alloc(0));
    }
  };
  const heads = [...Object.values(repository.branches), ...Object.values(repository.tags)].map((sha) => findCommit(db, project.id, sha)).filter((c): c is Commit => c !== undefined);
  for (const commit of reachable(db, heads)) {
    const text = gitCommitText({
      tree: commit.tree, parents: commit.parent_ids, message: commit.message,
      author: { name: commit.author_name, email: commit.author_email, date: commit.authored_date },
      committer: { name: commit.committer_name, email: commit.committer_email, date: commit.committed_date },
    });
    add(commit.id, 'commit', Buffer.from(text));
    addTree(commit.tree);
  }
  const refs = [
    ...Object.entries(repository.branches).map(([name, sha]) => [`refs/heads/${name}`, sha]),
    ...Object.entries(repository.tags).map(([name, sha]) => [`refs/tags/${name}`, sha]),
  ].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const files: Array<[string, Buffer | string]> = [
    ['HEAD', `ref: refs/heads/${project.default_branch}\n`],
    ['config', '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n'],
    // Packed, as a name may be both a ref and a folder of refs here (feature and feature/health).
    ['packed-refs', `# pack-refs with: peeled fully-peeled sorted \n${refs.map(([name, sha]) => `${sha} ${name}\n`).join('')}`],
    ...[...objects].map(([id, data]): [string, Buffer] => [`objects/${id.slice(0, 2)}/${id.slice(2)}`, data]),
  ];
  const tar = pack();
  for (const folder of ['refs/heads', 'refs/tags']) tar.entry({ name: folder, mtime, mode: 0o755, type: 'directory' });
  for (const [name, content] of files) {
    const data = Buffer.from(content);
    tar.entry({ name, mtime, mode: 0o644, size: data.length, type: 'file' }, data);
  }
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of tar) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}
