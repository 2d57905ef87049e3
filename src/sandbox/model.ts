import type { Severity } from '../api/alert-severities.js';
import type { TokenFields } from '../api/access-tokens.js';
import { defineTable } from './db.js';

/**
 * The simulated instance's data: its records and tables, in one place. Route modules read and write them here and
 * never each other's; the tables of the generated CRUD modules come from their declarations (crud.ts). Tables still
 * defined in a route module are moving here.
 */

export interface User {
  id: number;
  username: string;
  name: string;
  email: string;
  state: 'active' | 'blocked' | 'deactivated' | 'banned';
  is_admin: boolean;
  bot: boolean;
  external: boolean;
  created_at: string;
  /** Group or project of a bot user created for an access token. */
  bot_of?: { type: 'group' | 'project'; id: number };
  [key: string]: unknown;
}

/**
 * The id of a user's personal namespace. Groups and personal namespaces share one id space on the service; the
 * sandbox keeps group ids small (acme is 1) and puts personal namespaces far above them.
 */
export const USER_NAMESPACE_BASE = 1_000_000;
export const userNamespaceId = (user: Pick<User, 'id'>): number => USER_NAMESPACE_BASE + user.id;

export type Visibility = 'private' | 'internal' | 'public';

/** A group shared with another (group links), or a project shared with a group. */
export interface GroupLink {
  group_id: number;
  group_access_level: number;
  expires_at: string | null;
}

/** An uploaded avatar (multipart `avatar` on create or update), served at the record's avatar_url. */
export interface Avatar {
  filename: string;
  type: string;
  /** base64 */
  data: string;
}

/** Where the service serves a project's or group's uploaded avatar. */
export const avatarUrl = (rootUrl: string, kind: 'project' | 'group', record: { id: number; avatar?: Avatar }): string | null =>
  record.avatar ? `${rootUrl}/uploads/-/system/${kind}/avatar/${record.id}/${encodeURIComponent(record.avatar.filename)}` : null;

export interface Group {
  id: number;
  name: string;
  path: string;
  full_path: string;
  /** Names of the group and its ancestors, "Acme / Platform". */
  full_name?: string;
  parent_id: number | null;
  visibility: Visibility;
  created_at: string;
  description?: string;
  archived?: boolean;
  /** Set when the group was scheduled for deletion (delayed deletion). */
  marked_for_deletion_on?: string | null;
  /** Groups this group is shared with (`POST /groups/{group}/share`). */
  shared_with_groups?: GroupLink[];
  /** Settings a client changed that the sandbox only stores and shows (project_creation_level, lfs_enabled …). */
  settings?: Record<string, unknown>;
  avatar?: Avatar;
}

export interface Project {
  id: number;
  name: string;
  path: string;
  path_with_namespace: string;
  /** A group's id, or a user's personal namespace (userNamespaceId). */
  namespace_id: number;
  visibility: Visibility;
  default_branch: string;
  repository_storage: string;
  created_at: string;
  description: string | null;
  /** Set while a repository storage move runs. */
  repository_read_only?: boolean;
  updated_at?: string;
  last_activity_at?: string;
  creator_id?: number;
  archived?: boolean;
  topics?: string[];
  marked_for_deletion_on?: string | null;
  /** Groups this project is shared with (`POST /projects/{project}/share`). */
  shared_with_groups?: GroupLink[];
  /** Settings a client changed that the sandbox only stores and shows (merge_method, issues_access_level …). */
  settings?: Record<string, unknown>;
  avatar?: Avatar;
}

export interface Member {
  source_type: 'group' | 'project';
  source_id: number;
  user_id: number;
  access_level: number;
  created_at?: string;
  created_by_id?: number;
  expires_at?: string | null;
}

export type TokenKind = 'personal' | 'group' | 'project' | 'job' | 'oauth';

/** A stored token: the service's fields, its secret, and what the sandbox keeps to act as the service does. */
export interface AccessToken extends Omit<TokenFields, 'description' | 'token'> {
  kind: TokenKind;
  /** Group or project id of a group or project token. */
  resource_id?: number;
  description: string;
  token: string;
  /** Tokens created by rotating one another share a family (reuse detection revokes it whole). */
  family_id: number;
  /** Revoked because it was rotated (presenting it to rotate again triggers reuse detection). */
  rotated?: boolean;
  /** An impersonation token: made by an administrator, it acts as its user. */
  impersonation?: boolean;
}

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

export interface Commit {
  id: string;
  project_id: number;
  parent_ids: string[];
  title: string;
  message: string;
  author_name: string;
  author_email: string;
  authored_date: string;
  committer_name: string;
  committer_email: string;
  committed_date: string;
  /** Id of the root tree (src/sandbox/git/store.ts); the commit's id is computed from it as git does. */
  tree: string;
  /** Lines added and removed against the first parent. */
  stats: { additions: number; deletions: number; total: number };
}

export interface Repository {
  project_id: number;
  branches: Record<string, string>;
  tags: Record<string, string>;
}

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

export const users = defineTable<User>('users');
export const groups = defineTable<Group>('groups');
export const projects = defineTable<Project>('projects');
export const members = defineTable<Member>('members');
export const tokens = defineTable<AccessToken>('tokens');
export const issues = defineTable<Issue>('issues');
export const mergeRequests = defineTable<MergeRequest>('merge_requests');
export const commits = defineTable<Commit>('commits');
export const repositories = defineTable<Repository>('repositories');
export const notesTable = defineTable<Note>('notes');

