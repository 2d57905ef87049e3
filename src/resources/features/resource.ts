import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/**
 * The instance's feature flags (its Flipper gates, not a project's feature flags), for administrators: the flags
 * set so far, the definitions the instance knows (`definitions`), setting one (`set`: on, off, a percentage, or on
 * for some users, groups or projects; it is created when new) and deleting one. No command calls these routes; the
 * sandbox serves them for other clients (python-gitlab).
 */
export const features = defineResource({
  noun: 'feature flag',
  parent: 'instance',
  id: { param: 'name', field: 'name' },
  routes: {
    list: 'GET /features',
    definitions: 'GET /features/definitions',
    set: 'POST /features/{name}',
    delete: 'DELETE /features/{name}',
  },
  fields: {
    name: f.string({ readOnly: true }),
    state: f.enum(['on', 'off', 'conditional'], { readOnly: true }),
    gates: f.object<Array<{ key: string; value: unknown }>>(),
    definition: f.object({ nullable: true }),
  },
  columns: ['name', 'state'],
  identity: ['name'],
  roles: { read: 'owner', write: 'owner' },
});
