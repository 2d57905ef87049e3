import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** Submodule references: a gitlink moved to another commit. */
export const submodules = defineResource({
  noun: 'submodule',
  command: 'submodules',
  parent: 'project',
  id: { param: 'submodule', field: 'path' },
  routes: { update: 'PUT /projects/{project}/repository/submodules/{submodule}' },
  fields: { path: f.string({ readOnly: true }) },
  columns: ['path'],
  identity: ['path'],
  roles: { read: 'reporter', write: 'developer' },
});
