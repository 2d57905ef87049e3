import { RUNNER_JOB_STATUSES, RUNNER_STATUSES, RUNNER_TYPES, runners as declared } from './resource.js';
import { findGroup, findProject, groupFor, groupRole, projectFor, projectRole, requireAdmin, requireUser, Role } from '../../sandbox/auth.js';
import { newTokenValue, type Db } from '../../sandbox/db.js';
import { array, bool, created, errors, int, noContent, ok, required, type SandboxRequest, type SandboxResponse } from '../../sandbox/http.js';
import { jobs, runnerJobs, runnerTable, type Job, type Project, type Runner } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import type { Router } from '../../sandbox/router.js';
import { paginate } from '../../sandbox/pagination.js';
import { groupById, groupChain, projectById } from '../../sandbox/hierarchy.js';
import { projectBrief, runnerJobAnswer } from '../../sandbox/pipelines.js';
import { found, presentRecord, requireOneOf, type Values } from '../../sandbox/records.js';
import { deleteRefusal, manages, presentRunnerBrief, removeRunner, runnerComputed, runnerStatus } from '../../sandbox/runners.js';
import { fleetProjectPath } from '../../sandbox/seed.js';

/**
 * CI runners (src/resources/runners/resource.ts) as the service serves them: status from contacted_at and created_at by
 * the sandbox's clock (online within 2 hours; stale when both are over a week old; never_contacted; else offline),
 * the lists of the user, the instance (administrators), a group and a project with their filters, one runner by id
 * (administrators; Maintainer of its group or project), its jobs, reset of its authentication token, and what
 * python-gitlab calls: create (POST /user/runners), verify and delete by token; a project runner assigned to more
 * projects and unassigned from them (POST and DELETE /projects/:id/runners).
 */

type RunnerType = Runner['runner_type'];

const HOUR = 3_600_000;

/** What the answer for one runner adds to the list's: from its version, its projects and its group. */
function detailComputed(req: SandboxRequest, runner: Runner): Values {
  const projectList = runner.project_ids.map((id) => projectById(req.db, id)).filter((p): p is Project => Boolean(p));
  const group = groupById(req.db, runner.group_id);
  return {
    ...runnerComputed(runner, req.now()),
    revision: runner.version ? 'a1b2c3d4' : null,
    projects: projectList.map(projectBrief),
    groups: group ? [{ id: group.id, name: group.name, web_url: `${req.rootUrl}/groups/${group.full_path}` }] : [],
  };
}

const detail = (req: SandboxRequest, runner: Runner): Values => presentRecord(declared, runner, detailComputed(req, runner));

function findRunner(req: SandboxRequest): Runner {
  const runner = found(runnerTable(req.db).find((r) => String(r.id) === req.params.runner_id), 'Runner');
  if (!manages(req.db, requireUser(req), runner)) throw errors.forbidden('No access granted');
  return runner;
}

/** Whether a runner serves the projects under a group: an instance runner, or one of this group's or an ancestor's. */
function servesUnder(db: Db, groupId: number | null): (runner: Runner) => boolean {
  const chain = groupChain(db, groupId).map((group) => group.id);
  return (r) => r.runner_type === 'instance_type' || (r.runner_type === 'group_type' && chain.includes(r.group_id!));
}

/** The list filters every runner list takes: type, status, paused, tag_list. */
function filtered(req: SandboxRequest, list: Runner[]): Runner[] {
  const type = req.input.type;
  if (type !== undefined && !(RUNNER_TYPES as readonly string[]).includes(String(type))) throw errors.invalid('type');
  const status = req.input.status;
  if (status !== undefined && !(RUNNER_STATUSES as readonly string[]).includes(String(status))) throw errors.invalid('status');
  const paused = bool(req.input.paused);
  const tags = array(req.input.tag_list) ?? [];
  return list
    .filter((r) => type === undefined || r.runner_type === type)
    .filter((r) => status === undefined || runnerStatus(r, req.now()) === status)
    .filter((r) => paused === undefined || r.paused === paused)
    .filter((r) => tags.every((tag) => r.tag_list.includes(tag)))
    .sort((a, b) => a.id - b.id);
}

const listed = (req: SandboxRequest, list: Runner[]) => paginate(req, filtered(req, list), { present: (r) => presentRunnerBrief(r, req.now()) });

