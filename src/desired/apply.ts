import { ApiError, CliError, DryRunComplete, UsageError } from '../errors.js';
import { orderedPool } from '../fleet/pool.js';
import type { Progress } from '../fleet/progress.js';
import { digestOf, isSecretRef, ownerLabel, ReplaceFailed, type Change, type LiveObject, type Owner, type SecretRef, type SectionIo } from './model.js';
import { diffFields, endsTheRun } from './plan.js';
import { changeLabel, objectLabel } from './render.js';
import type { Section } from './section.js';
import { sectionOf } from './sections/index.js';
import { groups } from '../resources/groups/resource.js';
import { projects } from '../resources/projects/resource.js';

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
  /** The changes that failed, with why (a 403's hint names the role their command needs). */
  errors: Array<{ change: Change; error: unknown }>;
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
    case 'update': {
      const changed = change.fields.filter((f) => !f.writeOnly).map((f) => f.field);
      // A change only a delete and a create make (a variable's hidden) is a replace, whatever the plan called it.
      if (section.replaces?.(liveOf(change), changed)) return replaceSafely(io, section, change);
      return section.update!(io, owner, liveOf(change), changed, desired);
    }
    case 'replace':
      return replaceSafely(io, section, change);
    case 'delete':
      return section.remove!(io, owner, liveOf(change));
    case 'violation':
      return;
  }
}

/**
 * Deletes an object and creates it again, as safely as the service allows: what the old object needs to be put
 * back is read before the delete (when it can be read back at all), and put back when the create fails. Every
 * value the create sends was read and checked before the run's first write (checkBeforeWriting), so what is left
 * to fail is the service's own refusal or the network; the error then says exactly what state was left.
 */
async function replaceSafely(io: SectionIo, section: Section, change: Change): Promise<void> {
  const owner = change.owner;
  const live = liveOf(change);
  const restore = await section.keepOld?.(io, owner, live);
  let dryRun = false;
  try {
    await section.remove!(io, owner, live);
  } catch (error) {
    // --dry-run shows the create's request too.
    if (!(error instanceof DryRunComplete)) throw error;
    dryRun = true;
  }
  try {
    await section.create!(io, owner, change.desired ?? {}, section.shape === 'map' ? change.key : undefined);
  } catch (error) {
    if (dryRun || error instanceof DryRunComplete) throw error;
    const what = `the old ${objectLabel(change)}`;
    const failed = `deleted to be created again, but the create failed: ${messageOf(error)}`;
    if (!restore) throw new ReplaceFailed(`${failed}; ${what} could not be read back before the delete, so it is gone: create it again`, error);
    try {
      await restore();
    } catch (again) {
      throw new ReplaceFailed(`${failed}; putting ${what} back failed too (${messageOf(again)}): it is gone, create it again`, error);
    }
    throw new ReplaceFailed(`${failed}; ${what} was put back as it was`, error);
  }
}

const messageOf = (error: unknown): string => {
  if (error instanceof ApiError) return `${error.message} (${error.method} ${error.path} → ${error.status})`;
  return error instanceof Error ? error.message : String(error);
};

/** The secret references in a value (a reference itself, or those of a map of them), with where they are in it. */
function refsIn(value: unknown, path = ''): Array<[string, SecretRef]> {
  if (isSecretRef(value)) return [[path, value]];
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => refsIn(item, path ? `${path}.${key}` : key));
}

/** The secret references a change sends: all of a create's and a replace's, those of the fields an update lists. */
function secretsSent(change: Change): Array<[string, SecretRef]> {
  const desired = change.desired ?? {};
  const names = change.action === 'update' ? change.fields.map((field) => field.field) : Object.keys(desired);
  return [...new Set(names)].flatMap((name) => refsIn(desired[name]).map(([path, ref]): [string, SecretRef] => [path ? `${name}.${path}` : name, ref]));
}

/**
 * Reads and checks, for the whole run and before its first write, every value the changes that will be carried
 * out need: each secret they send (from the environment, a file or a command), and what each section checks
 * itself (mask rules, local files changed since the plan). The problems found, each a line naming the object;
 * empty when every change can go ahead.
 */
export async function checkBeforeWriting(io: SectionIo, changes: Change[], options: { prune: boolean }): Promise<string[]> {
  const problems = new Set<string>();
  const note = (where: string, error: unknown) => {
    if (!(error instanceof UsageError)) throw error;
    problems.add(error.message.startsWith(where) ? error.message : `${where}: ${error.message}`);
  };
  for (const change of changes) {
    if (change.action === 'violation' || change.action === 'delete' || (change.prune && !options.prune)) continue;
    const where = changeLabel(change);
    for (const [field, ref] of secretsSent(change)) await io.secret(ref, `${where} ${field}`).catch((error: unknown) => note(where, error));
    await sectionFor(change).prepare?.(io, change).catch((error: unknown) => note(where, error));
  }
  return [...problems];
}

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

