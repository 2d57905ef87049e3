import { f } from '../../api/fields.js';
import { defineSingleton } from '../../api/resource.js';

/**
 * The approval configuration of a project (Premium): always there (the defaults until changed); POST changes the
 * settings given.
 */
export const approvalSettings = defineSingleton({
  noun: 'approval configuration',
  command: 'approvals config',
  parent: 'project',
  routes: {
    get: 'GET /projects/{project}/approvals',
    update: 'POST /projects/{project}/approvals',
  },
  fields: {
    approvers: f.object(),
    approver_groups: f.object(),
    approvals_before_merge: f.int({ readOnly: true, default: 0, help: 'deprecated: use approval rules' }),
    reset_approvals_on_push: f.bool({ default: true, help: 'clear approvals when new commits are pushed' }),
    selective_code_owner_removals: f.bool({ default: false, help: "on a push, clear only Code Owners' approvals of changed files (needs reset_approvals_on_push off)" }),
    disable_overriding_approvers_per_merge_request: f.bool({ default: false, help: 'forbid changing approval rules in a merge request' }),
    merge_requests_author_approval: f.bool({ default: false, help: 'let authors approve their own merge requests' }),
    merge_requests_disable_committers_approval: f.bool({ default: false, help: 'forbid committers to approve merge requests they added commits to' }),
    require_password_to_approve: f.bool({ default: false, readOnly: true, help: 'deprecated name of require_reauthentication_to_approve' }),
    require_reauthentication_to_approve: f.bool({ help: 'approvers must give their password' }),
  },
  roles: { read: 'guest', write: 'maintainer' },
  tier: 'premium',
});
