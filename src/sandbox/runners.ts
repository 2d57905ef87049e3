import { RUNNER_LIST_FIELDS, runners as declared, type RUNNER_STATUSES } from '../resources/runners/resource.js';
import { groupRole, projectRole, Role } from './auth.js';
import type { Db } from './db.js';
import { SANDBOX_VERSION } from './http.js';
import { groupById, projectById } from './hierarchy.js';
import { runnerTable, type Runner, type User } from './model.js';
import { presentRecord, type Values } from './records.js';

/**
 * Runners as other modules see them: a runner's status, the brief record the service gives in lists (and for a
 * runner authentication token at the token information endpoint), who manages one, whether its version should be
 * upgraded, and unregistering one.
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

/** What the service derives of a runner for its lists: from its type, whether it is paused, when it last made contact. */
export function runnerComputed(runner: Runner, now: Date): Values {
  const status = runnerStatus(runner, now);
  return { active: !runner.paused, is_shared: runner.runner_type === 'instance_type', name: runner.contacted_at ? 'gitlab-runner' : null, online: status === 'online', status };
}

/** A runner's lists (and the token information endpoint) go without the fields after these. */
const LIST_VIEW = { fields: declared.fields, without: Object.keys(declared.fields).filter((name) => !(RUNNER_LIST_FIELDS as readonly string[]).includes(name)) };

/** The runner as lists present it. */
export const presentRunnerBrief = (runner: Runner, now: Date): Values => presentRecord(LIST_VIEW, runner, runnerComputed(runner, now));

/** Unregisters a runner: it is gone, and its authentication token with it. */
export function removeRunner(db: Db, runner: Runner): void {
  const table = runnerTable(db);
  table.splice(table.indexOf(runner), 1);
}

/** Whether the user manages the runner (reads, changes and deletes it): administrators; Maintainer of its group or of one of its projects. */
export function manages(db: Db, user: User, runner: Runner): boolean {
  if (user.is_admin) return true;
  if (runner.runner_type === 'group_type') {
    const group = groupById(db, runner.group_id);
    return group !== undefined && groupRole(db, user, group) >= Role.maintainer;
  }
  if (runner.runner_type === 'project_type') {
    return runner.project_ids.some((id) => {
      const project = projectById(db, id);
      return Boolean(project) && projectRole(db, user, project!) >= Role.maintainer;
    });
  }
  return false;
}

/**
 * Why the user may not delete the runner, or undefined when they may: as the service's runner policy, for REST and
 * GraphQL alike, they must manage it, and only an administrator deletes a project runner several projects use.
 */
export function deleteRefusal(db: Db, user: User, runner: Runner): string | undefined {
  if (!manages(db, user, runner)) return 'No access granted';
  if (!user.is_admin && runner.runner_type === 'project_type' && runner.project_ids.length > 1) return 'Runner associated with more than one project';
  return undefined;
}

/** The runner releases the sandbox knows, oldest first, as the service reads them from the runner release feed. */
const RUNNER_RELEASES = ['15.11.1', '16.11.4', '17.6.3', '17.9.2', '17.10.1', '17.11.2'];

type Version = [number, number, number];

const parseVersion = (text: string): Version | undefined => {
  const match = /^v?(\d+)\.(\d+)\.(\d+)(?:[~-].*)?$/.exec(text);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
};
const compare = (a: Version, b: Version): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
const minorOf = (v: Version): string => `${v[0]}.${v[1]}`;

/**
 * Whether a runner of this version should be upgraded, as the service's runner upgrade check answers
 * (CiRunner.upgradeStatus): INVALID for a version it cannot read; RECOMMENDED when the runner's minor release is
 * outside the backport window (more than three minor releases old) or a newer patch of it exists; AVAILABLE when a
 * release for the instance's own version is newer; NOT_AVAILABLE otherwise. null without a version (never contacted).
 */
export function upgradeStatus(version: string | null): 'INVALID' | 'RECOMMENDED' | 'AVAILABLE' | 'NOT_AVAILABLE' | null {
  if (version === null) return null;
  const runner = parseVersion(version);
  if (!runner) return 'INVALID';
  const latestOfMinor = new Map<string, Version>();
  for (const release of RUNNER_RELEASES.map((text) => parseVersion(text)!)) latestOfMinor.set(minorOf(release), release);
  const minors = [...latestOfMinor.keys()];
  const forInstance = latestOfMinor.get(minorOf(parseVersion(SANDBOX_VERSION)!));
  const newer = (release: Version | undefined): boolean => release !== undefined && compare(release, runner) > 0;
  const index = minors.indexOf(minorOf(runner));
  const outsideWindow = index === -1 || minors.length - index > 3;
  if (outsideWindow ? newer(forInstance) : newer(latestOfMinor.get(minorOf(runner)))) return 'RECOMMENDED';
  return newer(forInstance) ? 'AVAILABLE' : 'NOT_AVAILABLE';
}