const UPDATABLE = ['description', 'active', 'paused', 'tag_list', 'run_untagged', 'locked', 'access_level', 'maximum_timeout', 'maintenance_note'];

/** Settings of create and update, checked as the service does. */
function applySettings(req: SandboxRequest, runner: Runner): void {
  const input = req.input;
  if (input.description !== undefined) runner.description = String(input.description ?? '');
  if (input.active !== undefined) runner.paused = !bool(input.active);
  if (input.paused !== undefined) runner.paused = Boolean(bool(input.paused));
  if (input.tag_list !== undefined) runner.tag_list = [...new Set((array(input.tag_list) ?? []).map((tag) => tag.trim()).filter(Boolean))];
  if (input.run_untagged !== undefined) runner.run_untagged = Boolean(bool(input.run_untagged));
  if (input.locked !== undefined) runner.locked = Boolean(bool(input.locked));
  if (input.access_level !== undefined) {
    if (!declared.fields.access_level.kind.choices!.includes(String(input.access_level))) throw errors.invalid('access_level');
    runner.access_level = input.access_level;
  }
  if (input.maximum_timeout !== undefined) runner.maximum_timeout = input.maximum_timeout === null || input.maximum_timeout === '' ? null : int(input.maximum_timeout, 'maximum_timeout')!;
  if (input.maintenance_note !== undefined) runner.maintenance_note = input.maintenance_note === null ? null : String(input.maintenance_note);
  const problems: Record<string, string[]> = {};
  if (runner.maximum_timeout !== null && runner.maximum_timeout < 600) problems.maximum_timeout = ['needs to be at least 10 minutes'];
  if ((runner.maintenance_note ?? '').length > 1024) problems.maintenance_note = ['is too long (maximum is 1024 characters)'];
  if (!runner.run_untagged && !runner.tag_list.length) problems.tags_list = ['can not be empty when runner is not allowed to pick untagged jobs'];
  if (Object.keys(problems).length) throw errors.validation(problems);
}

/** A runner with the service's defaults, not yet stored (create checks its settings before it gets an id). */
function blankRunner(runner_type: RunnerType, now: Date): Runner {
  return {
    id: 0, description: '', runner_type, paused: false, contacted_at: null, created_at: now.toISOString(), ip_address: null, maintenance_note: null, tag_list: [],
    run_untagged: true, locked: false, access_level: 'not_protected', maximum_timeout: null, version: null, platform: null, architecture: null,
    group_id: null, project_ids: [], token: '', token_expires_at: null,
  };
}

export function addRunner(db: Db, fields: Partial<Runner> & { runner_type: RunnerType }, now: Date): Runner {
  const runner: Runner = { ...blankRunner(fields.runner_type, now), ...fields, id: db.nextId('ci_runners'), token: newTokenValue('glrt-') };
  runnerTable(db).push(runner);
  return runner;
}

const own = declared.parents.own.routes;

