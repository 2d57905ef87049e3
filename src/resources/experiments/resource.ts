import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/**
 * Experiments of a hosted deployment (an internal listing: team members of its operator only), one unpaginated list
 * filtered by state on the client.
 */
export const experiments = defineResource({
  noun: 'experiment',
  command: 'experiments',
  parent: 'instance',
  id: { param: 'key', field: 'key' },
  routes: { list: 'GET /experiments' },
  fields: {
    key: f.string({ readOnly: true }),
    definition: f.object<{ default_enabled?: boolean; milestone?: string; group?: string }>({ readOnly: true }),
    current_status: f.object<{ state?: string; gates?: unknown[] }>({ readOnly: true }),
  },
  columns: ['key', 'current_status.state', 'definition.default_enabled', 'definition.milestone', 'definition.group', 'current_status.gates'],
  identity: ['key'],
  roles: { read: 'owner', write: 'owner' },
});
