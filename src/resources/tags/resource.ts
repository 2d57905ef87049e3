import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** Tags of a project's repository: lightweight, or annotated with a message. The name is the id. */
export const tags = defineResource({
  noun: 'tag',
  command: 'tags',
  parent: 'project',
  id: { param: 'tag_name', field: 'name' },
  routes: {
    list: 'GET /projects/{project}/repository/tags',
    get: 'GET /projects/{project}/repository/tags/{tag_name}',
    create: 'POST /projects/{project}/repository/tags',
    delete: 'DELETE /projects/{project}/repository/tags/{tag_name}',
  },
  fields: {
    tag_name: f.string({ create: 'required', writeOnly: true, help: 'name of the new tag', placeholder: '<name>', flag: 'name' }),
    ref: f.string({ create: 'required', writeOnly: true, help: 'branch, tag or commit SHA to tag', placeholder: '<ref>' }),
    commit: f.object({ readOnly: true }),
    release: f.object({ readOnly: true }),
    name: f.string({ readOnly: true }),
    target: f.string({ readOnly: true }),
    message: f.string({ help: 'message of an annotated tag (without it the tag is lightweight)' }),
    protected: f.bool({ readOnly: true }),
    created_at: f.time({ readOnly: true }),
  },
  filters: { search: f.string({ help: 'only names containing this text (^text: starting with it, text$: ending with it)' }) },
  columns: ['name', 'target', 'message'],
  identity: ['name'],
  roles: { read: 'reporter', write: 'developer' },
});
