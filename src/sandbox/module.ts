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
  /**
   * The modules whose seed data this module's seed builds on (by name: a resource's folder, or a file of routes/): theirs
   * run first. Name every module whose records the seed reads: the order of the others is not a contract.
   */
  seedAfter?: string[];
}

const isModule = (value: unknown): value is SandboxModule =>
  typeof value === 'object' && value !== null && typeof (value as SandboxModule).routes === 'function';

/**
 * The modules of the module files (routes/index.ts, generated from the folders: module name → the file's exports), in
 * the order they seed and register: by name, each after the modules it names in seedAfter.
 * A file exports at most one module (the others are helpers); route order does not matter (see Router.match).
 */
export function collectModules(files: Record<string, Record<string, unknown>>): SandboxModule[] {
  const named = new Map<string, SandboxModule>();
  for (const [file, exports] of Object.entries(files)) {
    const found = [...new Set(Object.values(exports).filter(isModule))];
    if (found.length > 1) throw new Error(`sandbox module file ${file} exports ${found.length} modules; one is registered per file`);
    if (found.length) named.set(file, found[0]);
  }
  const ordered: SandboxModule[] = [];
  const visiting = new Set<string>();
  const visit = (name: string): void => {
    const module = named.get(name);
    if (!module) throw new Error(`sandbox module ${name} (named in a seedAfter) does not exist`);
    if (ordered.includes(module)) return;
    if (visiting.has(name)) throw new Error(`sandbox modules seed after each other in a circle (${[...visiting, name].join(' → ')})`);
    visiting.add(name);
    for (const before of module.seedAfter ?? []) visit(before);
    visiting.delete(name);
    ordered.push(module);
  };
  for (const name of [...named.keys()].sort((a, b) => a.localeCompare(b))) visit(name);
  return ordered;
}

/** The variables `sandbox --print-env` exports: every module's. */
export function sandboxEnvOf(modules: SandboxModule[], sandbox: { rootUrl: string; db: Db }): Record<string, string> {
  return Object.assign({}, ...modules.map((module) => module.env?.(sandbox) ?? {}));
}
