import type { StoredOf } from '../../api/fields.js';
import type { approvalRules as declaredRules } from '../../resources/approval-rules/resource.js';
import type { draftNotes as declaredDrafts } from '../../resources/draft-notes/resource.js';
import { defineTable } from '../db.js';

/** Issues, merge requests and their review: notes, draft notes, approvals and approval rules, merge trains. */

export interface Issue {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string;
  state: 'opened' | 'closed';
  author_id: number;
  created_at: string;
  updated_at: string;
  confidential?: boolean;
  closed_at?: string | null;
  closed_by_id?: number;
}

export interface MergeRequest {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  state: 'opened' | 'closed' | 'merged';
  source_branch: string;
  target_branch: string;
  /** HEAD commit of the source branch. */
  sha: string;
  author_id: number;
  created_at: string;
  updated_at: string;
  merge_status: string;
  detailed_merge_status: string;
  approvals_required: number;
  approved_by: number[];
  merged_at?: string | null;
  closed_at?: string | null;
  closed_by_id?: number;
}

export const issues = defineTable<Issue>('issues');
export const mergeRequests = defineTable<MergeRequest>('merge_requests');

export type NoteableType = 'Issue' | 'Snippet' | 'MergeRequest';

export interface NotePosition {
  base_sha: string;
  start_sha: string;
  head_sha: string;
  position_type: string;
  [key: string]: unknown;
}

export interface Note {
  id: number;
  project_id: number;
  noteable_type: NoteableType;
  noteable_id: number;
  noteable_iid: number | null;
  author_id: number;
  body: string;
  system: boolean;
  internal: boolean;
  created_at: string;
  updated_at: string;
  /** Notes of one thread share it; a note that starts a thread gets a new one. */
  discussion_id: string;
  /** DiscussionNote (a thread that can be replied to), DiffNote (on a line of the diff) or null (a plain comment). */
  type: 'DiscussionNote' | 'DiffNote' | null;
  position: NotePosition | null;
  commit_id: string | null;
  resolved: boolean;
  resolved_by: number | null;
}

export const notesTable = defineTable<Note>('notes');

/**
 * A draft note of a merge request (spec 1, api-facts §1.4): a pending comment that only its author sees, until it is
 * published as a note.
 */
export type DraftNote = Omit<StoredOf<typeof declaredDrafts>, 'position'> & { project_id: number; position: NotePosition | null; created_at: string };

export const draftNoteTable = defineTable<DraftNote>('draft_notes');

/** A project's approval configuration (spec 1, api-facts §1.2). */
export interface ApprovalSettings {
  project_id: number;
  approvals_before_merge: number;
  reset_approvals_on_push: boolean;
  selective_code_owner_removals: boolean;
  disable_overriding_approvers_per_merge_request: boolean;
  merge_requests_author_approval: boolean;
  merge_requests_disable_committers_approval: boolean;
  /** One setting with two names: require_password_to_approve (deprecated) and require_reauthentication_to_approve. */
  require_password_to_approve: boolean;
}

/** A stored project approval rule: the declared fields it keeps, and the ids it presents as users, groups and protected branches. */
export type ApprovalRule = Pick<StoredOf<typeof declaredRules>, 'id' | 'name' | 'report_type' | 'approvals_required' | 'applies_to_all_protected_branches'> & {
  project_id: number;
  /** Code owner rules come from CODEOWNERS, never from the API. */
  rule_type: StoredOf<typeof declaredRules>['rule_type'] | 'code_owner';
  user_ids: number[];
  group_ids: number[];
  protected_branch_ids: number[];
};

export const approvalSettingsTable = defineTable<ApprovalSettings>('project_approval_settings');
export const approvalRules = defineTable<ApprovalRule>('approval_rules');

/** An approval rule of one merge request: a copy of a project rule that applies to it, or one of its own. */
export interface MergeRequestRule {
  id: number;
  merge_request_id: number;
  name: string;
  rule_type: ApprovalRule['rule_type'];
  approvals_required: number;
  user_ids: number[];
  group_ids: number[];
  /** The project rule this one was copied from. */
  source_rule_id: number | null;
}

export const mergeRequestRules = defineTable<MergeRequestRule>('merge_request_approval_rules');
/** Merge requests whose rules were changed through the API (approval_rules_overwritten). */
export const overriddenRules = defineTable<{ merge_request_id: number }>('merge_request_rules_overridden');

/**
 * Merge trains (spec 1; Premium). A car is one merge request on the train of its target branch. The sandbox runs no
 * pipelines: a car stays `idle` until it is removed (a push to its source branch) — the seed holds one `merged` car so
 * that `scope=complete` has something to show. Adding with auto_merge while the merge request cannot be merged yet
 * (approvals missing) schedules it (202); it joins the train when the last approval arrives.
 */
export interface MergeTrainCar {
  id: number;
  project_id: number;
  merge_request_id: number;
  user_id: number;
  target_branch: string;
  status: 'idle' | 'stale' | 'fresh' | 'merging' | 'merged' | 'skip_merged';
  squash: boolean;
  pipeline: { id: number; iid: number; sha: string; status: string; created_at: string; updated_at: string };
  created_at: string;
  updated_at: string;
  merged_at: string | null;
  duration: number | null;
}

/** A merge request waiting (auto-merge) to join its train when it becomes mergeable. */
export interface ScheduledCar {
  merge_request_id: number;
  user_id: number;
  squash: boolean;
}

export const mergeTrainCars = defineTable<MergeTrainCar>('merge_train_cars');

export const scheduledCars = defineTable<ScheduledCar>('merge_train_scheduled');
