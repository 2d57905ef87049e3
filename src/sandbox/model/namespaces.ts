import type { Severity } from '../../resources/alerts/resource.js';
import { badges as badgeDeclaration, type Badge } from '../../resources/badges/resource.js';
import { hookEvents, hooks as hookDeclaration, type HookEventFlag } from '../../resources/hooks/resource.js';
import { defineTable } from '../db.js';
import { collectionTable, type StoredRecord } from './declared.js';

/** Groups and projects, their members, and what they hold besides code: badges, integrations, webhooks, alerts. */

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

export const groups = defineTable<Group>('groups');
export const projects = defineTable<Project>('projects');
export const members = defineTable<Member>('members');

/** A stored badge: a project's (project_id) or a group's (group_id); the rendered URLs and kind are computed. */
export type StoredBadge = Pick<Badge, 'id' | 'name' | 'link_url' | 'image_url'> & { project_id?: number; group_id?: number };

/** Project and group badges, one table (routes/badges.ts and routes/group-badges.ts serve it). */
export const badgeTable = collectionTable<StoredBadge>(badgeDeclaration);

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
