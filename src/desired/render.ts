import { oneLine, visible } from '../output/formats.js';
import { ownerLabel, type Change, type FieldChange } from './model.js';
import type { OwnerFailure, Plan } from './plan.js';
import { sectionOf } from './sections/index.js';
import { plural } from '../parse.js';

/** A plan as people read it: per project, group and the instance, each object with what happens to it. */

/** "badge \"ci\"", "push rule", "integration bugzilla", "file main:CODEOWNERS". */
export function objectLabel(change: Change): string {
  const section = sectionOf(change.owner.level, change.section);
  if (!section) return `${change.section} ${change.key}`;
  if (section.shape === 'one' && !section.plan) return section.noun;
  if (section.shape === 'map' || section.plan) return `${section.noun} ${change.key}`;
  return `${section.noun} ${(section.identity?.length ?? 0) > 1 ? change.key : JSON.stringify(change.key)}`;
}

/** "project acme/api: badge \"ci\"": a change in words, for messages, progress and interruptions. */
export const changeLabel = (change: Change): string => `${ownerLabel(change.owner)}: ${objectLabel(change)}`;

const SYMBOLS: Record<Change['action'], string> = { create: '+', update: '~', replace: '-/+', delete: '-', violation: '!' };

/** A value as the plan shows it: JSON, control characters visible, long text cut. */
function show(value: unknown): string {
  const text = visible(JSON.stringify(value ?? null));
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

function fieldLine(change: Change, field: FieldChange): string {
  if (field.writeOnly) return `${field.field}: (write-only)`;
  if (field.withheld) return 'from' in field ? `${field.field} changed (${String(field.from)} → ${String(field.to)})` : `${field.field}: (${String(field.to)})`;
  // Values as the file writes them (an access level by name).
  const section = sectionOf(change.owner.level, change.section);
  const asFile = section?.fields[field.field]?.toFile ?? ((value: unknown) => value);
  if (change.action === 'create') return `${field.field}: ${show(asFile(field.to))}`;
  if (change.action === 'delete') return `${field.field}: ${show(asFile(field.from))}`;
  return `${field.field}: ${show(asFile(field.from))} → ${show(asFile(field.to))}`;
}

export interface Paint {
  add(text: string): string;
  change(text: string): string;
  remove(text: string): string;
  dim(text: string): string;
}

export const noPaint: Paint = { add: (t) => t, change: (t) => t, remove: (t) => t, dim: (t) => t };

export async function paintFor(color: boolean): Promise<Paint> {
  if (!color) return noPaint;
  const chalk = (await import('chalk')).default;
  return { add: chalk.green, change: chalk.yellow, remove: chalk.red, dim: chalk.dim };
}

/** Why a replace deletes and creates again, and whether the old object can be put back should the create fail. */
export function replaceWords(change: Change): string {
  const reason = change.replace_reason ? `: ${oneLine(change.replace_reason)}` : '';
  return `deleted and created again${reason}${change.old_unreadable ? '; its old value cannot be read back' : ''}`;
}

/** The lines of one change: its symbol and object (and who changed it, when the audit events say), then its fields. */
export function changeLines(change: Change, paint: Paint = noPaint): string[] {
  const colour = change.action === 'create' ? paint.add : change.action === 'update' ? paint.change : change.action === 'violation' ? paint.change : paint.remove;
  const suffix =
    change.action === 'violation' ? `: ${oneLine(change.note ?? '')}`
    : change.action === 'delete' ? `${change.note ? paint.remove(`: ${oneLine(change.note)}`) : ''}${change.prune ? paint.dim('   (prune: needs apply --prune)') : ''}`
    : change.action === 'replace' ? paint.dim(`   (${replaceWords(change)})`)
    : change.rewrite ? paint.dim('   (rewrite: always: written by every apply, not drift)')
    : '';
  const by = change.changed_by ? paint.dim(`   (changed by ${oneLine(change.changed_by.author)} ${oneLine(change.changed_by.at.slice(0, 16).replace('T', ' '))})`) : '';
  const lines = [`  ${colour(`${SYMBOLS[change.action]} ${oneLine(objectLabel(change))}`)}${suffix}${by}`];
  for (const field of change.fields) lines.push(`      ${fieldLine(change, field)}`);
  return lines;
}

/** Counts of a plan's changes by action. */
export function countActions(changes: Change[]): Record<Change['action'], number> & { prune: number; rewrite: number } {
  const counts = { create: 0, update: 0, replace: 0, delete: 0, violation: 0, prune: 0, rewrite: 0 };
  for (const change of changes) {
    // A rewrite (rewrite: always) is not drift: counted apart from the updates.
    if (change.rewrite) counts.rewrite++;
    else counts[change.action]++;
    if (change.prune) counts.prune++;
  }
  return counts;
}

/** Whether a plan shows drift: a change that is not only a rewrite the file asks for on every apply, or a failure to read. */
export const hasDrift = (plan: Pick<Plan, 'changes' | 'failures'>): boolean => plan.changes.some((change) => !change.rewrite) || plan.failures.length > 0;


/** What plan and apply say when the file, --target and --exclude leave nothing to compare. */
export const NOTHING_SELECTED = 'Nothing to compare: the file, --target and --exclude select no project, group or instance settings.';

/** "502 projects, 1 group and the instance". */
export function ownersPhrase(owners: Array<{ level: string }>): string {
  const projects = owners.filter((o) => o.level === 'project').length;
  const groups = owners.filter((o) => o.level === 'group').length;
  const parts = [projects ? plural(projects, 'project') : '', groups ? plural(groups, 'group') : '', owners.some((o) => o.level === 'instance') ? 'the instance' : ''].filter(Boolean);
  if (!parts.length) return 'nothing';
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** "5 of 20 projects, 1 of 3 groups and the instance": how many of those compared have changes. */
function touchedPhrase(plan: Plan): string {
  const touched = new Set(plan.changes.filter((c) => !c.rewrite).map((c) => `${c.owner.level} ${c.owner.path}`));
  const of = (level: string, word: string): string => {
    const total = plan.owners.filter((o) => o.level === level).length;
    const changed = [...touched].filter((key) => key.startsWith(`${level} `)).length;
    return changed ? `${changed.toLocaleString('en-US')} of ${plural(total, word)}` : '';
  };
  const parts = [of('project', 'project'), of('group', 'group'), touched.has('instance ') ? 'the instance' : ''].filter(Boolean);
  return parts.length <= 1 ? (parts[0] ?? 'nothing') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** The last line of a plan: what would change, or that nothing would. */
export function planSummary(plan: Plan): string {
  const counts = countActions(plan.changes);
  if (!plan.owners.length && !plan.failures.length) return NOTHING_SELECTED;
  const rewrites = counts.rewrite ? ` ${plural(counts.rewrite, 'secret value')} ${counts.rewrite === 1 ? 'is' : 'are'} written again by every apply (rewrite: always).` : '';
  if (!hasDrift(plan)) return `No changes: the file matches ${ownersPhrase(plan.owners)}.${rewrites}`;
  const parts = [
    counts.create ? `${counts.create} to create` : '',
    counts.update ? `${counts.update} to change` : '',
    counts.replace ? `${counts.replace} to replace` : '',
    counts.delete ? `${counts.delete} to delete${counts.prune ? ` (${counts.prune} with --prune)` : ''}` : '',
    counts.violation ? `${plural(counts.violation, 'violation')} (audit only)` : '',
  ].filter(Boolean);
  const failed = plan.failures.length ? `; ${plural(plan.failures.length, 'failure')} to read` : '';
  // Only failures: nothing changes in what was read, which is not "nothing" (that reads as an all-clear).
  if (!parts.length) return `Plan: nothing to change in what could be read${failed}.${rewrites}`;
  return `Plan: ${parts.join(', ')} in ${touchedPhrase(plan)}${failed}.${rewrites}`;
}

/**
 * The whole plan as text, owner by owner in order; failures to read are listed where they happened. Text from the
 * server (names, paths, errors) is made visible here, so the plan's own colours can reach a terminal.
 */
export function planText(plan: Plan, paint: Paint = noPaint, failureLine: (failure: OwnerFailure) => string = (f) => f.error.message): string {
  const lines: string[] = [];
  let last = '';
  for (const change of plan.changes) {
    const owner = oneLine(ownerLabel(change.owner));
    if (owner !== last) lines.push(owner);
    last = owner;
    lines.push(...changeLines(change, paint));
  }
  for (const failure of plan.failures) lines.push(paint.remove(`could not read ${failureLine(failure)}`));
  if (lines.length) lines.push('');
  lines.push(planSummary(plan));
  if (plan.leftAlone) {
    lines.push(
      plan.prune === 'all'
        ? `${plural(plan.leftAlone, 'object')} not in the file ${plan.leftAlone === 1 ? 'was' : 'were'} left alone: forgectl does not delete ${plan.leftAlone === 1 ? 'it' : 'them'}, even with prune: all (a default branch's protection is one).`
        : `${plural(plan.leftAlone, 'object')} not in the file ${plan.leftAlone === 1 ? 'was' : 'were'} left alone: prune: managed deletes only what forgectl created.`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** What a plan could not compare (masked and hidden variable values), for stderr; undefined when nothing. */
export function notComparedNote(plan: Plan): string | undefined {
  if (!plan.notCompared) return undefined;
  return `${plural(plan.notCompared, 'secret value')} not compared: masked and hidden variable values cannot be read back, so they are never drift (rewrite: always writes them again on every apply), and a protected or file value given by reference is compared only when the reference can be read (set it to compare).`;
}
