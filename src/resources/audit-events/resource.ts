import { f, type RecordOf } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** What an audit event's `details` may hold (the service's shape: every key optional). */
export interface AuditDetails {
  author_name?: string;
  author_email?: string;
  target_id?: number | string;
  target_type?: string;
  target_details?: string;
  custom_message?: string;
  add?: string;
  remove?: string;
  change?: string;
  from?: unknown;
  to?: unknown;
  as?: string;
  impersonated_by?: string;
  entity_path?: string;
  ip_address?: string;
}

/**
 * Audit events (Premium): who changed what, newest first. The instance's (administrators), a group's (Owner) and a
 * project's (Maintainer). The service filters by time (created_after, created_before) everywhere, and the instance
 * list by entity too; `details` has no fixed schema but usually names the author, the target (target_type,
 * target_id, target_details) and what happened (add/remove, change with from and to, or a custom_message).
 */
export const auditEvents = defineResource({
  noun: 'audit event',
  command: 'audit-events',
  id: { param: 'audit_event_id', field: 'id' },
  parents: {
    instance: {
      parent: 'instance',
      where: () => 'the instance',
      routes: { list: 'GET /audit_events', get: 'GET /audit_events/{audit_event_id}' },
    },
    group: {
      parent: 'group',
      routes: { list: 'GET /groups/{group}/audit_events', get: 'GET /groups/{group}/audit_events/{audit_event_id}' },
    },
    project: {
      parent: 'project',
      routes: { list: 'GET /projects/{project}/audit_events', get: 'GET /projects/{project}/audit_events/{audit_event_id}' },
    },
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    author_id: f.int({ readOnly: true }),
    entity_id: f.int({ readOnly: true }),
    entity_type: f.string({ readOnly: true }),
    event_name: f.string({ readOnly: true }),
    details: f.object<AuditDetails>(),
    created_at: f.time({ readOnly: true }),
  },
  computed: ['author', 'action', 'target'],
  columns: ['id', 'created_at', 'author', 'action', 'target'],
  identity: ['id'],
  roles: { read: 'maintainer', write: 'owner' },
  tier: 'premium',
});

/** An audit event as the service presents it. */
export type AuditEvent = RecordOf<typeof auditEvents>;

/**
 * The service's name for the kind of object a collection's path holds (`target_type` of its audit events), by the
 * collection's path segment and the level of its owner: a project's `variables` are Ci::Variable, a group's
 * Ci::GroupVariable. Collections not listed are named by their segment in the singular, capitalised (`badges` →
 * Badge). The sandbox names its targets with this, and plan matches drift to events with it.
 */
const TARGET_TYPES: Record<string, Partial<Record<'project' | 'group' | 'instance', string>>> = {
  variables: { project: 'Ci::Variable', group: 'Ci::GroupVariable', instance: 'Ci::InstanceVariable' },
  hooks: { project: 'ProjectHook', group: 'GroupHook', instance: 'SystemHook' },
  members: { project: 'User', group: 'User' },
  protected_branches: { project: 'ProtectedBranch', group: 'ProtectedBranch' },
  protected_tags: { project: 'ProtectedTag' },
  deploy_tokens: { project: 'DeployToken', group: 'DeployToken' },
  access_tokens: { project: 'PersonalAccessToken', group: 'PersonalAccessToken' },
  approval_rules: { project: 'ApprovalProjectRule' },
  push_rule: { project: 'PushRule', group: 'PushRule' },
  runners: { project: 'Ci::Runner', group: 'Ci::Runner', instance: 'Ci::Runner' },
};

export function auditTargetType(collection: string, level: 'project' | 'group' | 'instance'): string {
  const known = TARGET_TYPES[collection]?.[level];
  if (known) return known;
  const singular = collection.replace(/ies$/, 'y').replace(/(ss|sh|ch|x)es$/, '$1').replace(/s$/, '');
  return singular.split(/[_-]/).map((word) => (word ? word[0].toUpperCase() + word.slice(1) : word)).join('');
}

/** What an event did, in words: "changed link_url: a → b", "added badge", or its custom message. */
export function auditAction(details: AuditDetails): string {
  const show = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value ?? null));
  if (details.custom_message) return details.custom_message;
  if (details.change !== undefined) return `changed ${details.change}${'from' in details || 'to' in details ? `: ${show(details.from)} → ${show(details.to)}` : ''}`;
  if (details.add !== undefined) return `added ${details.add}${details.as ? ` as ${details.as}` : ''}`;
  if (details.remove !== undefined) return `removed ${details.remove}`;
  return '';
}
