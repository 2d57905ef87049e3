import { f } from '../../api/fields.js';
import { defineSingleton } from '../../api/resource.js';

/**
 * Your user status (an emoji, a message, busy or not, until when), set with PUT, which replaces it whole; `ofUser`
 * reads anyone's. No command calls these routes; the sandbox serves them for other clients (python-gitlab).
 */
export const userStatus = defineSingleton({
  noun: 'user status',
  parent: 'instance',
  where: () => 'your account',
  routes: {
    get: 'GET /user/status',
    update: 'PUT /user/status',
    ofUser: 'GET /users/{user}/status',
  },
  fields: {
    emoji: f.string({ nullable: true, help: 'the emoji\'s name (default speech_balloon with a message)' }),
    availability: f.enum(['not_set', 'busy'], { default: 'not_set' }),
    message: f.string({ nullable: true }),
    message_html: f.string({ readOnly: true }),
    clear_status_at: f.time({ readOnly: true, nullable: true }),
    /** When the status clears itself; the service answers the moment as clear_status_at. */
    clear_status_after: f.enum(['30_minutes', '3_hours', '8_hours', '1_day', '3_days', '7_days', '30_days'], { writeOnly: true }),
  },
  roles: { read: 'guest', write: 'guest' },
});
