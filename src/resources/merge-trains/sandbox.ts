import { findProject, projectFor, requireTier, Role } from '../../sandbox/auth.js';
import { newSha } from '../../sandbox/db.js';
import { bool, errors, type SandboxRequest, type SandboxResponse } from '../../sandbox/http.js';
import { mergeRequests, users, type MergeRequest, type Project, type MergeTrainCar, mergeTrainCars, scheduledCars } from '../../sandbox/model.js';
import { projectById } from '../../sandbox/hierarchy.js';
import { paginate } from '../../sandbox/pagination.js';
import { presentUserBasic } from '../../sandbox/present.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { mergeTrains as declared } from './resource.js';
import { found, presentRecord, type Values } from '../../sandbox/records.js';
import { ACTIVE, activeCar, addCar } from '../../sandbox/merge-trains.js';
import { nextIid } from '../../sandbox/issuables.js';
import { mayMerge } from '../../sandbox/protection.js';
import { findMergeRequest, mergeBlocker, simpleMergeRequest } from '../../sandbox/review.js';

/** What a car's answer has that it does not store as presented: its merge request, user and pipeline. */
function carComputed(req: SandboxRequest, car: MergeTrainCar): Values {
  const project = projectById(req.db, car.project_id)!;
  const mr = mergeRequests(req.db).find((m) => m.id === car.merge_request_id)!;
  const user = users(req.db).find((u) => u.id === car.user_id)!;
  const { id, username, name, state, avatar_url, web_url } = presentUserBasic(user, req.rootUrl);
  const { pipeline: run } = car;
  const pipeline = {
    id: run.id, iid: run.iid, project_id: project.id, sha: run.sha, ref: `refs/merge-requests/${mr.iid}/train`, status: run.status,
    source: 'merge_request_event', created_at: run.created_at, updated_at: run.updated_at, web_url: `${req.rootUrl}/${project.path_with_namespace}/-/pipelines/${run.id}`,
  };
  return {
    merge_request: simpleMergeRequest(mr, project, req.rootUrl),
    user: { id, username, name, state, avatar_url, web_url },
    pipeline,
  };
}

const presentedCar = (req: SandboxRequest, car: MergeTrainCar): Values => presentRecord(declared, car, carComputed(req, car));


/** Read access: Developer and Premium (403 otherwise, as instances without merge trains answer). */
function trainProject(req: SandboxRequest): Project {
  const project = projectFor(req, Role.developer);
  requireTier(req, 'premium');
  return project;
}

function carsOf(req: SandboxRequest, project: Project, targetBranch?: string): MergeTrainCar[] {
  const scope = req.query.scope as string | undefined;
  if (scope !== undefined && scope !== 'active' && scope !== 'complete') throw errors.invalid('scope');
  const sort = (req.query.sort as string | undefined) ?? 'desc';
  if (sort !== 'asc' && sort !== 'desc') throw errors.invalid('sort');
  return mergeTrainCars(req.db)
    .filter((c) => c.project_id === project.id && (targetBranch === undefined || c.target_branch === targetBranch))
    .filter((c) => scope === undefined || (scope === 'active' ? ACTIVE.has(c.status) : c.status === 'merged'))
    .sort((a, b) => (sort === 'asc' ? a.id - b.id : b.id - a.id));
}

function addToTrain(req: SandboxRequest): SandboxResponse {
  const project = trainProject(req);
  const mr = findMergeRequest(req, project);
  const sha = req.input.sha as string | undefined;
  if (sha !== undefined && sha !== mr.sha) throw errors.message(409, `SHA does not match HEAD of source branch: ${mr.sha}`);
  if (!mayMerge(req.db, req.user, project, mr.target_branch)) throw errors.unauthorized();
  if (activeCar(req.db, mr)) throw errors.badRequest('Failed to merge: the merge request is already on the merge train');
  const squash = bool(req.input.squash) ?? false;
  const autoMerge = bool(req.input.auto_merge) ?? bool(req.input.when_pipeline_succeeds) ?? false;
  const blocker = mergeBlocker(mr, req.tier);
  let status = 201;
  if (blocker !== undefined) {
    if (!autoMerge || mr.state !== 'opened') throw errors.badRequest(`Failed to merge: ${blocker}`);
    if (!scheduledCars(req.db).some((s) => s.merge_request_id === mr.id)) scheduledCars(req.db).push({ merge_request_id: mr.id, user_id: req.user!.id, squash });
    status = 202;
  } else {
    addCar(req.db, mr, req.user!.id, squash, req.now());
  }
  return { ...paginate(req, carsOf({ ...req, query: {} }, project, mr.target_branch), { present: (c) => presentedCar(req, c) }), status };
}

export const mergeTrains: SandboxModule = {
  routes(api) {
    api.route(declared.routes.list, (req) => {
      const project = trainProject(req);
      return paginate(req, carsOf(req, project), { present: (c) => presentedCar(req, c) });
    });

    api.route(declared.routes.entry, (req) => {
      const project = trainProject(req);
      const mr = findMergeRequest(req, project);
      const car = found(mergeTrainCars(req.db).filter((c) => c.merge_request_id === mr.id).pop(), 'Merge Train Merge Request');
      return { status: 200, body: presentedCar(req, car) };
    });

    api.route(declared.routes.add, addToTrain);

    api.route(declared.routes.ofBranch, (req) => {
      const project = trainProject(req);
      return paginate(req, carsOf(req, project, req.params.target_branch), { present: (c) => presentedCar(req, c) });
    });
  },

  seed(db, { now }) {
    const project = findProject(db, 'acme/api');
    const maintainer = users(db).find((u) => u.username === 'alice');
    if (!maintainer) return;
    const day = (n: number) => new Date(now.getTime() - n * 86_400_000).toISOString();
    const merged: MergeRequest = {
      id: db.nextId('merge_requests'), iid: nextIid(mergeRequests(db), project.id), project_id: project.id, title: 'Set up the CI pipeline', description: null, state: 'merged',
      source_branch: 'ci/setup', target_branch: project.default_branch, sha: newSha(), author_id: maintainer.id,
      created_at: day(9), updated_at: day(8), merge_status: 'can_be_merged', detailed_merge_status: 'merged', approvals_required: 1, approved_by: [1],
    };
    mergeRequests(db).push(merged);
    const car = addCar(db, merged, maintainer.id, false, new Date(now.getTime() - 8 * 86_400_000 - 420_000));
    Object.assign(car, { status: 'merged', merged_at: day(8), updated_at: day(8), duration: 420 });
    car.pipeline.status = 'success';
  },
};
