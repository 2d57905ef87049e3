import { existsSync } from 'node:fs';
import { checkWritableTarget } from '../files.js';
import { WriteError } from '../write.js';
import { Db } from './db.js';
import type { Tier } from './http.js';
import { tokens } from './model.js';
import type { SandboxModule } from './module.js';
import { seedCore, type SeedOptions } from './seed.js';

/**
 * The sandbox's state at start: loaded from the state file when it exists, else seeded (the core records, then each
 * module's part of the demo data) and written to the state file at once, so that a path that cannot be written is
 * said before the sandbox serves, and the file is there whatever ends the run. Returns it with the administrator's token.
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
  if (options.stateFile) saveState(db, options.stateFile);
  return { db, adminToken };
}

/** Writes the state file (atomically, mode 0600), as after every change and when the sandbox stops. */
export function saveState(db: Db, stateFile: string): void {
  checkWritableTarget(stateFile);
  try {
    db.save(stateFile);
  } catch (error) {
    throw new WriteError(stateFile, error, 'give --state a file in a folder that exists and that you may write to');
  }
}
