import { CliError, ExitCode, UsageError } from '../errors.js';
import { pluralNoun } from '../parse.js';
import { digestOfValue, type Change, type Level, type Owner } from './model.js';
import type { OwnerFailure, Plan } from './plan.js';
import { changeLabel, countActions } from './render.js';
import { sectionOf } from './sections/index.js';

/**
 * A plan as JSON: what `plan -o json` prints and `--out FILE` saves, and what `apply FILE` carries out. It holds
 * the desired values with secrets as references (never values), and a digest of every object as the plan saw it,
 * so apply can refuse a plan whose objects changed since. It is bound to its own changes too: a digest of each
 * change and one over them all, recorded when the plan is made and printed in its job's output, so that `plan
 * merge` and `apply` carry out only what was reviewed (a plan edited since is refused, naming the change).
 */

export const PLAN_FORMAT = 'forgectl-plan';
/** 2: the changes are bound by their digests (a plan of version 1 has none, and is made again). */
export const PLAN_VERSION = 2;

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
  /** sha256 of the desired-state file's text: plans of shards merge only when made from the same file. */
  file_digest?: string;
  /** The --target and --exclude it was made with. */
  targets?: string[];
  exclude?: string[];
  /** The shard it covers (I of N); absent for a whole plan, and for the merge of every shard's. */
  shard?: { index: number; total: number };
  prune: 'managed' | 'all';
  summary: Record<string, number>;
  changes: SavedChange[];
  /** sha256 of each change (as JSON, keys sorted), in order; and sha256 of those digests, one a line. */
  change_digests: string[];
  changes_digest: string;
  failures: Array<{ target: Level; path: string; message: string }>;
}

export interface PlanMeta {
  server: string;
  file: string;
  baseDir: string;
  now: Date;
  digest: string;
  targets: string[];
  exclude: string[];
  shard?: { index: number; total: number };
}

const ownerCounts = (owners: Owner[]) => ({
  projects: owners.filter((owner) => owner.level === 'project').length,
  groups: owners.filter((owner) => owner.level === 'group').length,
  instance: owners.some((owner) => owner.level === 'instance') ? 1 : 0,
});

export function planDocument(plan: Plan, meta: PlanMeta): PlanDocument {
  const counts = countActions(plan.changes);
  return {
    format: PLAN_FORMAT,
    version: PLAN_VERSION,
    created_at: meta.now.toISOString(),
    server: meta.server,
    file: meta.file,
    base_dir: meta.baseDir,
    file_digest: meta.digest,
    targets: meta.targets,
    exclude: meta.exclude,
    ...(meta.shard ? { shard: { index: meta.shard.index, total: meta.shard.total } } : {}),
    prune: plan.prune,
    summary: { ...counts, owners: plan.owners.length, ...ownerCounts(plan.owners), failures: plan.failures.length, left_alone: plan.leftAlone, ...(plan.notCompared ? { not_compared: plan.notCompared } : {}) },
    ...boundChanges(plan.changes.map(({ owner, ...change }) => ({ target: owner.level, path: owner.path, id: owner.id, default_branch: owner.defaultBranch, ...change }))),
    failures: plan.failures.map((failure) => ({ target: failure.owner.level, path: failure.owner.path, message: failure.error.message })),
  };
}

/** A saved change's digest: of the change as the plan file holds it (JSON, keys in any order). */
const changeDigest = (change: SavedChange): string => digestOfValue(JSON.parse(JSON.stringify(change)));
const digestOver = (digests: string[]): string => digestOfValue(digests.join('\n'));

/** Changes with the digests that bind a plan to them. */
function boundChanges(changes: SavedChange[]): Pick<PlanDocument, 'changes' | 'change_digests' | 'changes_digest'> {
  const digests = changes.map(changeDigest);
  return { changes, change_digests: digests, changes_digest: digestOver(digests) };
}

/** "acme/api: badge \"ci\"" for a saved change, in messages. */
export const savedChangeLabel = (change: SavedChange): string => changeLabel({ ...change, owner: { level: change.target, path: change.path } });

/** "plan-2.json (shard 2 of 4)". */
export const planName = (file: string, document: PlanDocument): string => `${file}${document.shard ? ` (shard ${document.shard.index} of ${document.shard.total})` : ''}`;

/**
 * Refuses (exit 2) a plan whose changes are not those its digests were made of: a change edited, added or removed
 * after the plan was made, named with its number and object.
 */
export function checkPlanDigest(file: string, document: PlanDocument): void {
  const name = planName(file, document);
  const recorded = document.change_digests;
  if (!Array.isArray(recorded) || typeof document.changes_digest !== 'string') throw new UsageError(`${name} has no digest of its changes, so what it would apply cannot be told from what was reviewed`, 'make the plan again with forgectl plan --out FILE');
  const edited = `was edited after the plan was made: it does not match the digest recorded for it; nothing was applied`;
  const again = 'make the plan again (and review it) rather than editing it';
  document.changes.forEach((change, index) => {
    if (recorded[index] !== undefined && changeDigest(change) !== recorded[index]) throw new UsageError(`${name}: change ${index + 1} (${savedChangeLabel(change)}) ${edited}`, again);
  });
  if (recorded.length !== document.changes.length) {
    throw new UsageError(`${name} has ${document.changes.length} ${pluralNoun(document.changes.length, 'change')} but its digest covers ${recorded.length}: changes were added or removed after the plan was made; nothing was applied`, again);
  }
  if (digestOver(recorded) !== document.changes_digest) throw new UsageError(`${name}: the digests of its changes were edited after the plan was made; nothing was applied`, again);
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
  return { document, changes: changesOf(file, document) };
}

