import { spawnSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { zipSync, type Zippable } from 'fflate';
import { pack } from 'tar-stream';
import type { Db } from '../db.js';
import { errors } from '../http.js';
import { getBlob, type Snapshot } from './store.js';

/** Archive formats of the archive endpoint's suffix, by the name the service accepts. */
const FORMATS: Record<string, 'tar.gz' | 'tar.bz2' | 'tar' | 'zip'> = {
  'tar.gz': 'tar.gz', tgz: 'tar.gz', gz: 'tar.gz',
  'tar.bz2': 'tar.bz2', bz2: 'tar.bz2', tbz: 'tar.bz2', tbz2: 'tar.bz2', tb2: 'tar.bz2',
  tar: 'tar',
  zip: 'zip',
};

export function archiveFormat(suffix: string | undefined): 'tar.gz' | 'tar.bz2' | 'tar' | 'zip' {
  const format = FORMATS[(suffix ?? 'tar.gz').toLowerCase()];
  if (!format) throw errors.notFound();
  return format;
}

export const ARCHIVE_TYPES = { 'tar.gz': 'application/gzip', 'tar.bz2': 'application/x-bzip2', tar: 'application/x-tar', zip: 'application/zip' } as const;

interface ArchiveEntry {
  path: string;
  /** Regular file content, or undefined for a directory. */
  data?: Buffer;
  executable?: boolean;
}

/**
 * The files of a snapshot under one root folder, as `git archive` writes them: directories, files with their exec
 * bit, and an empty directory for each submodule.
 */
function entries(db: Db, snapshot: Snapshot, root: string): ArchiveEntry[] {
  const out: ArchiveEntry[] = [{ path: `${root}/` }];
  const dirs = new Set<string>();
  for (const [path, entry] of [...snapshot].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (!dirs.has(dir)) {
        dirs.add(dir);
        out.push({ path: `${root}/${dir}/` });
      }
    }
    if (entry.mode === '160000') out.push({ path: `${root}/${path}/` });
    else out.push({ path: `${root}/${path}`, data: getBlob(db, entry.id) ?? Buffer.alloc(0), executable: entry.mode === '100755' });
  }
  return out;
}

/** A real archive file of the snapshot: tar (optionally gzip or bzip2 compressed) or zip. */
export async function buildArchive(db: Db, snapshot: Snapshot, root: string, format: 'tar.gz' | 'tar.bz2' | 'tar' | 'zip', mtime: Date): Promise<Buffer> {
  const list = entries(db, snapshot, root);
  if (format === 'zip') {
    const files: Zippable = {};
    for (const entry of list) {
      const mode = entry.data ? (entry.executable ? 0o100755 : 0o100644) : 0o040755;
      files[entry.path] = [entry.data ?? new Uint8Array(0), { attrs: (mode << 16) >>> 0, os: 3, mtime, level: entry.data ? 6 : 0 }];
    }
    return Buffer.from(zipSync(files));
  }
  const tar = pack();
  for (const entry of list) {
    const header = { name: entry.path, mtime, uid: 0, gid: 0, uname: 'root', gname: 'root' };
    if (entry.data) tar.entry({ ...header, type: 'file', mode: entry.executable ? 0o755 : 0o644, size: entry.data.length }, entry.data);
    else tar.entry({ ...header, type: 'directory', mode: 0o755 });
  }
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of tar) chunks.push(Buffer.from(chunk as Uint8Array));
  const plain = Buffer.concat(chunks);
  if (format === 'tar') return plain;
  if (format === 'tar.gz') return gzipSync(plain);
  return bzip2(plain);
}

/** bzip2 has no well-kept JavaScript compressor; the system's bzip2 does it (every Unix-like system ships one). */
function bzip2(data: Buffer): Buffer {
  const result = spawnSync('bzip2', ['-c', '-9'], { input: data, maxBuffer: 1 << 30 });
  if (result.error || result.status !== 0) throw errors.message(500, '500 Internal Server Error - bzip2 is not available to the sandbox');
  return result.stdout;
}
