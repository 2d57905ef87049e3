import { RUNNER_LIST_FIELDS, type RUNNER_STATUSES } from '../api/resources/runners.js';
import type { Db } from './db.js';
import { runnerTable, type Runner } from './model.js';

/**
 * Runners as other modules see them: a runner's status, the brief record the service gives in lists (and for a
 * runner authentication token at the token information endpoint), and unregistering one.
 */

const HOUR = 3_600_000;
const ONLINE_MS = 2 * HOUR;
const STALE_MS = 7 * 24 * HOUR;

/** By the sandbox's clock: online within 2 hours; stale when created and contacted over a week ago; never_contacted; else offline. */
export function runnerStatus(runner: Runner, now: Date): (typeof RUNNER_STATUSES)[number] {
  const latest = Math.max(Date.parse(runner.created_at), runner.contacted_at ? Date.parse(runner.contacted_at) : 0);
  if (latest <= now.getTime() - STALE_MS) return 'stale';
  if (!runner.contacted_at) return 'never_contacted';
  return Date.parse(runner.contacted_at) > now.getTime() - ONLINE_MS ? 'online' : 'offline';
}

/** The runner as lists present it. */
export function presentRunnerBrief(runner: Runner, now: Date): Record<string, unknown> {
  const status = runnerStatus(runner, now);
  const full: Record<string, unknown> = {
    id: runner.id, description: runner.description, ip_address: runner.ip_address, active: !runner.paused, paused: runner.paused,
    is_shared: runner.runner_type === 'instance_type', runner_type: runner.runner_type, name: runner.contacted_at ? 'gitlab-runner' : null,
    online: status === 'online', status,
  };
  return Object.fromEntries(RUNNER_LIST_FIELDS.map((name) => [name, full[name]]));
}

/** Unregisters a runner: it is gone, and its authentication token with it. */
export function removeRunner(db: Db, runner: Runner): void {
  const table = runnerTable(db);
  table.splice(table.indexOf(runner), 1);
}
