import { mergeRequestPath } from '../../api/review.js';

export const approvalPath = (project: string, mr: number, action: 'approvals' | 'approval_state' | 'approve' | 'unapprove' | 'reset_approvals'): string =>
  `${mergeRequestPath(project, mr)}/${action}`;

/** The approval state of a merge request, as GET …/approvals returns it (the fields the commands use). */
export interface ApprovalState {
  user_has_approved?: boolean;
  user_can_approve?: boolean;
  require_password_to_approve?: boolean;
  approvals_left?: number;
}
