import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** Branches of a project's repository. The name is the id: one encoded segment, dots and slashes kept. */
export const branches = defineResource({
  noun: 'branch',
  command: 'branches',
  parent: 'project',
  id: { param: 'branch', field: 'name' },
  routes: {
    list: 'GET /projects/{project}/repository/branches',
    get: 'GET /projects/{project}/repository/branches/{branch}',
    create: 'POST /projects/{project}/repository/branches',
    delete: 'DELETE /projects/{project}/repository/branches/{branch}',
    deleteMerged: 'DELETE /projects/{project}/repository/merged_branches',
  },
  fields: {
    branch: f.string({ create: 'required', writeOnly: true, help: 'name of the new branch (slashes and dots allowed)', placeholder: '<name>' }),
    ref: f.string({ create: 'required', writeOnly: true, help: 'branch, tag or commit SHA to start it from', placeholder: '<ref>' }),
    name: f.string({ readOnly: true }),
    merged: f.bool({ readOnly: true }),
    protected: f.bool({ readOnly: true }),
    default: f.bool({ readOnly: true }),
    developers_can_push: f.bool({ readOnly: true }),
    developers_can_merge: f.bool({ readOnly: true }),
    can_push: f.bool({ readOnly: true }),
    web_url: f.string({ readOnly: true }),
    commit: f.object({ readOnly: true }),
  },
  filters: { search: f.string({ help: 'only names containing this text (^text: starting with it, text$: ending with it)' }) },
  columns: ['name', 'default', 'protected', 'merged'],
  identity: ['name'],
  roles: { read: 'reporter', write: 'developer' },
});
