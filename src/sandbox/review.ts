import { approvalSettings as declaredSettings } from '../resources/approval-settings/resource.js';
import { mergeRequests as declaredMergeRequests } from '../resources/merge-requests/resource.js';
import { projectRole, Role } from './auth.js';
import { presentRecord, type Values } from './records.js';
import { protectDefaultBranch } from './protection.js';
import type { Db } from './db.js';
import { errors, type SandboxRequest } from './http.js';
import {
  approvalSettingsTable, members, mergeRequests, projects, users,
  type ApprovalRule, type ApprovalSettings, type MergeRequest, type Project, type User,
} from './model.js';

/**
 * Review of merge requests, as the review modules (approvals, approval rules, merge requests, merge trains, notes,
 * draft notes) share it: finding a merge request the caller may see, its approval state, the project's approval
 * settings and who may approve.
 */

/** Protects every project's default branch (projects created before their module seeded). */
export function protectDefaultBranches(db: Db): void {
  for (const project of projects(db)) protectDefaultBranch(db, project);
}

/**
 * The merge request of `:merge_request_iid`, 404 "Merge Request Not Found" when it does not exist or is hidden (merge
 * requests of a private project are visible from Reporter up; of public and internal ones to every viewer).
 */
export function findMergeRequest(req: SandboxRequest, project: Project): MergeRequest {
  if (project.visibility === 'private' && projectRole(req.db, req.user, project) < Role.reporter) throw errors.notFound('Merge Request');
  const mr = mergeRequests(req.db).find((m) => m.project_id === project.id && String(m.iid) === req.params.merge_request_iid);
  if (!mr) throw errors.notFound('Merge Request');
  return mr;
}

export const mergeRequestUrl = (rootUrl: string, project: Project, mr: MergeRequest): string => `${rootUrl}/${project.path_with_namespace}/-/merge_requests/${mr.iid}`;

/** The simple view of a merge request (`view=simple`, and in merge train entries): these of its declared fields. */
const SIMPLE = ['id', 'iid', 'project_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'web_url'];
export const SIMPLE_VIEW = { fields: declaredMergeRequests.fields, without: Object.keys(declaredMergeRequests.fields).filter((name) => !SIMPLE.includes(name)) };

export const simpleMergeRequest = (mr: MergeRequest, project: Project, rootUrl: string): Values =>
  presentRecord(SIMPLE_VIEW, mr, { web_url: mergeRequestUrl(rootUrl, project, mr) });

/**
 * The password a sandbox user re-authenticates with (approving when the project requires it): the user record's
 * `password` when one was set, else this documented default.
 */
const DEFAULT_SANDBOX_PASSWORD = 'sandbox-password';

export function userPassword(user: User): string {
  return typeof user.password === 'string' ? user.password : DEFAULT_SANDBOX_PASSWORD;
}

/** What a merge request's approval state is made of. */
type Approvals = Pick<MergeRequest, 'state' | 'detailed_merge_status' | 'approvals_required' | 'approved_by'>;

/** Approvals still needed; the free tier has optional approvals only (nothing required). */
export function approvalsRequired(mr: Approvals, tier: SandboxRequest['tier']): number {
  return tier === 'free' ? 0 : mr.approvals_required;
}

export function approvalsLeft(mr: Approvals, tier: SandboxRequest['tier']): number {
  return Math.max(0, approvalsRequired(mr, tier) - mr.approved_by.length);
}

/** Keeps detailed_merge_status in step with approvals (other statuses are left alone). */
export function refreshApprovalStatus(mr: Approvals, tier: SandboxRequest['tier']): void {
  if (mr.state !== 'opened' || !['mergeable', 'not_approved'].includes(mr.detailed_merge_status)) return;
  mr.detailed_merge_status = approvalsLeft(mr, tier) > 0 ? 'not_approved' : 'mergeable';
}

/** Why the merge request cannot be merged now, or undefined when it can. */
export function mergeBlocker(mr: MergeRequest, tier: SandboxRequest['tier']): string | undefined {
  if (mr.state !== 'opened') return `the merge request is ${mr.state}`;
  if (approvalsLeft(mr, tier) > 0) return 'not_approved';
  if (!['mergeable', 'not_approved'].includes(mr.detailed_merge_status)) return mr.detailed_merge_status;
  return undefined;
}

/** A project's approval settings, created with the service's defaults (the declared ones) on first use. */
export function approvalSettings(db: Db, projectId: number): ApprovalSettings {
  let settings = approvalSettingsTable(db).find((s) => s.project_id === projectId);
  if (!settings) {
    const defaults = Object.entries(declaredSettings.fields).filter(([, field]) => field.default !== undefined).map(([name, field]) => [name, field.default]);
    settings = { id: db.nextId('project_approval_settings'), project_id: projectId, ...Object.fromEntries(defaults) } as ApprovalSettings;
    approvalSettingsTable(db).push(settings);
  }
  return settings;
}

/** Users a rule names, and the members of the groups it names. */
export function eligibleApprovers(db: Db, rule: Pick<ApprovalRule, 'user_ids' | 'group_ids'>): User[] {
  const ids = new Set(rule.user_ids);
  for (const member of members(db)) {
    if (member.source_type === 'group' && rule.group_ids.includes(member.source_id)) ids.add(member.user_id);
  }
  return users(db).filter((u) => ids.has(u.id));
}