/** A saved plan's changes, each with its owner. */
function changesOf(file: string, document: PlanDocument): Change[] {
  return document.changes.map(({ target, path, id, default_branch, ...item }, index): Change => {
    if (!sectionOf(target, item.section)) throw new UsageError(`${file}: change ${index + 1} names an unknown section ${target} ${item.section}`);
    return { owner: { level: target, path, id, defaultBranch: default_branch }, ...item, fields: item.fields ?? [], digest: item.digest ?? '' };
  });
}

/** The order a whole plan lists its owners in: groups, projects, the instance; each by full path. */
const LEVEL_ORDER: Record<Level, number> = { group: 0, project: 1, instance: 2 };
const byOwner = (a: { target: Level; path: string }, b: { target: Level; path: string }): number =>
  LEVEL_ORDER[a.target] - LEVEL_ORDER[b.target] || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? []) === JSON.stringify(b ?? []);

/**
 * The plans of every shard of one run as one plan, listed as the whole run would list it. Refused (exit 2) when
 * they were made for different instances, from different desired-state files or selections, or when a shard is
 * missing or given twice.
 */
export function mergePlanDocuments(plans: Array<{ file: string; document: PlanDocument }>): PlanDocument {
  for (const plan of plans) checkPlanDigest(plan.file, plan.document);
  const [first, ...rest] = plans;
  const sharded = plans.filter((plan) => plan.document.shard);
  if (sharded.length !== plans.length) {
    const whole = plans.find((plan) => !plan.document.shard)!;
    throw new UsageError(`${whole.file} is not the plan of a shard (made without --shard)`, 'merge the plans that plan --shard I/N --out FILE saved, one per shard');
  }
  for (const plan of rest) {
    const differs = (what: string, a: unknown, b: unknown) => {
      if (!same(a, b)) throw new UsageError(`${plan.file} and ${first.file} were made ${what}: ${JSON.stringify(b)} and ${JSON.stringify(a)}`, 'merge the plans of one run');
    };
    differs('for different instances', plan.document.server, first.document.server);
    if (plan.document.file_digest !== first.document.file_digest) {
      throw new UsageError(`${plan.file} and ${first.file} were made from different desired-state files (${plan.document.file} and ${first.document.file} differ)`, 'merge the plans of one run');
    }
    differs('with different --target', plan.document.targets, first.document.targets);
    differs('with different --exclude', plan.document.exclude, first.document.exclude);
    differs('for different numbers of shards', plan.document.shard!.total, first.document.shard!.total);
  }
  const total = first.document.shard!.total;
  const seen = new Map<number, string>();
  for (const plan of plans) {
    const index = plan.document.shard!.index;
    const twin = seen.get(index);
    if (twin) throw new UsageError(`${plan.file} and ${twin} are both the plan of shard ${index} of ${total}`);
    seen.set(index, plan.file);
  }
  const missing = Array.from({ length: total }, (_, i) => i + 1).filter((index) => !seen.has(index));
  if (missing.length) {
    throw new UsageError(`the plans are incomplete: ${pluralNoun(missing.length, 'shard')} ${missing.join(', ')} of ${total} ${pluralNoun(missing.length, 'is', 'are')} missing`, 'merge the plan of every shard of the run');
  }
  const all = plans.map((plan) => plan.document);
  const summary: Record<string, number> = {};
  for (const document of all) for (const [key, value] of Object.entries(document.summary)) summary[key] = (summary[key] ?? 0) + value;
  // A stable sort by owner keeps each owner's changes in the order its shard planned them.
  const changes = all.flatMap((document) => document.changes).sort(byOwner);
  const failures = all.flatMap((document) => document.failures).sort(byOwner);
  const { shard: _shard, ...base } = first.document;
  return {
    ...base,
    created_at: all.map((document) => document.created_at).sort()[0],
    summary,
    ...boundChanges(changes),
    failures,
  };
}

/** A saved plan as a plan to show: its changes, failures, and as many owners of each kind as it compared. */
export function planOfDocument(file: string, document: PlanDocument): Plan {
  const changes = changesOf(file, document);
  const count = (key: string) => document.summary[key] ?? 0;
  const owners: Owner[] = [
    ...Array.from({ length: count('groups') }, (): Owner => ({ level: 'group', path: '' })),
    ...Array.from({ length: count('projects') }, (): Owner => ({ level: 'project', path: '' })),
    ...(count('instance') ? [{ level: 'instance', path: '' } as Owner] : []),
  ];
  return {
    changes,
    owners,
    failures: failuresOf(document),
    leftAlone: count('left_alone'),
    notCompared: count('not_compared') || undefined,
    prune: document.prune,
  };
}

/** The projects, groups or instance a saved plan could not read: it holds no changes for them. */
export function failuresOf(document: PlanDocument): OwnerFailure[] {
  return document.failures.map((failure) => ({ owner: { level: failure.target, path: failure.path }, error: new Error(failure.message) }));
}