/** The changes apply carries out: those of the plan but audit findings, and deletions that wait for --prune. */
export const toCarryOut = (changes: Change[], prune: boolean): Change[] => changes.filter((change) => change.action !== 'violation' && (prune || !change.prune));

export async function* applyChanges(io: SectionIo, changes: Change[], options: { prune: boolean; concurrency: number; progress?: Progress<Change> }, summary: ApplySummary): AsyncGenerator<ApplyRow> {
  const progress = options.progress;
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
      progress?.start(change);
      try {
        await perform(io, change);
        rows.push(row(change, 'done'));
      } catch (error) {
        if (error instanceof DryRunComplete) {
          rows.push(row(change, 'dry run'));
          continue;
        }
        if (endsTheRun(error)) throw error;
        summary.errors.push({ change, error });
        rows.push(row(change, 'failed', messageOf(error)));
      } finally {
        progress?.finish(change);
      }
    }
    for (const [section, batch] of batched) {
      for (const change of batch) progress?.start(change);
      try {
        await section.applyAll!(io, owner, batch);
        rows.push(...batch.map((change) => row(change, 'done')));
      } catch (error) {
        if (error instanceof DryRunComplete) {
          rows.push(...batch.map((change) => row(change, 'dry run')));
          continue;
        }
        if (endsTheRun(error)) throw error;
        summary.errors.push(...batch.map((change) => ({ change, error })));
        rows.push(...batch.map((change) => row(change, 'failed', messageOf(error))));
      } finally {
        for (const change of batch) progress?.finish(change);
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
 * compared (a create expects the object still absent). An object that moved to just what the change asks for was
 * changed by an earlier apply of this plan (a retried CI job): that change is done already, not stale. A saved plan
 * is applied only when nothing is stale, and without the changes done already.
 */
export async function staleObjects(io: SectionIo, changes: Change[], concurrency: number): Promise<{ stale: string[]; done: Set<Change> }> {
  const done = new Set<Change>();
  const check = async ([owner, list]: [Owner, Change[]]): Promise<string[]> => {
    const moved = await ownerMoved(io, owner);
    if (moved) return [moved];
    const stale: string[] = [];
    const bySection = new Map<Section, Change[]>();
    for (const change of list) if (change.action !== 'violation') bySection.set(sectionFor(change), [...(bySection.get(sectionFor(change)) ?? []), change]);
    for (const [section, planned] of bySection) {
      let now: Map<string, string>;
      let live = new Map<string, LiveObject>();
      if (section.plan) {
        const replanned = await section.plan(io, owner, planned.map((change) => change.desired));
        now = new Map(replanned.map((change) => [change.key, change.digest]));
        // An object the new plan no longer changes already is as the file wants it: nothing moved that matters.
        for (const change of planned) if (!now.has(change.key)) now.set(change.key, change.digest);
      } else {
        const names = section.shape === 'map' ? planned.map((change) => change.key) : undefined;
        live = new Map((await section.read(io, owner, names)).map((object) => [section.shape === 'one' ? section.noun : object.key, object]));
        now = new Map([...live].map(([key, object]) => [key, digestOf(object.values)]));
      }
      for (const change of planned) {
        if ((now.get(change.key) ?? '') === change.digest) continue;
        if (isDoneAlready(section, change, live.get(change.key))) done.add(change);
        else stale.push(`${ownerLabel(owner)}: ${objectLabel(change)}`);
      }
    }
    return stale;
  };
  const stale: string[] = [];
  for await (const outcome of orderedPool(byOwner(changes), concurrency, check)) {
    if (outcome.status === 'failed') throw outcome.error;
    if (outcome.status === 'ok') stale.push(...outcome.value);
  }
  return { stale, done };
}

/**
 * A project or group whose path names another one now (renamed or deleted, and another made at its path), or none:
 * the plan's changes were made for the one it read, and would land on the other.
 */
async function ownerMoved(io: SectionIo, owner: Owner): Promise<string | undefined> {
  if (owner.id === undefined || owner.level === 'instance') return undefined;
  const read = owner.level === 'project' ? io.api.call<{ id: number }>(projects.routes.get, { project: owner.path }) : io.api.call<{ id: number }>(groups.routes.get, { group: owner.path });
  const now = await read.catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  });
  if (now?.id === owner.id) return undefined;
  return `${ownerLabel(owner)}: ${now ? `is another ${owner.level} now (id ${now.id}; the plan was made for id ${owner.id})` : `is not there any more (the plan was made for id ${owner.id})`}`;
}

/** Whether the object is now as the change leaves it: deleted, or holding every value it compares. */
function isDoneAlready(section: Section, change: Change, live: LiveObject | undefined): boolean {
  if (change.action === 'delete') return !live;
  if (!live || !change.desired || !['create', 'update', 'replace'].includes(change.action)) return false;
  return !diffFields(section, live.values, change.desired, false).some((field) => !field.writeOnly);
}
