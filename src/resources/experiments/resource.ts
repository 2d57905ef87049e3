import { f, type RecordOf } from '../../api/fields.js';
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
    definition: f.object<{ name: string; introduced_by_url: string | null; rollout_issue_url: string | null; milestone: string; type: string; group: string; default_enabled: boolean }>({ readOnly: true }),
    current_status: f.object<{ state: 'on' | 'off' | 'conditional'; gates: Array<{ key: 'boolean' | 'percentage_of_actors'; value: boolean | number }> }>({ readOnly: true }),
  },
  columns: ['key', 'current_status.state', 'definition.default_enabled', 'definition.milestone', 'definition.group', 'current_status.gates'],
  identity: ['key'],
  roles: { read: 'owner', write: 'owner' },
});

/** An experiment as the listing presents it. */
export type Experiment = RecordOf<typeof experiments>;
