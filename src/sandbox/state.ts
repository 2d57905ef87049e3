import { existsSync } from 'node:fs';
import { Db } from './db.js';
import type { Tier } from './http.js';
import { tokens } from './model.js';
import type { SandboxModule } from './module.js';
import { seedCore, type SeedOptions } from './seed.js';

/**
 * The sandbox's state at start: loaded from the state file when it exists, else seeded (the core records, then each
 * module's part of the demo data). Returns it with the administrator's token.
 */
export function openState(options: { stateFile?: string; tier: Tier; seed: Omit<SeedOptions, 'now'> }, now: Date, modules: SandboxModule[]): { db: Db; adminToken: string } {
  if (options.stateFile && existsSync(options.stateFile)) {
    const db = Db.load(options.stateFile);
    return { db, adminToken: tokens(db).find((t) => t.name === 'sandbox-admin' && t.active)?.token ?? '' };
  }
  const db = new Db();
  const seedOptions = { ...options.seed, now };
  const adminToken = seedCore(db, seedOptions).adminToken.token;
  if (seedOptions.seed === 'demo') for (const module of modules) module.seed?.(db, { ...seedOptions, tier: options.tier });
  return { db, adminToken };
}
