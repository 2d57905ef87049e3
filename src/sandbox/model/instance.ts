import type { auditEvents as declaredAuditEvents, AuditDetails } from '../../resources/audit-events/resource.js';
import type { StoredOf } from '../../api/fields.js';
import { features as declaredFeatures } from '../../resources/features/resource.js';
import { licenses as declaredLicenses } from '../../resources/licenses/resource.js';
import { MOVE_KINDS, MOVE_STATES, storageMoves as declaredMoves } from '../../resources/storage-moves/resource.js';
import { defineTable, type Db } from '../db.js';
import { collectionTable, type StoredRecord } from './declared.js';

/** The instance's own records: licenses, feature flags, plan limits, repository storage moves, audit events. */

/**
 * A license as stored: the declared fields but those computed from the billable users' history (and whether it has
 * expired), with its key; its dates and user limit are always set.
 */
export type LicenseRecord = StoredRecord<typeof declaredLicenses, { key: string; starts_at: string; expires_at: string; user_limit: number }, 'historical_max' | 'maximum_user_count' | 'expired' | 'overage' | 'active_users'>;

export const licenseTable = collectionTable<LicenseRecord>(declaredLicenses);

/**
 * A feature flag that was set (`POST /features/:name`): its gates as the service's flag store keeps them (its state,
 * gates and definition are computed from them; a flag is known by its name, it has no id). A boolean gate turns it on or off for everyone; percentage gates
 * and actors (users, groups, projects) make it conditional.
 */
export type FeatureFlag = Omit<StoredOf<typeof declaredFeatures>, 'state' | 'gates' | 'definition'> & { boolean?: boolean; percentage_of_time?: number; percentage_of_actors?: number; actors: string[] };

export const featureTable = defineTable<FeatureFlag>('features');

/** Plan limits by plan name, as `PUT /application/plan_limits` set them (a plan not here has the defaults). */
export const planLimitsByPlan = (db: Db): Record<string, Record<string, number>> =>
  db.record<Record<string, Record<string, number>>>('plan_limits', () => ({}));

export type MoveKind = (typeof MOVE_KINDS)[number];

export type MoveState = (typeof MOVE_STATES)[number];

/**
 * A repository storage move: the declared fields but its state (computed from its creation time, storage-moves.ts)
 * and the item moved (presented from container_id), with what drives its state machine.
 */
export type StorageMove = StoredRecord<typeof declaredMoves, {
  kind: MoveKind;
  container_id: number;
  /** Moves of a bulk schedule are created `initial` and scheduled by a worker; single moves start `scheduled`. */
  bulk: boolean;
  fails: boolean;
  step_ms: number;
  /** Side effects applied for good (finished or failed). */
  settled: boolean;
}, 'state' | MoveKind>;

/** Where a group wiki's repository lives (groups have no storage field of their own). */
export interface GroupWiki {
  group_id: number;
  repository_storage: string;
  repository_read_only?: boolean;
}

export const storageMoveTable = defineTable<StorageMove>('repository_storage_moves');

export const groupWikis = defineTable<GroupWiki>('group_wikis');

/** An audit event as recorded (src/sandbox/audit.ts), with the details the lists present. */
export type StoredAuditEvent = StoredRecord<typeof declaredAuditEvents, { details: AuditDetails & { author_name: string; target_type: string; target_details: string; entity_path: string } }>;

export const auditEventsTable = defineTable<StoredAuditEvent>('audit_events');