export const runnersModule: SandboxModule = {
  // Its seed gives some of the --fleet projects one.
  seedAfter: ['fleet'],
  routes(api) {
    // Fixed paths first: /runners/all and /runners/verify are not runner ids.
    listRoutes(api);
    tokenRoutes(api);
    assignmentRoutes(api);
    runnerRoutes(api);
  },

  seed(db, { now, fleet }) {
    const ago = (hours: number): string => new Date(now.getTime() - hours * HOUR).toISOString();
    const acme = findGroup(db, 'acme').id;
    const api = findProject(db, 'acme/api').id;
    const web = findProject(db, 'acme/web').id;
    const docker = { version: '17.6.0', platform: 'linux', architecture: 'amd64', ip_address: '10.0.4.11' };
    const online = addRunner(db, { runner_type: 'instance_type', description: 'shared-docker-1', tag_list: ['docker', 'linux'], contacted_at: ago(0.1), created_at: ago(24 * 200), ...docker }, now);
    addRunner(db, { runner_type: 'instance_type', description: 'shared-docker-2', tag_list: ['docker', 'linux'], contacted_at: ago(24 * 45), created_at: ago(24 * 400), ...docker, ip_address: '10.0.4.12' }, now);
    addRunner(db, { runner_type: 'instance_type', description: 'shared-macos', tag_list: ['macos'], run_untagged: false, created_at: ago(24 * 60) }, now);
    addRunner(db, { runner_type: 'group_type', description: 'acme-k8s', group_id: acme, tag_list: ['k8s'], contacted_at: ago(0.5), created_at: ago(24 * 90), ...docker, version: '17.10.1', ip_address: '10.0.8.2' }, now);
    addRunner(db, { runner_type: 'group_type', description: 'acme-legacy', group_id: acme, paused: true, contacted_at: ago(72), created_at: ago(24 * 700), ...docker, version: '15.11.1', ip_address: '10.0.8.3' }, now);
    addRunner(db, { runner_type: 'group_type', description: 'acme-arm', group_id: acme, tag_list: ['arm64'], contacted_at: ago(24 * 100), created_at: ago(24 * 300), ...docker, architecture: 'arm64', ip_address: '10.0.8.4' }, now);
    const gpu = addRunner(db, { runner_type: 'project_type', description: 'api-gpu', project_ids: [api], tag_list: ['gpu'], locked: true, access_level: 'ref_protected', maximum_timeout: 7200, contacted_at: ago(0.2), created_at: ago(24 * 30), ...docker, version: '17.11.2', ip_address: '10.0.9.7' }, now);
    addRunner(db, { runner_type: 'project_type', description: 'web-builder', project_ids: [web], contacted_at: ago(24 * 40), created_at: ago(24 * 120), ...docker, ip_address: '10.0.9.8' }, now);
    addRunner(db, { runner_type: 'project_type', description: 'web-new', project_ids: [web], created_at: ago(1) }, now);
    // The jobs of acme/api ran on the shared runner and the project's GPU runner, turn about.
    jobs(db).filter((job) => job.project_id === api && job.status !== 'manual').forEach((job, index) => runnerJobs(db).push({ runner_id: (index % 2 ? gpu : online).id, job_id: job.id }));
    // One fleet project in ten has a runner of its own: online, or stale for two months.
    for (let n = 1; n <= (fleet ?? 0); n += 10) {
      const stale = n % 20 === 11;
      addRunner(db, { runner_type: 'project_type', description: `svc-${String(n).padStart(3, '0')}-runner`, project_ids: [findProject(db, fleetProjectPath(n)).id], contacted_at: ago(stale ? 24 * 60 : 0.3), created_at: ago(24 * 90), ...docker }, now);
    }
  },
};


/** The lists: every runner of the instance (administrators), the runners you manage, a group's and a project's. */
function listRoutes(api: Router): void {
  api.route(declared.parents.instance.routes.list, (req) => {
    requireAdmin(req);
    return listed(req, runnerTable(req.db));
  });
  api.route(own.list, (req) => {
    const user = requireUser(req);
    const mine = runnerTable(req.db).filter((r) => r.runner_type !== 'instance_type' && manages(req.db, user, r));
    return listed(req, mine);
  });
  api.route(declared.parents.group.routes.list, (req) => {
    const group = groupFor(req, Role.maintainer);
    return listed(req, runnerTable(req.db).filter(servesUnder(req.db, group.id)));
  });
  api.route(declared.parents.project.routes.list, (req) => {
    const project = projectFor(req, Role.maintainer);
    const servesGroup = servesUnder(req.db, project.namespace_id);
    return listed(req, runnerTable(req.db).filter((r) => servesGroup(r) || r.project_ids.includes(project.id)));
  });
}

/** The runner whose authentication token the request gives, else 403. */
function byToken(req: SandboxRequest): Runner {
  const token = String(required(req, 'token'));
  const runner = runnerTable(req.db).find((r) => r.token === token);
  if (!runner) throw errors.forbidden();
  return runner;
}

/** What a runner itself calls with its authentication token: verify it, and unregister. */
function tokenRoutes(api: Router): void {
  api.route(own.verify, (req) => {
    const runner = byToken(req);
    return ok({ id: runner.id, token: runner.token, token_expires_at: runner.token_expires_at });
  }, { auth: 'none' });
  api.route(own.delete_by_token, (req) => {
    removeRunner(req.db, byToken(req));
    return noContent();
  }, { auth: 'none' });
}