// Tables of resource modules.

export interface SshKey {
  id: number;
  /** Owner of an SSH key; creator of a deploy key. */
  user_id: number;
  title: string;
  key: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  usage_type: 'auth' | 'signing' | 'auth_and_signing';
  /** An instance deploy key (`POST /deploy_keys`): any project's maintainers may enable it. */
  public?: boolean;
  /** Projects a deploy key is enabled on; absent for a user's SSH key. */
  deploy_keys_projects?: Array<{ id: number; project_id: number; can_push: boolean; created_at: string; updated_at: string }>;
}

export const sshKeyTable = defineTable<SshKey>('ssh_keys');

export interface CreateAccess {
  id: number;
  access_level: number;
  user_id?: number;
  group_id?: number;
  deploy_key_id?: number;
}

export interface ProtectedTag {
  id: number;
  project_id: number;
  name: string;
  create_access_levels: CreateAccess[];
}

export const protectedTagTable = defineTable<ProtectedTag>('protected_tags');

export interface Email {
  id: number;
  user_id: number;
  email: string;
  confirmed_at: string | null;
}

export const emailTable = defineTable<Email>('emails');

export interface Integration {
  id: number;
  owner: 'group' | 'project';
  /** Group or project id, by owner. */
  owner_id: number;
  slug: string;
  created_at: string;
  updated_at: string;
  inherited: boolean;
  events: Record<string, boolean>;
  vulnerability_events: boolean;
  properties: Record<string, string | boolean>;
}

export const integrationTable = defineTable<Integration>('integrations');

export type MoveKind = 'project' | 'snippet' | 'group';

export type MoveState = 'initial' | 'scheduled' | 'started' | 'replicated' | 'finished' | 'failed' | 'cleanup failed';

export interface StorageMove {
  id: number;
  kind: MoveKind;
  container_id: number;
  created_at: string;
  source_storage_name: string;
  destination_storage_name: string;
  /** Moves of a bulk schedule are created `initial` and scheduled by a worker; single moves start `scheduled`. */
  bulk: boolean;
  fails: boolean;
  step_ms: number;
  /** Side effects applied for good (finished or failed). */
  settled: boolean;
}

/** Where a group wiki's repository lives (groups have no storage field of their own). */
export interface GroupWiki {
  group_id: number;
  repository_storage: string;
  repository_read_only?: boolean;
}

export const storageMoveTable = defineTable<StorageMove>('repository_storage_moves');

export const groupWikis = defineTable<GroupWiki>('group_wikis');

export interface AlertIntegration {
  id: number;
  project_id: number;
  name: string;
  type: 'http' | 'prometheus';
  active: boolean;
  token: string;
  /** `legacy` and `legacy-prometheus` for the single endpoints; 16 hex characters for the others. */
  endpoint_identifier: string;
}

export interface Alert {
  id: number;
  iid: number;
  project_id: number;
  integration_id: number;
  title: string;
  description: string | null;
  severity: Severity;
  status: 'triggered' | 'acknowledged' | 'resolved' | 'ignored';
  started_at: string;
  ended_at: string | null;
  fingerprint: string | null;
  service: string | null;
  monitoring_tool: string | null;
  hosts: string[];
  environment: string | null;
  runbook: string | null;
  /** Occurrences grouped into this alert. */
  events: number;
  payload: unknown;
  created_at: string;
  updated_at: string;
}

export const alertIntegrations = defineTable<AlertIntegration>('alert_integrations');

export const alertTable = defineTable<Alert>('alert_management_alerts');

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

/**
 * A protected branch rule: a name or wildcard (`release/*`) of a project, or of a group (Premium: it applies to the
 * group's projects). Who may push, merge and unprotect are access entries as protected tags have them: a role, a
 * user, a group or (push only) a deploy key. Every project's default branch is protected when the project is created
 * (src/sandbox/protection.ts).
 */
export interface ProtectedBranch {
  id: number;
  project_id?: number;
  group_id?: number;
  name: string;
  push_access_levels: CreateAccess[];
  merge_access_levels: CreateAccess[];
  unprotect_access_levels: CreateAccess[];
  allow_force_push: boolean;
  code_owner_approval_required: boolean;
}

export const protectedBranches = defineTable<ProtectedBranch>('protected_branches');

export interface Licensee {
  Name: string;
  Email: string;
  Company: string;
}

export interface LicenseRecord {
  id: number;
  key: string;
  plan: string;
  licensee: Licensee;
  starts_at: string;
  expires_at: string;
  user_limit: number;
  add_ons: Record<string, number>;
  created_at: string;
}

export const licenseTable = defineTable<LicenseRecord>('licenses');

/**
 * A feature flag that was set (`POST /features/:name`): its gates as the service's flag store keeps them. A boolean
 * gate turns it on or off for everyone; percentage gates and actors (users, groups, projects) make it conditional.
 */
export interface FeatureFlag {
  name: string;
  boolean?: boolean;
  percentage_of_time?: number;
  percentage_of_actors?: number;
  actors: string[];
}

export const featureTable = defineTable<FeatureFlag>('features');
