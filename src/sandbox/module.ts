import type { Db } from './db.js';
import type { PushEvent } from './git/repository.js';
import type { Router } from './router.js';
import type { SeedOptions } from './seed.js';
import type { Tier } from './http.js';

export interface SeedContext extends SeedOptions {
  tier: Tier;
}

/** One resource of the simulated instance: its routes, and its part of the seed data. */
export interface SandboxModule {
  /** `api` routes live under /api/v4; `web` routes outside it (alert intake). */
  routes(api: Router, web: Router): void;
  /** Runs after the core seed (users root, alice, bob; group acme; projects acme/api and acme/web). */
  seed?(db: Db, context: SeedContext): void;
  /** Extra variables `sandbox --print-env` exports (alert intake URLs and keys). */
  env?(sandbox: { rootUrl: string; db: Db }): Record<string, string>;
  /**
   * A branch moved through the API (a commit, a file change, a cherry-pick, a submodule update): runs after the
   * ref was updated, in the same request. Merge requests follow their source branch here; push webhooks hook in here.
   */
  onPush?(event: PushEvent, context: { db: Db; tier: Tier; rootUrl: string; now(): Date }): void;
}
