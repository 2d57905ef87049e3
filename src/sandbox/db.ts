import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

interface DbData {
  sequences: Record<string, number>;
  tables: Record<string, unknown[]>;
  records: Record<string, unknown>;
}

/**
 * The sandbox's in-memory state: named tables of plain JSON records, named single records, and id sequences.
 * Every table is declared once with defineTable(), in the data layer (model.ts); the whole state persists as one
 * JSON file.
 */
export class Db {
  private data: DbData = { sequences: {}, tables: {}, records: {} };

  table<T>(name: string): T[] {
    return (this.data.tables[name] ??= []) as T[];
  }

  /** A single record (application settings, license state …), created by init on first use. */
  record<T>(name: string, init: () => T): T {
    return (this.data.records[name] ??= init()) as T;
  }

  setRecord<T>(name: string, value: T): void {
    this.data.records[name] = value;
  }

  nextId(sequence: string): number {
    this.data.sequences[sequence] = (this.data.sequences[sequence] ?? 0) + 1;
    return this.data.sequences[sequence];
  }

  save(file: string): void {
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(this.data), { mode: 0o600 });
    renameSync(temp, file);
  }

  static load(file: string): Db {
    const db = new Db();
    db.data = JSON.parse(readFileSync(file, 'utf8')) as DbData;
    return db;
  }
}

/** A typed accessor for one table: `const badges = defineTable<Badge>('badges'); badges(db).push(…)`. */
export function defineTable<T>(name: string): (db: Db) => T[] {
  return (db) => db.table<T>(name);
}

/** A token value in the service's format. */
export function newTokenValue(prefix = 'glpat-'): string {
  return prefix + randomBytes(15).toString('base64url').slice(0, 20);
}

export function newSha(): string {
  return randomBytes(20).toString('hex');
}
