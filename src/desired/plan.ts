import { ApiError, CliError, ExitCode, UsageError } from '../errors.js';
import { orderedPool } from '../fleet/pool.js';
import { namedFew } from '../fleet/run.js';
import { selectProjects } from '../fleet/select.js';
import type { Progress } from '../fleet/progress.js';
import { startBudget, takeShard, type Shard } from '../fleet/shard.js';
import { oneLine } from '../output/formats.js';
import type { RateGate } from '../http/rate-gate.js';
import type { SelectContext } from '../fleet/select.js';
import type { DesiredState } from './file.js';
import { digestOf, isSecretRef, ownerLabel, ReplaceFailed, type Change, type FieldChange, type LiveObject, type Owner, type SectionIo, sameValue } from './model.js';
import { explainChanges, newAuthors } from './changed-by.js';
import { effectiveSections, targetGroups, targetProjects } from './scopes.js';
import { identityKey, unmark, type Replacement, type Section } from './section.js';
import { SECTIONS } from './sections/index.js';

/**
 * Planning: for every project and group of the target and for the instance, what the file declares is compared with
 * what the instance has, object by object and field by field (only the fields the file declares), into a list of
 * changes. Nothing is written; the only secrets read are values the file gives by reference that the service shows
 * (a protected or file variable's), to compare them: a plan shows them by size only.
 */

export interface OwnerFailure {
  owner: Owner;
  error: CliError | Error;
}

export interface Plan {
  changes: Change[];
  /** Projects, groups and the instance that were compared. */
  owners: Owner[];
  /** Owners whose objects could not be read (the rest of the plan still holds). */
  failures: OwnerFailure[];
  /** Live objects of declared sections that the file does not list and prune may not delete. */
  leftAlone: number;
  /** Objects with a secret value that was not compared (it cannot be read back: a masked or hidden variable). */
  notCompared?: number;
  prune: 'managed' | 'all';
}

export interface PlanOptions {
  targets: string[];
  exclude: string[];
  concurrency: number;
  /** This process's shard of the projects and groups (the instance goes with shard 1). */
  shard?: Shard;
  /** --projects-file: only the projects and groups it lists (the instance is left out). */
  projectsFile?: string;
  /** --rate-limit: the whole job's budget. */
  rateLimit?: { limit: number; periodSeconds: number };
  /** A spinner at a terminal: "planning 7/22 projects…". */
  progress?: Progress<Owner>;
  /** Where the owners that could not be read are gathered as they fail (an interrupted plan names them). */
  failures?: OwnerFailure[];
}

type Values = Record<string, unknown>;

/** The fields that differ, and (on a create, or where the service wants them each time) the write-only ones sent. */
export function diffFields(section: Section, live: Values | undefined, desired: Values, creating: boolean): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const [name, value] of Object.entries(desired)) {
    const spec = section.fields[name] ?? section.other;
    const compareAs = section.compareAs?.[name];
    // A map of secrets compares its names (the service shows them), never its values.
    if (!compareAs && (spec?.secret || isSecretRef(value))) {
      if (creating || section.sendsSecretsAlways) changes.push({ field: name, writeOnly: true });
      continue;
    }
    // Sent, never compared (the service does not return it): shown when the object is created.
    if (!compareAs && spec?.writeOnly) {
      if (creating) changes.push({ field: name, to: value });
      continue;
    }
    const to = compareAs ? compareAs(value) : value;
    if (creating) {
      changes.push({ field: name, to });
      continue;
    }
    const from = live?.[name] ?? null;
    if (!sameValue(from, to ?? null)) changes.push({ field: name, from, to });
  }
  return changes;
}

const compared = (fields: FieldChange[]): boolean => fields.some((field) => !field.writeOnly);

/** Whether changing these fields of a live object deletes and creates it again, and why. */
export function replacementOf(section: Section, live: LiveObject, fields: FieldChange[]): Replacement | undefined {
  const forced = section.replaces?.(live, fields.filter((field) => !field.writeOnly).map((field) => field.field));
  if (forced) return forced;
  if (section.replaceOnly || !section.update) return { reason: section.replaceReason ?? `the service cannot change a ${section.noun} in place` };
  return undefined;
}

/** A delete's note of what goes with the object for good, where its section says. */
function deletionNote(section: Section, action: Change['action'], live: LiveObject | undefined): { note?: string } {
  const note = action === 'delete' && live ? section.lostWithDelete?.(live) : undefined;
  return note ? { note } : {};
}

