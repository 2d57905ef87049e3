import type { AuditDetails, AuditEvent } from '../../resources/audit-events/resource.js';
import { defineTable, type Db } from '../db.js';

/** The instance's own records: licenses, feature flags, plan limits, repository storage moves, audit events. */

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

/** Plan limits by plan name, as `PUT /application/plan_limits` set them (a plan not here has the defaults). */
export const planLimitsByPlan = (db: Db): Record<string, Record<string, number>> =>
  db.record<Record<string, Record<string, number>>>('plan_limits', () => ({}));

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

/** An audit event as recorded (src/sandbox/audit.ts), with the details the lists present. */
export interface StoredAuditEvent extends AuditEvent {
  details: AuditDetails & { author_name: string; target_type: string; target_details: string; entity_path: string };
}

export const auditEventsTable = defineTable<StoredAuditEvent>('audit_events');