/** A project runner assigned to more projects, and unassigned from one. */
function assignmentRoutes(api: Router): void {
  api.route(declared.parents.project.routes.assign, (req) => {
    const project = projectFor(req, Role.maintainer);
    const runner = found(runnerTable(req.db).find((r) => String(r.id) === String(required(req, 'runner_id'))), 'Runner');
    if (runner.runner_type === 'group_type') throw errors.forbidden('Runner is a group runner');
    if (!requireUser(req).is_admin) {
      if (runner.locked) throw errors.forbidden('Runner is locked');
      if (!manages(req.db, requireUser(req), runner)) throw errors.forbidden('No access granted');
    }
    if (runner.runner_type === 'instance_type') throw errors.message(400, '400 Bad request - Transitioning an instance runner to a project runner is not supported');
    if (runner.project_ids.includes(project.id)) throw errors.validation({ assign_to: ['Validation failed: Runner has already been taken'] });
    runner.project_ids.push(project.id);
    return created(presentRunnerBrief(runner, req.now()));
  });
  api.route(declared.parents.project.routes.unassign, (req) => {
    const project = projectFor(req, Role.maintainer);
    const runner = found(runnerTable(req.db).find((r) => String(r.id) === req.params.runner_id && r.project_ids.includes(project.id)), 'Runner');
    if (!requireUser(req).is_admin && runner.locked) throw errors.forbidden('Runner is locked');
    if (runner.project_ids.length === 1) throw errors.forbidden('Only one project associated with the runner. Please remove the runner instead');
    runner.project_ids = runner.project_ids.filter((id) => id !== project.id);
    return noContent();
  });
}

/** One runner by id: read, change, delete, its jobs, a new authentication token; and creating one. */
function runnerRoutes(api: Router): void {
  api.route(own.get, (req) => ok(detail(req, findRunner(req))));
  api.route(own.update, (req) => {
    const runner = findRunner(req);
    requireOneOf(req, UPDATABLE);
    const next = { ...runner, tag_list: [...runner.tag_list] };
    applySettings(req, next);
    Object.assign(runner, next);
    return ok(detail(req, runner));
  });
  api.route(own.delete, (req) => {
    const runner = findRunner(req);
    const refusal = deleteRefusal(req.db, requireUser(req), runner);
    if (refusal) throw errors.forbidden(refusal);
    removeRunner(req.db, runner);
    return noContent();
  });
  api.route(own.jobs, (req) => {
    const runner = findRunner(req);
    const status = req.input.status;
    if (status !== undefined && !(RUNNER_JOB_STATUSES as readonly string[]).includes(String(status))) throw errors.invalid('status');
    const sort = req.input.sort ?? 'desc';
    if (sort !== 'asc' && sort !== 'desc') throw errors.invalid('sort');
    const list = runnerJobs(req.db)
      .filter((link) => link.runner_id === runner.id)
      .map((link) => jobs(req.db).find((j) => j.id === link.job_id))
      .filter((job): job is Job => job !== undefined && (status === undefined || job.status === status))
      .sort((a, b) => (sort === 'asc' ? 1 : -1) * (a.id - b.id));
    return paginate(req, list, { present: (job) => runnerJobAnswer(req, job) });
  });
  api.route(own.reset_token, (req) => {
    const runner = findRunner(req);
    runner.token = newTokenValue('glrt-');
    return created({ token: runner.token, token_expires_at: runner.token_expires_at });
  });
  api.route(own.create, createRunner);
}

/** POST /user/runners: a runner of the instance (administrators), a group (Owner) or a project (Maintainer), and its token. */
function createRunner(req: SandboxRequest): SandboxResponse {
  const user = requireUser(req);
  const type = String(required(req, 'runner_type'));
  if (!(RUNNER_TYPES as readonly string[]).includes(type)) throw errors.invalid('runner_type');
  const runner = blankRunner(type as RunnerType, req.now());
  if (type === 'instance_type' && !user.is_admin) throw errors.forbidden();
  if (type === 'group_type') {
    const group = findGroup(req.db, String(required(req, 'group_id')));
    if (!user.is_admin && groupRole(req.db, user, group) < Role.owner) throw errors.forbidden();
    runner.group_id = group.id;
  }
  if (type === 'project_type') {
    const project = findProject(req.db, String(required(req, 'project_id')));
    if (!user.is_admin && projectRole(req.db, user, project) < Role.maintainer) throw errors.forbidden();
    runner.project_ids = [project.id];
  }
  applySettings(req, runner);
  const stored = addRunner(req.db, runner, req.now());
  return created({ id: stored.id, token: stored.token, token_expires_at: stored.token_expires_at });
}