/** The changes of one section of one owner. */
async function planSection(io: SectionIo, owner: Owner, section: Section, desired: unknown, prune: Plan['prune']): Promise<{ changes: Change[]; leftAlone: number; notCompared?: number }> {
  if (section.plan) return { changes: await section.plan(io, owner, desired), leftAlone: 0 };
  const change = (action: Change['action'], key: string, fields: FieldChange[], live?: LiveObject, values?: Values): Change => ({
    owner,
    section: section.key,
    key,
    action,
    fields: values && section.shown ? section.shown(fields, live?.values, values) : fields,
    desired: values,
    ref: live?.ref,
    managed: live?.managed,
    digest: digestOf(live?.values),
    ...deletionNote(section, action, live),
  });
  const one = (key: string, live: LiveObject | undefined, value: unknown): Change | undefined => {
    if (value === null) return live && section.remove ? change('delete', key, [], live) : undefined;
    const values = value as Values;
    if (!live) return section.create ? change('create', key, diffFields(section, undefined, values, true), undefined, values) : undefined;
    const fields = diffFields(section, live.values, values, false);
    if (!compared(fields)) return undefined;
    // Write-only values the update sends again with these changes (a mirror's credentials with its URL).
    const changed = fields.filter((field) => !field.writeOnly).map((field) => field.field);
    for (const name of section.resends?.(changed) ?? []) if (values[name] !== undefined && !fields.some((field) => field.field === name)) fields.push({ field: name, writeOnly: true });
    return change('update', key, fields, live, values);
  };

  if (section.shape === 'one') {
    const [live] = await section.read(io, owner);
    const found = one(section.noun, live, desired);
    return { changes: found ? [found] : [], leftAlone: 0 };
  }
  if (section.shape === 'map') {
    const entries = Object.entries(desired as Record<string, unknown>);
    const live = new Map((await section.read(io, owner, entries.map(([name]) => name))).map((object) => [object.key, object]));
    return { changes: entries.map(([name, value]) => one(name, live.get(name), value)).filter((c): c is Change => Boolean(c)), leftAlone: 0 };
  }
  const live = new Map((await section.read(io, owner)).map((object) => [object.key, object]));
  const changes: Change[] = [];
  let notCompared = 0;
  for (const given of desired as Values[]) {
    // The file may name a managed object with forgectl's mark in it ("pipeline [forgectl]"): it is the same object.
    const values = section.marker && typeof given[section.marker] === 'string' ? { ...given, [section.marker]: unmark(given[section.marker]).value } : given;
    const key = identityKey(section, values);
    const current = live.get(key);
    live.delete(key);
    if (!current) {
      changes.push(change('create', key, diffFields(section, undefined, values, true), undefined, values));
      continue;
    }
    const uncompared = section.uncompared?.(values);
    const comparing = section.comparable ? await section.comparable(io, values, current.values) : { values };
    if (uncompared?.secret || comparing.unread) notCompared++;
    const fields = diffFields(section, current.values, comparing.values, false).filter((field) => !uncompared?.skip.includes(field.field));
    const rewrite = (uncompared?.rewrite ?? []).filter((name) => !fields.some((field) => field.field === name)).map((name) => ({ field: name, writeOnly: true }));
    if (!compared(fields) && !rewrite.length) continue;
    fields.push(...rewrite);
    const replacement = replacementOf(section, current, fields);
    if (!replacement) {
      // Nothing differs but what the file asks to write on every apply: carried out, never drift.
      changes.push({ ...change('update', key, fields, current, values), ...(compared(fields) ? {} : { rewrite: true }) });
      continue;
    }
    // A replacement is a create: the write-only values go again.
    const sent = diffFields(section, undefined, values, true).filter((f) => f.writeOnly && !fields.some((given) => given.field === f.field));
    changes.push({ ...change('replace', key, [...fields, ...sent], current, values), replace_reason: replacement.reason, ...(replacement.oldUnreadable ? { old_unreadable: true } : {}) });
  }
  let leftAlone = 0;
  for (const object of live.values()) {
    if (section.remove && !section.keep?.(owner, object) && (prune === 'all' || (section.marker && object.managed))) changes.push({ ...change('delete', object.key, [], object), prune: true });
    else leftAlone++;
  }
  return { changes, leftAlone, notCompared };
}

/** An error that ends a whole plan or apply rather than one owner's part: bad input, no credentials, a refusal. */
export function endsTheRun(error: unknown): boolean {
  if (error instanceof ReplaceFailed) return endsTheRun(error.reason);
  if (error instanceof UsageError) return true;
  if (error instanceof ApiError) return error.status === 401;
  return error instanceof CliError && error.exitCode === ExitCode.config;
}

/** What the file declares for an owner, section by section, in the order the sections are planned. */
export function declaredSections(state: DesiredState, owner: Owner): Array<[Section, unknown]> {
  const declared = owner.level === 'instance' ? state.instance : effectiveSections(owner.level === 'project' ? state.projects : state.groups, owner.path);
  return SECTIONS[owner.level].filter((section) => declared[section.key] !== undefined).map((section) => [section, declared[section.key]]);
}

/** The names a --projects-file line gives a project or group by: its path (in any case) or its id. */
export const listedNames = (owner: Owner): string[] => [owner.path.toLowerCase(), ...(owner.id === undefined ? [] : [String(owner.id)])];

