import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/**
 * Licenses of the instance (administrators): the current one (a JSON null when none is installed), the history, and
 * adding and removing them. The commands are workflows (warnings about expiry and overage, a key from a file), so
 * they are hand-written over these routes.
 */
export const licenses = defineResource({
  noun: 'license',
  command: 'license',
  parent: 'instance',
  id: { param: 'license_id', field: 'id' },
  routes: {
    list: 'GET /licenses',
    get: 'GET /license/{license_id}',
    current: 'GET /license',
    create: 'POST /license',
    delete: 'DELETE /license/{license_id}',
    refreshBillable: 'PUT /license/{license_id}/refresh_billable_users',
    usageExport: 'GET /license/usage_export.csv',
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    plan: f.string({ readOnly: true }),
    created_at: f.time({ readOnly: true }),
    starts_at: f.date({ readOnly: true, nullable: true }),
    expires_at: f.date({ readOnly: true, nullable: true }),
    historical_max: f.int({ readOnly: true }),
    maximum_user_count: f.int({ readOnly: true }),
    expired: f.bool({ readOnly: true }),
    overage: f.int({ readOnly: true }),
    user_limit: f.int({ readOnly: true, nullable: true }),
    active_users: f.int({ readOnly: true }),
    licensee: f.object<{ Name: string; Email: string; Company: string }>(),
    add_ons: f.object<Record<string, number>>(),
  },
  columns: ['id', 'plan', 'licensee.Name', 'licensee.Company', 'user_limit', 'historical_max', 'overage', 'starts_at', 'expires_at', 'expired'],
  identity: ['id'],
  roles: { read: 'owner', write: 'owner' },
});
