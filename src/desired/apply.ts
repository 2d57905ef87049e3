import { ApiError, CliError, DryRunComplete } from '../errors.js';
import { orderedPool } from '../fleet/pool.js';
import { digestOf, ownerLabel, type Change, type LiveObject, type Owner, type SectionIo } from './model.js';
import { endsTheRun } from './plan.js';
import { objectLabel } from './render.js';
import type { Section } from './section.js';
import { sectionOf } from './sections/index.js';

/**
 * Applying a plan: every change of an owner in the plan's order, owners `concurrency` at a time, one result per
 * object. A failed object does not stop the others; nothing is retried that the HTTP layer would not retry (a POST
 * that may have reached the service is never sent twice). Deletions the file's prune mode allows happen only with
 * --prune; audit findings (access tokens) are reported, never changed.
 */

export interface ApplyRow {
  target: string;
  object: string;
  action: Change['action'];
  result: 'done' | 'failed' | 'skipped' | 'not fixed' | 'dry run';
  error: string | null;
}

export interface ApplySummary {
  done: number;
  failed: number;
  skippedPrunes: number;
  violations: number;
  /** Projects, groups (and the instance) with an object that failed. */
  failedOwners: Owner[];
}

const sectionFor = (change: Change): Section => {
  const section = sectionOf(change.owner.level, change.section);
  if (!section) throw new CliError(`the plan names a section this forgectl does not know: ${change.section}`, 2);
  return section;
};

const liveOf = (change: Change): LiveObject => ({ key: change.key, values: {}, ref: change.ref, managed: change.managed });

/** Carries out one change. */
async function perform(io: SectionIo, change: Change): Promise<void> {
  const section = sectionFor(change);
  const owner = change.owner;
  const desired = change.desired ?? {};
  const name = section.shape === 'map' ? change.key : undefined;
  switch (change.action) {
    case 'create':
      return section.create!(io, owner, desired, name);
    case 'update':
      return section.update!(io, owner, liveOf(change), change.fields.filter((f) => !f.writeOnly).map((f) => f.field), desired);
    case 'replace':
      await section.remove!(io, owner, liveOf(change));
      return section.create!(io, owner, desired, name);
    case 'delete':
      return section.remove!(io, owner, liveOf(change));
    case 'violation':
      return;
  }
}

const messageOf = (error: unknown): string => {
  if (error instanceof ApiError) return `${error.message} (${error.method} ${error.path} → ${error.status})`;
  return error instanceof Error ? error.message : String(error);
};

/** The changes by owner, in the plan's order. */
function byOwner(changes: Change[]): Array<[Owner, Change[]]> {
  const groups = new Map<string, [Owner, Change[]]>();
  for (const change of changes) {
    const key = `${change.owner.level} ${change.owner.path}`;
    const group = groups.get(key) ?? [change.owner, []];
    group[1].push(change);
    groups.set(key, group);
  }
  return [...groups.values()];
}

export async function* applyChanges(io: SectionIo, changes: Change[], options: { prune: boolean; concurrency: number }, summary: ApplySummary): AsyncGenerator<ApplyRow> {
  const run = async ([owner, list]: [Owner, Change[]]): Promise<ApplyRow[]> => {
    const rows: ApplyRow[] = [];
    const row = (change: Change, result: ApplyRow['result'], error: string | null = null): ApplyRow => ({ target: ownerLabel(owner), object: objectLabel(change), action: change.action, result, error });
    const batched = new Map<Section, Change[]>();
    for (const change of list) {
      const section = sectionFor(change);
      if (change.action === 'violation') {
        rows.push(row(change, 'not fixed', change.note ?? null));
        continue;
      }
      if (change.prune && !options.prune) {
        rows.push(row(change, 'skipped', 'a deletion: pass --prune to delete it'));
        continue;
      }
      if (section.applyAll) {
        batched.set(section, [...(batched.get(section) ?? []), change]);
        continue;
      }
      try {
        await perform(io, change);
        rows.push(row(change, 'done'));
      } catch (error) {
        if (error instanceof DryRunComplete) {
          rows.push(row(change, 'dry run'));
          continue;
        }
        if (endsTheRun(error)) throw error;
        rows.push(row(change, 'failed', messageOf(error)));
      }
    }
    for (const [section, batch] of batched) {
      try {
        await section.applyAll!(io, owner, batch);
        rows.push(...batch.map((change) => row(change, 'done')));
      } catch (error) {
        if (error instanceof DryRunComplete) {
          rows.push(...batch.map((change) => row(change, 'dry run')));
          continue;
        }
        if (endsTheRun(error)) throw error;
        rows.push(...batch.map((change) => row(change, 'failed', messageOf(error))));
      }
    }
    return rows;
  };
  for await (const outcome of orderedPool(byOwner(changes), options.concurrency, run)) {
    if (outcome.status === 'failed') throw outcome.error;
    if (outcome.status !== 'ok') continue;
    if (outcome.value.some((row) => row.result === 'failed')) summary.failedOwners.push(outcome.item[0]);
    for (const row of outcome.value) {
      if (row.result === 'done') summary.done++;
      else if (row.result === 'failed') summary.failed++;
      else if (row.result === 'skipped') summary.skippedPrunes++;
      else if (row.result === 'not fixed') summary.violations++;
      yield row;
    }
  }
}

/**
 * The objects of a saved plan that moved since it was made: each change's object is read again and its digest
 * compared (a create expects the object still absent). A saved plan is applied only when none moved.
 */
export async function staleObjects(io: SectionIo, changes: Change[], concurrency: number): Promise<string[]> {
  const check = async ([owner, list]: [Owner, Change[]]): Promise<string[]> => {
    const stale: string[] = [];
    const bySection = new Map<Section, Change[]>();
    for (const change of list) if (change.action !== 'violation') bySection.set(sectionFor(change), [...(bySection.get(sectionFor(change)) ?? []), change]);
    for (const [section, planned] of bySection) {
      let now: Map<string, string>;
      if (section.plan) {
        const replanned = await section.plan(io, owner, planned.map((change) => change.desired));
        now = new Map(replanned.map((change) => [change.key, change.digest]));
        // An object the new plan no longer changes already is as the file wants it: nothing moved that matters.
        for (const change of planned) if (!now.has(change.key)) now.set(change.key, change.digest);
      } else {
        const names = section.shape === 'map' ? planned.map((change) => change.key) : undefined;
        const live = await section.read(io, owner, names);
        now = new Map(live.map((object) => [section.shape === 'one' ? section.noun : object.key, digestOf(object.values)]));
      }
      for (const change of planned) if ((now.get(change.key) ?? '') !== change.digest) stale.push(`${ownerLabel(owner)}: ${objectLabel(change)}`);
    }
    return stale;
  };
  const stale: string[] = [];
  for await (const outcome of orderedPool(byOwner(changes), concurrency, check)) {
    if (outcome.status === 'failed') throw outcome.error;
    if (outcome.status === 'ok') stale.push(...outcome.value);
  }
  return stale;
}
