import type { RecordOf } from '../../api/fields.js';
import { mergeRequestApprovals } from './resource.js';

/** The routes of a merge request's approvals (approve, unapprove, reset, state), and its approval state. */
export const routes = mergeRequestApprovals.routes;

/** The approval state of a merge request, as GET …/approvals returns it. */
export type ApprovalState = RecordOf<typeof mergeRequestApprovals>;

/** The route parameters of one merge request's approvals. */
export const approvalsOf = (project: string, mr: number) => ({ project, merge_request_iid: mr });
