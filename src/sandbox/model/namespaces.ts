import type { alerts as alertDeclaration, Severity } from '../../resources/alerts/resource.js';
import { badges as badgeDeclaration } from '../../resources/badges/resource.js';
import { groups as groupDeclaration } from '../../resources/groups/resource.js';
import { projects as projectDeclaration } from '../../resources/projects/resource.js';
import { hookEvents, hooks as hookDeclaration, type HookEventFlag } from '../../resources/hooks/resource.js';
import type { integrations as integrationDeclaration } from '../../resources/integrations/resource.js';
import { defineTable } from '../db.js';
import { collectionTable, type StoredRecord } from './declared.js';

/** Groups and projects, their members, and what they hold besides code: badges, integrations, webhooks, alerts. */

/** Visibility levels, least open first: a group or project is no more open than the group it is in. */
export const VISIBILITIES = ['private', 'internal', 'public'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

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

/**
 * A group as the sandbox stores it: the declared fields (src/resources/groups/resource.ts) but those it computes when
 * presenting, the groups it is shared with (`POST /groups/{group}/share`) and its uploaded avatar.
 */
export type Group = StoredRecord<typeof groupDeclaration, { shared_with_groups: GroupLink[]; avatar?: Avatar },
  // Computed when presented:
  | 'web_url' | 'emails_disabled' | 'avatar_url' | 'full_name' | 'organization_id' | 'ldap_cn' | 'ldap_access' | 'repository_storage'
  | 'runners_token' | 'enabled_git_access_protocol' | 'projects' | 'shared_projects'
>;

/** What a new group has where its creator says nothing (its name and path come from the creator). */
export const NEW_GROUP: Omit<Group, 'id' | 'name' | 'path' | 'full_path' | 'created_at'> = {
  description: '',
  visibility: 'private',
  parent_id: null,
  marked_for_deletion_on: null,
  archived: false,
  shared_with_groups: [],
  // The settings a create or an update takes.
  share_with_group_lock: false,
  require_two_factor_authentication: false,
  two_factor_grace_period: 48,
  project_creation_level: 'developer',
  auto_devops_enabled: null,
  subgroup_creation_level: 'maintainer',
  emails_enabled: true,
  mentions_disabled: null,
  lfs_enabled: true,
  math_rendering_limits_enabled: true,
  lock_math_rendering_limits_enabled: false,
  default_branch: null,
  default_branch_protection: 2,
  default_branch_protection_defaults: { allowed_to_push: [{ access_level: 40 }], allow_force_push: false, allowed_to_merge: [{ access_level: 40 }] },
  request_access_enabled: true,
  shared_runners_setting: 'enabled',
  max_artifacts_size: null,
  wiki_access_level: 'enabled',
  membership_lock: false,
  prevent_forking_outside_group: false,
  prevent_sharing_groups_outside_hierarchy: false,
  ip_restriction_ranges: null,
  allowed_email_domains_list: null,
};

/**
 * A project as the sandbox stores it: the declared fields (src/resources/projects/resource.ts) but those it computes
 * when presenting, the groups it is shared with (`POST /projects/{project}/share`), its uploaded avatar, and whether
 * a repository storage move holds its repository read-only.
 */
export type Project = StoredRecord<typeof projectDeclaration, {
  /** Always a branch's name here (a new project's is main). */
  default_branch: string;
  shared_with_groups: GroupLink[];
  avatar?: Avatar;
  repository_read_only?: boolean;
},
  // Computed when presented:
  | 'name_with_namespace' | 'tag_list' | 'ssh_url_to_repo' | 'http_url_to_repo' | 'web_url' | 'readme_url' | 'forks_count' | 'avatar_url'
  | 'star_count' | 'namespace' | 'container_registry_image_prefix' | '_links' | 'empty_repo' | 'owner' | 'repository_object_format'
  | 'issues_enabled' | 'merge_requests_enabled' | 'wiki_enabled' | 'jobs_enabled' | 'snippets_enabled' | 'container_registry_enabled'
  | 'can_create_merge_request_in' | 'emails_disabled' | 'import_url' | 'import_type' | 'import_status' | 'open_issues_count'
  | 'description_html' | 'build_git_strategy' | 'marked_for_deletion_at' | 'statistics' | 'permissions'
>;

/** What a new project has where its creator says nothing (its name, path and namespace come from the creator). */
export const NEW_PROJECT: Omit<Project, 'id' | 'name' | 'path' | 'path_with_namespace' | 'namespace_id' | 'created_at' | 'updated_at' | 'last_activity_at'> = {
  visibility: 'private',
  default_branch: 'main',
  repository_storage: 'default',
  description: null,
  archived: false,
  topics: [],
  marked_for_deletion_on: null,
  shared_with_groups: [],
  creator_id: null,
  // The settings a create or an update takes.
  packages_enabled: true,
  resolve_outdated_diff_discussions: false,
  emails_enabled: true,
  shared_runners_enabled: true,
  lfs_enabled: true,
  ci_config_path: '',
  public_jobs: true,
  only_allow_merge_if_pipeline_succeeds: false,
  allow_merge_on_skipped_pipeline: null,
  request_access_enabled: true,
  only_allow_merge_if_all_discussions_are_resolved: false,
  remove_source_branch_after_merge: true,
  printing_merge_request_link_enabled: true,
  merge_method: 'merge',
  squash_option: 'default_off',
  enforce_auth_checks_on_uploads: true,
  suggestion_commit_message: null,
  merge_commit_template: null,
  squash_commit_template: null,
  issue_branch_template: null,
  autoclose_referenced_issues: true,
  warn_about_potentially_unwanted_characters: true,
  approvals_before_merge: 0,
  mirror: false,
  ci_default_git_depth: 20,
  ci_forward_deployment_enabled: true,
  ci_separated_caches: true,
  build_timeout: 3600,
  auto_cancel_pending_pipelines: 'enabled',
  auto_devops_enabled: false,
  keep_latest_artifact: true,
  restrict_user_defined_variables: false,
  group_runners_enabled: true,
  service_desk_enabled: false,
  issues_access_level: 'enabled',
  repository_access_level: 'enabled',
  merge_requests_access_level: 'enabled',
  forking_access_level: 'enabled',
  wiki_access_level: 'enabled',
  builds_access_level: 'enabled',
  snippets_access_level: 'enabled',
  pages_access_level: 'private',
  analytics_access_level: 'enabled',
  container_registry_access_level: 'enabled',
  security_and_compliance_access_level: 'private',
  releases_access_level: 'enabled',
  environments_access_level: 'enabled',
  feature_flags_access_level: 'enabled',
  infrastructure_access_level: 'enabled',
  monitor_access_level: 'enabled',
  model_experiments_access_level: 'enabled',
  model_registry_access_level: 'enabled',
};

export interface Member {
  source_type: 'group' | 'project';
  source_id: number;
  user_id: number;
  access_level: number;
  created_at?: string;
  created_by_id?: number;
  expires_at?: string | null;
}

export const groups = defineTable<Group>('groups');
export const projects = defineTable<Project>('projects');
export const members = defineTable<Member>('members');

/** A stored badge: a project's (project_id) or a group's (group_id); the rendered URLs and kind are computed. */
export type StoredBadge = StoredRecord<typeof badgeDeclaration, unknown, 'rendered_link_url' | 'rendered_image_url' | 'kind'>;

/** Project and group badges, one table (routes/badges.ts and routes/group-badges.ts serve it). */
export const badgeTable = collectionTable<StoredBadge>(badgeDeclaration);

/**
 * A group's or a project's integration of one kind: the declared fields (its title is its kind's, and a stored one is
 * active) with its owner and its settings, secret ones too (`properties` presents those that are not).
 */
export type Integration = StoredRecord<typeof integrationDeclaration, { owner: 'group' | 'project'; owner_id: number; properties: Record<string, string | boolean> }, 'title' | 'active'>;

export const integrationTable = defineTable<Integration>('integrations');

/**
 * A project webhook (resources/hooks/sandbox.ts serves it; webhooks.ts delivers to it): the declared fields, with the
 * secret token and the values of URL variables and custom headers, which are never presented; the failure state
 * (alert_status is computed from it).
 */
export type StoredHook = StoredRecord<typeof hookDeclaration, {
  token: string | null;
  url_variables: Array<{ key: string; value: string }>;
  custom_headers: Array<{ key: string; value: string }>;
  /** Consecutive failed deliveries; reset by a successful one. */
  recent_failures?: number;
  /** While set and in the future (and failures are 4 to 39), the hook is temporarily disabled. */
  disabled_until?: string | null;
  /** Sent as X-Gitlab-Webhook-UUID. */
  uuid?: string;
}, 'alert_status'>;

/** One delivery as the events endpoint presents it, plus what a resend needs: the hook, the key, the event flag. */
export type HookLog = StoredRecord<typeof hookEvents, { hook_id: number; idempotency_key: string; event: HookEventFlag }>;

export const storedHooks = collectionTable<StoredHook>(hookDeclaration);
export const hookLogs = defineTable<HookLog>('web_hook_logs');

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

/** An alert as the intake records it: its declared iid and title, and what the payload set and the intake counts. */
export type Alert = StoredRecord<typeof alertDeclaration, {
  project_id: number;
  integration_id: number;
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
}>;

export const alertIntegrations = defineTable<AlertIntegration>('alert_integrations');

export const alertTable = defineTable<Alert>('alert_management_alerts');
