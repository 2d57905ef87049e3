import { f } from '../../api/fields.js';
import { defineSingleton } from '../../api/resource.js';

/**
 * The approvals of one merge request: its approval state (who approved, how many are left, whether you may
 * approve), approving and withdrawing one's approval, resetting them all (bot users of access tokens only), and each
 * approval rule's state (Premium). The `approvals` commands are hand-written over these routes; approve and
 * unapprove answer the approval state.
 */
export const mergeRequestApprovals = defineSingleton({
  noun: 'approval state',
  command: 'approvals',
  parent: 'project',
  scope: { merge_request_iid: f.int({ min: 1, flag: 'mr', placeholder: '<iid>', help: 'the merge request (its IID)' }) },
  where: ({ project, merge_request_iid }) => `merge request !${String(merge_request_iid)} of ${String(project)}`,
  routes: {
    get: 'GET /projects/{project}/merge_requests/{merge_request_iid}/approvals',
    state: 'GET /projects/{project}/merge_requests/{merge_request_iid}/approval_state',
    approve: 'POST /projects/{project}/merge_requests/{merge_request_iid}/approve',
    unapprove: 'POST /projects/{project}/merge_requests/{merge_request_iid}/unapprove',
    reset: 'PUT /projects/{project}/merge_requests/{merge_request_iid}/reset_approvals',
  },
  fields: {
    id: f.int({ readOnly: true }),
    iid: f.int({ readOnly: true }),
    project_id: f.int({ readOnly: true }),
    title: f.string({ readOnly: true }),
    description: f.string({ readOnly: true, nullable: true }),
    state: f.string({ readOnly: true }),
    created_at: f.time({ readOnly: true }),
    updated_at: f.time({ readOnly: true }),
    merge_status: f.string({ readOnly: true }),
    approved: f.bool({ readOnly: true }),
    approvals_required: f.int({ readOnly: true }),
    approvals_left: f.int({ readOnly: true }),
    require_password_to_approve: f.bool({ readOnly: true }),
    approved_by: f.object<Array<{ user: { id: number; username: string; name: string } }>>({ readOnly: true }),
    suggested_approvers: f.object({ readOnly: true }),
    approvers: f.object({ readOnly: true }),
    approver_groups: f.object({ readOnly: true }),
    user_has_approved: f.bool({ readOnly: true }),
    user_can_approve: f.bool({ readOnly: true }),
    approval_rules_left: f.object({ readOnly: true }),
    has_approval_rules: f.bool({ readOnly: true }),
    merge_request_approvers_available: f.bool({ readOnly: true }),
    multiple_approval_rules_available: f.bool({ readOnly: true }),
    invalid_approvers_rules: f.object({ readOnly: true }),
  },
  roles: { read: 'guest', write: 'developer' },
});
