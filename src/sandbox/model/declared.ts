import type { ResourceDef, SingletonDef } from '../../api/resource.js';
import { defineTable, type Db } from '../db.js';

/**
 * The tables of the generated CRUD modules (crud.ts) are named from their declarations, here, so that a module that
 * reads another resource's records reaches them through the data layer, never through that resource's module.
 */

/** A collection's table and id sequence: the last fixed segment of its list (or create) route ('freeze_periods'). */
export function collectionTableName(resource: ResourceDef): string {
  const listRoute = resource.routes.list ?? resource.routes.create ?? '';
  return listRoute.split('/').filter((s) => s && !s.startsWith('{')).pop()!;
}

/** A singleton's table and id sequence: its noun with underscores, plural ('push_rules'). */
export const singletonTableName = (resource: SingletonDef): string => `${resource.noun.replace(/ /g, '_')}s`;

/** The table of a declared collection, as its generated module stores it. */
export const collectionTable = <T>(resource: ResourceDef): ((db: Db) => T[]) => defineTable<T>(collectionTableName(resource));

/** The table of a declared singleton, as its generated module stores it. */
export const singletonTable = <T>(resource: SingletonDef): ((db: Db) => T[]) => defineTable<T>(singletonTableName(resource));
