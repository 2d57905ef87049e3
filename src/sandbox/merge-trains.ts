import { newSha, type Db } from './db.js';
import type { SandboxRequest } from './http.js';
import { mergeTrainCars, scheduledCars, type MergeRequest, type MergeTrainCar } from './model.js';
import { mergeBlocker } from './review.js';

/**
 * Cars on merge trains, as the review modules move them: a merge request joins its target branch's train, leaves it
 * when its source branch moves, and a scheduled (auto-merge) one joins once its approvals are complete.
 */

/** The states of a car still on its train. */
export const ACTIVE = new Set(['idle', 'stale', 'fresh', 'merging']);

export function addCar(db: Db, mr: MergeRequest, userId: number, squash: boolean, now: Date): MergeTrainCar {
  const at = now.toISOString();
  const pipelineId = db.nextId('pipelines');
  const car: MergeTrainCar = {
    id: db.nextId('merge_train_cars'),
    project_id: mr.project_id,
    merge_request_id: mr.id,
    user_id: userId,
    target_branch: mr.target_branch,
    status: 'idle',
    squash,
    pipeline: { id: pipelineId, iid: pipelineId, sha: newSha(), status: 'running', created_at: at, updated_at: at },
    created_at: at,
    updated_at: at,
    merged_at: null,
    duration: null,
  };
  mergeTrainCars(db).push(car);
  return car;
}

export function activeCar(db: Db, mr: MergeRequest): MergeTrainCar | undefined {
  return mergeTrainCars(db).find((c) => c.merge_request_id === mr.id && ACTIVE.has(c.status));
}

/** A push to the source branch takes the merge request off its train (and cancels a scheduled join). */
export function removeFromTrain(db: Db, mr: MergeRequest): void {
  const car = activeCar(db, mr);
  if (car) mergeTrainCars(db).splice(mergeTrainCars(db).indexOf(car), 1);
  const scheduled = scheduledCars(db).findIndex((s) => s.merge_request_id === mr.id);
  if (scheduled >= 0) scheduledCars(db).splice(scheduled, 1);
}

/** Called when a merge request's approvals change: a scheduled (auto-merge) request joins once it can merge. */
export function joinTrainIfScheduled(req: SandboxRequest, mr: MergeRequest): void {
  const index = scheduledCars(req.db).findIndex((s) => s.merge_request_id === mr.id);
  if (index < 0 || mergeBlocker(mr, req.tier) !== undefined) return;
  const [scheduled] = scheduledCars(req.db).splice(index, 1);
  addCar(req.db, mr, scheduled.user_id, scheduled.squash, req.now());
}
