import { f } from '../fields.js';
import { defineSingleton } from '../resource.js';

/** The instance's version (any signed-in user): `doctor` reads it, and times its round trip. */
export const instanceVersion = defineSingleton({
  noun: 'version',
  command: 'doctor',
  parent: 'instance',
  routes: { get: 'GET /version' },
  fields: {
    version: f.string({ readOnly: true }),
    revision: f.string({ readOnly: true }),
    kas: f.object({ readOnly: true }),
    enterprise: f.bool({ readOnly: true }),
  },
  roles: { read: 'guest', write: 'owner' },
});
