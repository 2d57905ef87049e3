import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** A repository's tree, and the reads of the repository as a whole: blobs, archives, comparisons, contributors. */
export const repositoryTree = defineResource({
  noun: 'tree entry',
  command: 'repo',
  parent: 'project',
  id: { param: 'path', field: 'path' },
  routes: {
    list: 'GET /projects/{project}/repository/tree',
    blob: 'GET /projects/{project}/repository/blobs/{sha}',
    blobRaw: 'GET /projects/{project}/repository/blobs/{sha}/raw',
    /** The format is the path's suffix: `archive.zip`, `archive.tar.gz`. */
    archive: 'GET /projects/{project}/repository/archive',
    compare: 'GET /projects/{project}/repository/compare',
    contributors: 'GET /projects/{project}/repository/contributors',
    mergeBase: 'GET /projects/{project}/repository/merge_base',
    /** A tar of the bare repository, for administrators (backups): a download, no record. */
    snapshot: 'GET /projects/{project}/snapshot',
  },
  fields: {
    id: f.string({ readOnly: true, help: 'object id (blob, tree, or the commit of a submodule)' }),
    name: f.string({ readOnly: true }),
    type: f.enum(['tree', 'blob', 'commit'], { readOnly: true }),
    path: f.string({ readOnly: true }),
    mode: f.string({ readOnly: true }),
  },
  columns: ['mode', 'type', 'id', 'path'],
  identity: ['path'],
  roles: { read: 'reporter', write: 'developer' },
});

export const ARCHIVE_FORMATS = ['tar.gz', 'tar.bz2', 'tar', 'zip', 'tgz', 'gz', 'bz2', 'tb2', 'tbz', 'tbz2'] as const;

/** One file's change in a comparison or a commit's diff, as the service sends it. */
export interface FileDiff {
  old_path: string;
  new_path: string;
  a_mode: string;
  b_mode: string;
  diff: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
  /** The service's diff limits were reached: `diff` was emptied. */
  too_large?: boolean;
}
