import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

export const RUNNER_TYPES = ['instance_type', 'group_type', 'project_type'] as const;
export const RUNNER_STATUSES = ['online', 'offline', 'stale', 'never_contacted'] as const;
export const RUNNER_JOB_STATUSES = ['running', 'success', 'failed', 'canceled'] as const;
/** The service deletes at most this many runners in one bulkRunnerDelete (GraphQL); it ignores the rest, and says so. */
export const BULK_DELETE_LIMIT = 50;

/**
 * CI runners: the machines that run jobs. A runner belongs to the instance (instance_type, administrators), a group
 * (group_type) or a project (project_type). Lists: the runners you manage (`GET /runners`), every runner of the
 * instance (administrators), a group's, or the runners a project may use; one runner is read, changed, deleted and
 * its authentication token reset by id, whatever it belongs to. Status comes from when it last contacted the
 * instance: online within 2 hours, stale after a week without contact (or never contacted and created over a week
 * ago), offline between, never_contacted for a new runner. The authentication token comes back only from create and
 * reset.
 */
export const runners = defineResource({
  noun: 'runner',
  command: 'runners',
  id: { param: 'runner_id', field: 'id' },
  parents: {
    own: {
      parent: 'instance',
      where: () => 'the runners you manage',
      routes: {
        list: 'GET /runners',
        get: 'GET /runners/{runner_id}',
        update: 'PUT /runners/{runner_id}',
        delete: 'DELETE /runners/{runner_id}',
        jobs: 'GET /runners/{runner_id}/jobs',
        reset_token: 'POST /runners/{runner_id}/reset_authentication_token',
        /** Creates a runner and answers its authentication token (runner_type; group_id or project_id). */
        create: 'POST /user/runners',
        /** Whether an authentication token is valid (200, or 403): answered to the token, not the user. */
        verify: 'POST /runners/verify',
        /** Deletes the runner an authentication token belongs to (`token` parameter). */
        delete_by_token: 'DELETE /runners',
      },
    },
    instance: { parent: 'instance', where: () => 'the instance', routes: { list: 'GET /runners/all' } },
    group: { parent: 'group', routes: { list: 'GET /groups/{group}/runners' } },
    project: {
      parent: 'project',
      routes: {
        list: 'GET /projects/{project}/runners',
        /** Lets the project use a project runner of another project (runner_id); answers the runner. */
        assign: 'POST /projects/{project}/runners',
        /** Takes a project runner from one of its projects (not from its last one: delete it instead). */
        unassign: 'DELETE /projects/{project}/runners/{runner_id}',
      },
    },
  },
  fields: {                                    // in the order the service presents them
    id: f.int({ min: 1, readOnly: true }),
    description: f.string({ help: 'what the runner is' }),
    ip_address: f.string({ readOnly: true, nullable: true }),
    active: f.bool({ readOnly: true }),
    paused: f.bool({ help: 'takes no new jobs' }),
    is_shared: f.bool({ readOnly: true }),
    runner_type: f.enum(RUNNER_TYPES, { readOnly: true }),
    name: f.string({ readOnly: true, nullable: true }),
    online: f.bool({ readOnly: true }),
    status: f.enum(RUNNER_STATUSES, { readOnly: true }),
    // The fields below are in the answer for one runner, not in lists.
    contacted_at: f.time({ readOnly: true, nullable: true }),
    created_at: f.time({ readOnly: true }),
    maintenance_note: f.string({ nullable: true, help: 'a note for other administrators (at most 1024 characters)' }),
    tag_list: f.list({ help: 'the tags of jobs it runs (replaces the list; "" clears it)' }),
    run_untagged: f.bool({ help: 'also runs jobs without tags' }),
    locked: f.bool({ help: 'cannot be assigned to other projects' }),
    access_level: f.enum(['not_protected', 'ref_protected'], { help: 'ref_protected: only jobs of protected branches and tags' }),
    maximum_timeout: f.int({ min: 600, nullable: true, help: 'longest a job may run on it, in seconds (at least 600)', placeholder: '<seconds>' }),
    version: f.string({ readOnly: true, nullable: true }),
    revision: f.string({ readOnly: true, nullable: true }),
    platform: f.string({ readOnly: true, nullable: true }),
    architecture: f.string({ readOnly: true, nullable: true }),
    projects: f.object(),
    groups: f.object(),
  },
  filters: {
    type: f.enum(RUNNER_TYPES, { help: 'instance_type, group_type or project_type' }),
    status: f.enum(RUNNER_STATUSES, { help: 'online, offline, stale or never_contacted' }),
    paused: f.bool({ help: 'only paused runners' }),
    tag_list: f.list({ flag: 'tag', help: 'only runners with all these tags', placeholder: '<a,b>' }),
  },
  columns: ['id', 'description', 'runner_type', 'status', 'paused', 'is_shared'],
  identity: ['id'],
  // Group runners need the group's Maintainer role, project runners the project's; instance runners administrators.
  roles: { read: 'maintainer', write: 'maintainer' },
});

/** The fields of a runner in lists (the answer for one runner adds the rest). */
export const RUNNER_LIST_FIELDS = ['id', 'description', 'ip_address', 'active', 'paused', 'is_shared', 'runner_type', 'name', 'online', 'status'] as const;
