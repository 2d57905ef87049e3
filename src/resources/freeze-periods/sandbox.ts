import { cronProblem } from './values.js';
import { canonicalTimeZone } from '../../api/fields.js';
import type { StoredOf } from '../../api/fields.js';
import { freezePeriods as resource } from './resource.js';
import { findProject } from '../../sandbox/auth.js';
import { crudModule } from '../../sandbox/crud.js';
import { errors } from '../../sandbox/http.js';

export const freezePeriods = crudModule<StoredOf<typeof resource> & { project_id: number }>(resource, {
  /** Model validation as the service does it (CronValidator / CronTimezoneValidator): 400 with a field map. */
  validate(period) {
    const problems: Record<string, string[]> = {};
    if (cronProblem(period.freeze_start)) problems.freeze_start = [' is invalid syntax'];
    if (cronProblem(period.freeze_end)) problems.freeze_end = [' is invalid syntax'];
    if (!canonicalTimeZone(period.cron_timezone)) problems.cron_timezone = [' is invalid syntax'];
    if (Object.keys(problems).length) throw errors.validation(problems);
  },
  seed(db, _context, insert) {
    // A weekend deploy freeze: Friday 23:00 to Monday 07:00, Berlin time.
    insert(findProject(db, 'acme/api').id, { freeze_start: '0 23 * * 5', freeze_end: '0 7 * * 1', cron_timezone: 'Europe/Berlin' });
  },
});
