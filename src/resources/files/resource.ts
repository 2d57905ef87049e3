import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** Files of a repository at a ref; each change is a commit. */
export const repositoryFiles = defineResource({
  noun: 'file',
  command: 'files',
  parent: 'project',
  id: { param: 'file_path', field: 'file_path' },
  routes: {
    get: 'GET /projects/{project}/repository/files/{file_path}',
    create: 'POST /projects/{project}/repository/files/{file_path}',
    update: 'PUT /projects/{project}/repository/files/{file_path}',
    delete: 'DELETE /projects/{project}/repository/files/{file_path}',
    info: 'HEAD /projects/{project}/repository/files/{file_path}',
    raw: 'GET /projects/{project}/repository/files/{file_path}/raw',
    blame: 'GET /projects/{project}/repository/files/{file_path}/blame',
  },
  fields: {
    file_name: f.string({ readOnly: true }),
    file_path: f.string({ readOnly: true }),
    size: f.int({ readOnly: true }),
    encoding: f.enum(['text', 'base64']),
    content_sha256: f.string({ readOnly: true }),
    ref: f.string({ readOnly: true }),
    blob_id: f.string({ readOnly: true }),
    commit_id: f.string({ readOnly: true }),
    last_commit_id: f.string({ help: 'refuse the change when the file was changed by a later commit than this one' }),
    execute_filemode: f.bool({ help: 'the executable bit' }),
    content: f.string(),
  },
  columns: ['file_path', 'size', 'blob_id', 'last_commit_id'],
  identity: ['file_path'],
  roles: { read: 'reporter', write: 'developer' },
});
