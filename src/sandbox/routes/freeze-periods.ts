import { cronProblem, canonicalTimeZone } from '../../api/freeze-periods.js';
import { findProject, projectFor, Role } from '../auth.js';
import { defineTable } from '../db.js';
import { created, errors, noContent, ok, required, type SandboxRequest } from '../http.js';
import { paginate } from '../pagination.js';
import type { SandboxModule } from '../module.js';

export interface FreezePeriod {
  id: number;
  project_id: number;
  freeze_start: string;
  freeze_end: string;
  cron_timezone: string;
  created_at: string;
  updated_at: string;
}

export const freezePeriodTable = defineTable<FreezePeriod>('freeze_periods');

const present = (f: FreezePeriod) => ({
  id: f.id,
  freeze_start: f.freeze_start,
  freeze_end: f.freeze_end,
  cron_timezone: f.cron_timezone,
  created_at: f.created_at,
  updated_at: f.updated_at,
});

/** Model validation as the service does it (CronValidator / CronTimezoneValidator): 400 with a field map. */
function validate(period: Pick<FreezePeriod, 'freeze_start' | 'freeze_end' | 'cron_timezone'>): void {
  const problems: Record<string, string[]> = {};
  if (cronProblem(period.freeze_start)) problems.freeze_start = [' is invalid syntax'];
  if (cronProblem(period.freeze_end)) problems.freeze_end = [' is invalid syntax'];
  if (!canonicalTimeZone(period.cron_timezone)) problems.cron_timezone = [' is invalid syntax'];
  if (Object.keys(problems).length) throw errors.validation(problems);
}

function findPeriod(req: SandboxRequest, projectId: number): FreezePeriod {
  const period = freezePeriodTable(req.db).find((f) => f.project_id === projectId && String(f.id) === req.params.freeze_period_id);
  if (!period) throw errors.notFound('Freeze Period');
  return period;
}

export const freezePeriods: SandboxModule = {
  routes(api) {
    api.get('/projects/:id/freeze_periods', (req) => {
      const project = projectFor(req, Role.reporter);
      const list = freezePeriodTable(req.db).filter((f) => f.project_id === project.id).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id - b.id);
      return paginate(req, list, { present });
    });

    api.get('/projects/:id/freeze_periods/:freeze_period_id', (req) => ok(present(findPeriod(req, projectFor(req, Role.reporter).id))));

    api.post('/projects/:id/freeze_periods', (req) => {
      const project = projectFor(req, Role.maintainer);
      const now = req.now().toISOString();
      const period: FreezePeriod = {
        id: 0,
        project_id: project.id,
        freeze_start: String(required(req, 'freeze_start')),
        freeze_end: String(required(req, 'freeze_end')),
        cron_timezone: req.input.cron_timezone ? String(req.input.cron_timezone) : 'UTC',
        created_at: now,
        updated_at: now,
      };
      validate(period);
      period.id = req.db.nextId('freeze_periods');
      freezePeriodTable(req.db).push(period);
      return created(present(period));
    });

    api.put('/projects/:id/freeze_periods/:freeze_period_id', (req) => {
      const period = findPeriod(req, projectFor(req, Role.maintainer).id);
      const next = { ...period };
      for (const key of ['freeze_start', 'freeze_end', 'cron_timezone'] as const) {
        if (req.input[key] !== undefined && req.input[key] !== null) next[key] = String(req.input[key]);
      }
      validate(next);
      Object.assign(period, next, { updated_at: req.now().toISOString() });
      return ok(present(period));
    });

    api.delete('/projects/:id/freeze_periods/:freeze_period_id', (req) => {
      const period = findPeriod(req, projectFor(req, Role.maintainer).id);
      freezePeriodTable(req.db).splice(freezePeriodTable(req.db).indexOf(period), 1);
      return noContent();
    });
  },

  seed(db, { now }) {
    const api = findProject(db, 'acme/api');
    const at = now.toISOString();
    // A weekend deploy freeze: Friday 23:00 to Monday 07:00, Berlin time.
    freezePeriodTable(db).push({ id: db.nextId('freeze_periods'), project_id: api.id, freeze_start: '0 23 * * 5', freeze_end: '0 7 * * 1', cron_timezone: 'Europe/Berlin', created_at: at, updated_at: at });
  },
};
