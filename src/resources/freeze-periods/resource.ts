import { cron } from './values.js';
import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** Deploy freeze periods of a project: when deployments should not happen. */
export const freezePeriods = defineResource({
  noun: 'freeze period',
  command: 'freeze-periods',
  parent: 'project',
  id: { param: 'freeze_period_id', field: 'id' },
  routes: {
    list: 'GET /projects/{project}/freeze_periods',
    get: 'GET /projects/{project}/freeze_periods/{freeze_period_id}',
    create: 'POST /projects/{project}/freeze_periods',
    update: 'PUT /projects/{project}/freeze_periods/{freeze_period_id}',
    delete: 'DELETE /projects/{project}/freeze_periods/{freeze_period_id}',
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    freeze_start: cron({ create: 'required', help: 'when the freeze starts, as a cron expression (checked locally)' }),
    freeze_end: cron({ create: 'required', help: 'when the freeze ends, as a cron expression (checked locally)' }),
    cron_timezone: f.timeZone({ default: 'UTC', help: 'IANA time zone of both expressions' }),
    created_at: f.time({ readOnly: true }),
    updated_at: f.time({ readOnly: true }),
  },
  columns: ['id', 'freeze_start', 'freeze_end', 'cron_timezone', 'created_at'],
  identity: ['freeze_start', 'freeze_end', 'cron_timezone'],
  roles: { read: 'reporter', write: 'maintainer' },
});

