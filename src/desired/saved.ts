import { CliError, ExitCode, UsageError } from '../errors.js';
import type { Change, Level } from './model.js';
import type { Plan } from './plan.js';
import { countActions } from './render.js';
import { sectionOf } from './sections/index.js';

/**
 * A plan as JSON: what `plan -o json` prints and `--out FILE` saves, and what `apply FILE` carries out. It holds
 * the desired values with secrets as references (never values), and a digest of every object as the plan saw it,
 * so apply can refuse a plan whose objects changed since.
 */

export const PLAN_FORMAT = 'forgectl-plan';
export const PLAN_VERSION = 1;

/** A change with its owner spelled out (target, path, id, default_branch) instead of nested. */
export type SavedChange = Omit<Change, 'owner'> & { target: Level; path: string; id?: number; default_branch?: string };

export interface PlanDocument {
  format: typeof PLAN_FORMAT;
  version: typeof PLAN_VERSION;
  created_at: string;
  /** The instance the plan was made against (its API base URL). */
  server: string;
  /** The desired-state file, and the folder its relative paths (local files, secret files) start from. */
  file: string;
  base_dir: string;
  prune: 'managed' | 'all';
  summary: Record<string, number>;
  changes: SavedChange[];
  failures: Array<{ target: Level; path: string; message: string }>;
}

export function planDocument(plan: Plan, meta: { server: string; file: string; baseDir: string; now: Date }): PlanDocument {
  const counts = countActions(plan.changes);
  return {
    format: PLAN_FORMAT,
    version: PLAN_VERSION,
    created_at: meta.now.toISOString(),
    server: meta.server,
    file: meta.file,
    base_dir: meta.baseDir,
    prune: plan.prune,
    summary: { ...counts, owners: plan.owners.length, failures: plan.failures.length, left_alone: plan.leftAlone },
    changes: plan.changes.map(({ owner, ...change }) => ({ target: owner.level, path: owner.path, id: owner.id, default_branch: owner.defaultBranch, ...change })),
    failures: plan.failures.map((failure) => ({ target: failure.owner.level, path: failure.owner.path, message: failure.error.message })),
  };
}

/** Whether a file's text is a saved plan (JSON with the plan's format marker) rather than a desired-state file. */
export function looksLikePlan(text: string): boolean {
  return /^\s*\{/.test(text) && text.includes(`"${PLAN_FORMAT}"`);
}

/** Reads a saved plan: its changes, and what it was made against. */
export function readPlanDocument(file: string, text: string): { document: PlanDocument; changes: Change[] } {
  let document: PlanDocument;
  try {
    document = JSON.parse(text) as PlanDocument;
  } catch (error) {
    throw new UsageError(`${file} is not a plan: ${(error as Error).message}`);
  }
  if (document.format !== PLAN_FORMAT || !Array.isArray(document.changes)) throw new UsageError(`${file} is not a plan made by forgectl plan -o json`);
  if (document.version !== PLAN_VERSION) throw new CliError(`${file} is a plan of format version ${String(document.version)}; this forgectl reads version ${PLAN_VERSION}`, ExitCode.usage, 'make the plan again with this forgectl');
  const changes = document.changes.map(({ target, path, id, default_branch, ...item }, index): Change => {
    if (!sectionOf(target, item.section)) throw new UsageError(`${file}: change ${index + 1} names an unknown section ${target} ${item.section}`);
    return { owner: { level: target, path, id, defaultBranch: default_branch }, ...item, fields: item.fields ?? [], digest: item.digest ?? '' };
  });
  return { document, changes };
}
