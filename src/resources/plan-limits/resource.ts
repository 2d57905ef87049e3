import { f, type Field } from '../../api/fields.js';
import { PLAN_LIMITS } from './values.js';
import { defineSingleton } from '../../api/resource.js';

/**
 * The limits of a plan (administrators): a singleton of the instance, one per plan (the `plan_name` query
 * parameter, `default` when not given). Every limit is a whole number; the commands change them as limit=N pairs,
 * previewed and confirmed, so they are hand-written over these routes.
 */
export const planLimits = defineSingleton({
  noun: 'plan limits',
  command: 'plan-limits',
  parent: 'instance',
  routes: { get: 'GET /application/plan_limits', update: 'PUT /application/plan_limits' },
  fields: Object.fromEntries(Object.entries(PLAN_LIMITS).map(([name, value]): [string, Field<number>] => [name, f.int({ min: 0, default: value })])),
  roles: { read: 'owner', write: 'owner' },
});
