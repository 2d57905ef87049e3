import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

const base = '/projects/{project}/merge_trains';

/**
 * Merge trains of a project (Premium): entries, one per merge request on a train, by target branch. The commands
 * (listing a train, adding a merge request now or when its checks pass) are hand-written over these routes.
 */
export const mergeTrains = defineResource({
  noun: 'merge train entry',
  command: 'merge-trains',
  parent: 'project',
  id: { param: 'merge_request_iid', field: 'id' },
  routes: {
    list: `GET ${base}`,
    ofBranch: `GET ${base}/{target_branch}`,
    entry: `GET ${base}/merge_requests/{merge_request_iid}`,
    add: `POST ${base}/merge_requests/{merge_request_iid}`,
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    merge_request: f.object({ readOnly: true }),
    user: f.object({ readOnly: true }),
    pipeline: f.object({ readOnly: true, nullable: true }),
    created_at: f.time({ readOnly: true }),
    updated_at: f.time({ readOnly: true }),
    target_branch: f.string({ readOnly: true }),
    status: f.string({ readOnly: true }),
    merged_at: f.time({ readOnly: true, nullable: true }),
    duration: f.int({ readOnly: true, nullable: true }),
  },
  columns: ['id', 'merge_request.iid', 'merge_request.title', 'target_branch', 'status', 'user.username', 'pipeline.status', 'created_at', 'merged_at'],
  identity: ['id'],
  roles: { read: 'developer', write: 'developer' },
  tier: 'premium',
});