/** The owners a plan covers: the target's projects, the groups the file names, and the instance when it has a section. */
export async function planOwners(ctx: SelectContext, state: DesiredState, options: PlanOptions): Promise<Owner[]> {
  const projects = await targetProjects(ctx, state, options.targets, options.exclude);
  const groups = await targetGroups(ctx, state, options.targets, options.exclude);
  const instance: Owner[] = Object.keys(state.instance).length && options.projectsFile === undefined ? [{ level: 'instance', path: '' }] : [];
  let owners = [...groups, ...projects, ...instance].filter((owner) => declaredSections(state, owner).length);
  if (options.projectsFile !== undefined) {
    const entries = (await selectProjects(ctx, { projectsFile: options.projectsFile })).map((project) => project.path.toLowerCase());
    const listed = new Set(entries);
    owners = owners.filter((owner) => listedNames(owner).some((name) => listed.has(name)));
    // A line naming nothing the file declares (a typo, a project outside the target) is said, not silently dropped.
    const kept = new Set(owners.flatMap(listedNames));
    const unmatched = [...new Set(entries.filter((entry) => !kept.has(entry)))];
    if (unmatched.length) ctx.io.note(`note: ${namedFew(unmatched)}, listed in ${options.projectsFile === '-' ? 'stdin' : options.projectsFile}, ${unmatched.length === 1 ? 'is' : 'are'} not among the projects and groups the file declares something for: left out`);
  }
  return takeShard(owners, (owner) => owner.path, options.shard, (line) => ctx.io.note(line), 'projects, groups and instance settings');
}

/**
 * Compares the file with the instance, `concurrency` owners at a time; a failure of one owner does not stop the rest.
 * An owner's changes are then explained by its audit events (who changed the object, and when).
 */
export async function makePlan(ctx: SelectContext & { readonly rateGate: RateGate; now?(): Date }, state: DesiredState, io: SectionIo, options: PlanOptions): Promise<Plan> {
  const owners = await planOwners(ctx, state, options);
  const budget = startBudget(ctx.rateGate, options.concurrency, options.rateLimit, options.shard);
  if (budget) ctx.io.note(budget);
  const plan: Plan = { changes: [], owners, failures: options.failures ?? [], leftAlone: 0, prune: state.prune };
  const now = ctx.now?.() ?? new Date();
  const authors = newAuthors();
  const projectsOnly = owners.every((owner) => owner.level === 'project');
  await options.progress?.begin(owners, { verb: 'planning', noun: projectsOnly ? 'project' : 'project or group', nouns: projectsOnly ? 'projects' : 'projects and groups' });
  const outcomes = orderedPool(owners, options.concurrency, async (owner) => {
    options.progress?.start(owner);
    try {
      return await planOwner(owner);
    } finally {
      options.progress?.finish(owner);
    }
  });
  async function planOwner(owner: Owner) {
    const changes: Change[] = [];
    let leftAlone = 0;
    let notCompared = 0;
    for (const [section, desired] of declaredSections(state, owner)) {
      const planned = await planSection(io, owner, section, desired, state.prune).catch((error: unknown) => {
        throw Object.assign(error instanceof Error ? error : new Error(String(error)), { section: section.key, tier: section.tier });
      });
      changes.push(...planned.changes);
      leftAlone += planned.leftAlone;
      notCompared += planned.notCompared ?? 0;
    }
    // Who made the drift, where the owner's audit events say so.
    await explainChanges(io, owner, changes, now, authors);
    return { changes, leftAlone, notCompared };
  }
  for await (const outcome of outcomes) {
    if (outcome.status === 'failed') {
      if (endsTheRun(outcome.error)) throw outcome.error;
      plan.failures.push({ owner: outcome.item, error: outcome.error as Error });
    } else if (outcome.status === 'ok') {
      plan.changes.push(...outcome.value.changes);
      plan.leftAlone += outcome.value.leftAlone;
      if (outcome.value.notCompared) plan.notCompared = (plan.notCompared ?? 0) + outcome.value.notCompared;
    }
  }
  return plan;
}

/** "project acme/api: …" for an owner's failure, on one line with control characters visible. */
export const failureLine = (failure: OwnerFailure): string => oneLine(failureText(failure));

const failureText = (failure: OwnerFailure): string => {
  const error = failure.error;
  const where = error instanceof ApiError ? ` (${error.method} ${error.path} → ${error.status})` : '';
  const { section, tier } = error as { section?: string; tier?: string };
  // A refusal of a section of a paid tier: the instance's tier is as likely a cause as the caller's role.
  const why = section && tier && error instanceof ApiError && (error.status === 403 || error.status === 404) ? `; ${section} needs ${tier}, and a role that may read it` : '';
  return `${ownerLabel(failure.owner)}${section ? ` (${section})` : ''}: ${error.message}${where}${why}`;
};
