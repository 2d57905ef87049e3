import { f } from '../../api/fields.js';
import { defineSingleton } from '../../api/resource.js';

/**
 * The instance's version and edition, for anyone signed in: `doctor` reads it to time one round trip and to tell the
 * instance from a proxy's page. `/metadata` answers the same record under its newer name.
 */
export const metadata = defineSingleton({
  noun: 'instance version',
  command: 'doctor',
  parent: 'instance',
  routes: {
    get: 'GET /version',
    metadata: 'GET /metadata',
    /** The background job processes (administrators): clients wait on it after slow changes (python-gitlab's tests). */
    sidekiqProcesses: 'GET /sidekiq/process_metrics',
  },
  fields: {
    version: f.string({ readOnly: true }),
    revision: f.string({ readOnly: true }),
    kas: f.object(),
    enterprise: f.bool({ readOnly: true }),
  },
  roles: { read: 'guest', write: 'owner' },
});
