import { f } from '../../api/fields.js';
import { INTEGRATION_EVENT_FLAGS } from './values.js';
import { defineResource } from '../../api/resource.js';

const event = f.bool({ readOnly: true });
/** The event flags but vulnerability_events, which the service presents after `inherited`. */
const EVENTS = INTEGRATION_EVENT_FLAGS.filter((flag): flag is Exclude<(typeof INTEGRATION_EVENT_FLAGS)[number], 'vulnerability_events'> => flag !== 'vulnerability_events');
const routesUnder = <const P extends string>(prefix: P) =>
  ({
    list: `GET ${prefix}/integrations`,
    get: `GET ${prefix}/integrations/{slug}`,
    set: `PUT ${prefix}/integrations/{slug}`,
    disable: `DELETE ${prefix}/integrations/{slug}`,
  }) as const;

/**
 * Integrations of a group or of a project: one record per integration kind, by its slug. Setting one up (PUT) and
 * disabling it (DELETE) take kind-specific settings, so `integrations set` and desired state are hand-written over
 * these routes. The commands work on groups; the sandbox serves both.
 */
export const integrations = defineResource({
  noun: 'integration',
  command: 'integrations',
  id: { param: 'slug', field: 'slug' },
  parents: {
    group: { parent: 'group', routes: routesUnder('/groups/{group}') },
    project: { parent: 'project', routes: routesUnder('/projects/{project}') },
  },
  fields: {                                    // in the order the service presents them
    id: f.int({ readOnly: true }),
    title: f.string({ readOnly: true }),
    slug: f.string({ readOnly: true }),
    created_at: f.time({ readOnly: true }),
    updated_at: f.time({ readOnly: true }),
    active: f.bool({ readOnly: true }),
    ...(Object.fromEntries(EVENTS.map((flag) => [flag, event])) as Record<(typeof EVENTS)[number], typeof event>),
    inherited: f.bool({ readOnly: true }),
    vulnerability_events: event,
    properties: f.object<Record<string, unknown>>(),
  },
  columns: ['slug', 'title', 'active', 'updated_at'],
  identity: ['slug'],
  roles: { read: 'maintainer', write: 'maintainer' },
});
