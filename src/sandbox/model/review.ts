import type { StoredOf } from '../../api/fields.js';
import type { approvalSettings as declaredSettings } from '../../resources/approval-settings/resource.js';
import type { approvalRules as declaredRules } from '../../resources/approval-rules/resource.js';
import type { draftNotes as declaredDrafts } from '../../resources/draft-notes/resource.js';
import type { issues as declaredIssues } from '../../resources/issues/resource.js';
import type { mergeRequests as declaredMergeRequests } from '../../resources/merge-requests/resource.js';
import type { mergeTrains as declaredTrains } from '../../resources/merge-trains/resource.js';
import type { notes as declaredNotes } from '../../resources/notes/resource.js';
import { defineTable } from '../db.js';
import type { StoredFields, StoredRecord } from './declared.js';

/** Issues, merge requests and their review: notes, draft notes, approvals and approval rules, merge trains. */

/** An issue as stored: the declared fields it keeps (the rest computed when presenting), its author and closer by id. */
export type Issue = StoredFields<typeof declaredIssues, 'iid' | 'project_id' | 'title' | 'description' | 'state' | 'created_at' | 'updated_at', {
  author_id: number;
  confidential?: boolean;
  closed_at?: string | null;
  closed_by_id?: number;
}>;

/** A merge request as stored: the declared fields it keeps (the rest computed when presenting) and its approvals. */
export type MergeRequest = StoredFields<typeof declaredMergeRequests, 'iid' | 'project_id' | 'title' | 'description' | 'state' | 'created_at' | 'updated_at'
  | 'source_branch' | 'target_branch' | 'merge_status' | 'detailed_merge_status' | 'sha', {
  author_id: number;
  /** Approvals it needs (its rules add up to it), and the users who approved. */
  approvals_required: number;
  approved_by: number[];
  merged_at?: string | null;
  closed_at?: string | null;
  closed_by_id?: number;
}>;

export const issues = defineTable<Issue>('issues');
export const mergeRequests = defineTable<MergeRequest>('merge_requests');

export interface NotePosition {
  base_sha: string;
  start_sha: string;
  head_sha: string;
  position_type: string;
  [key: string]: unknown;
}

/**
 * A note as stored: the declared fields it keeps; its author, resolver and thread by id; its diff position. The
 * rest of the note's fields are computed when it is presented.
 */
export type Note = StoredFields<typeof declaredNotes, 'type' | 'body' | 'created_at' | 'updated_at' | 'system' | 'noteable_id' | 'noteable_type' | 'project_id' | 'commit_id' | 'internal' | 'noteable_iid', {
  author_id: number;
  /** Notes of one thread share it; a note that starts a thread gets a new one. */
  discussion_id: string;
  position: NotePosition | null;
  /** Whether a note of a thread is resolved, and by whom. */
  resolved: boolean;
  resolved_by: number | null;
}>;

export type NoteableType = Note['noteable_type'];

export const notesTable = defineTable<Note>('notes');

/**
 * A draft note of a merge request (spec 1, api-facts §1.4): a pending comment that only its author sees, until it is
 * published as a note. Stored as declared, with its diff position and when it was written.
 */
export type DraftNote = StoredRecord<typeof declaredDrafts, { project_id: number; position: NotePosition | null; created_at: string }>;

export const draftNoteTable = defineTable<DraftNote>('draft_notes');

/** A project's approval configuration (spec 1, api-facts §1.2): the settings it stores (one with two names). */
export type ApprovalSettings = StoredFields<typeof declaredSettings, 'approvals_before_merge' | 'reset_approvals_on_push' | 'selective_code_owner_removals'
  | 'disable_overriding_approvers_per_merge_request' | 'merge_requests_author_approval' | 'merge_requests_disable_committers_approval' | 'require_password_to_approve', { project_id: number }>;

/** A stored project approval rule: the declared fields it keeps, and the ids it presents as users, groups and protected branches. */
export type ApprovalRule = StoredFields<typeof declaredRules, 'name' | 'report_type' | 'approvals_required' | 'applies_to_all_protected_branches', {
  project_id: number;
  /** Code owner rules come from CODEOWNERS, never from the API. */
  rule_type: StoredOf<typeof declaredRules>['rule_type'] | 'code_owner';
  user_ids: number[];
  group_ids: number[];
  protected_branch_ids: number[];
}>;

export const approvalSettingsTable = defineTable<ApprovalSettings>('project_approval_settings');
export const approvalRules = defineTable<ApprovalRule>('approval_rules');

/** An approval rule of one merge request: a copy of a project rule that applies to it, or one of its own. */
export type MergeRequestRule = StoredFields<typeof declaredRules, 'name' | 'approvals_required', Pick<ApprovalRule, 'rule_type' | 'user_ids' | 'group_ids'> & {
  merge_request_id: number;
  /** The project rule this one was copied from. */
  source_rule_id: number | null;
}>;

export const mergeRequestRules = defineTable<MergeRequestRule>('merge_request_approval_rules');
/** Merge requests whose rules were changed through the API (approval_rules_overwritten). */
export const overriddenRules = defineTable<{ merge_request_id: number }>('merge_request_rules_overridden');

/**
 * Merge trains (spec 1; Premium). A car is one merge request on the train of its target branch. The sandbox runs no
 * pipelines: a car stays `idle` until it is removed (a push to its source branch) — the seed holds one `merged` car so
 * that `scope=complete` has something to show. Adding with auto_merge while the merge request cannot be merged yet
 * (approvals missing) schedules it (202); it joins the train when the last approval arrives.
 */
export type MergeTrainCar = StoredFields<typeof declaredTrains, 'created_at' | 'updated_at' | 'target_branch' | 'status' | 'merged_at' | 'duration', {
  project_id: number;
  merge_request_id: number;
  user_id: number;
  squash: boolean;
  /** The train's pipeline for the car (the sandbox runs none: it stays running). */
  pipeline: { id: number; iid: number; sha: string; status: string; created_at: string; updated_at: string };
}>;

/** A merge request waiting (auto-merge) to join its train when it becomes mergeable. */
export type ScheduledCar = Pick<MergeTrainCar, 'merge_request_id' | 'user_id' | 'squash'>;

export const mergeTrainCars = defineTable<MergeTrainCar>('merge_train_cars');

export const scheduledCars = defineTable<ScheduledCar>('merge_train_scheduled');
