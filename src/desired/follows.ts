import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { parseDesiredState, type DesiredState } from './file.js';
import { sameValue, type Change } from './model.js';
import { declaredSections } from './plan.js';
import { planName, savedChangeLabel, type PlanDocument } from './saved.js';
import { identityKey, unmark, type Section } from './section.js';
import { sectionOf } from './sections/index.js';

/**
 * Whether a saved plan's changes follow from the desired-state file it was made from: each change's target values
 * are derived again from the file and compared with those the plan holds. It catches a plan edited by hand whose
 * digests were computed again, where the file (with the digest the plan records) is at hand.
 */

type Values = Record<string, unknown>;

/** The desired-state file a plan was made from, when it is here and unchanged (its digest is the plan's). */
function sourceOf(document: PlanDocument): { path: string; text: string } | undefined {
  if (!document.file_digest || document.file === 'stdin') return undefined;
  for (const path of new Set([resolve(document.base_dir, basename(document.file)), resolve(document.file)])) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue;
    }
    if (createHash('sha256').update(text).digest('hex') === document.file_digest) return { path, text };
  }
  return undefined;
}

/** What the file declares for one object of a list section (the mark forgectl adds left out), or undefined. */
function listed(section: Section, declared: unknown, key: string): Values | undefined {
  for (const given of (declared as Values[] | undefined) ?? []) {
    const values = section.marker && typeof given[section.marker] === 'string' ? { ...given, [section.marker]: unmark(given[section.marker]).value } : given;
    if (identityKey(section, values) === key) return values;
  }
  return undefined;
}

/** Why a change does not follow from what the file declares for its owner's section; undefined when it does. */
export function problemOf(state: DesiredState, change: Change): string | undefined {
  const section = sectionOf(change.owner.level, change.section);
  if (!section) return `the section ${change.section} is unknown`;
  const declared = declaredSections(state, change.owner).find(([candidate]) => candidate === section)?.[1];
  if (declared === undefined) return `the file declares no ${section.key} for it`;
  if (change.action === 'violation') return undefined;
  if (section.auditOnly) return 'the section is audited only: its findings are never changed';
  if (section.follows) return section.follows(declared, change);
  let expected: unknown;
  if (section.shape === 'many') {
    expected = listed(section, declared, change.key);
    if (change.action === 'delete') {
      if (expected !== undefined) return 'it deletes an object the file lists';
      return change.prune ? undefined : 'a deletion of an object the file does not list goes only with --prune';
    }
  } else {
    expected = section.shape === 'map' ? (declared as Values)[change.key] : declared;
    if (change.action === 'delete') return expected === null ? undefined : 'the file does not set it to null';
  }
  if (expected === undefined || expected === null) return 'the file does not declare it';
  if (!sameValue(change.desired, expected)) return 'the values it would send are not those the file declares';
  const differs = change.fields.find((field) => {
    if (field.writeOnly || field.withheld || !('to' in field)) return false;
    const value = (expected as Values)[field.field];
    return !sameValue(field.to, section.compareAs?.[field.field] ? section.compareAs[field.field](value) : value);
  });
  return differs ? `its ${differs.field} is not the value the file declares` : undefined;
}

/**
 * Refuses (exit 2) a saved plan with a change that does not follow from its desired-state file, naming the plan
 * and the change. Says whether the file was at hand to check against.
 */
export async function checkFollowsFile(file: string, document: PlanDocument, changes: Change[]): Promise<boolean> {
  const source = sourceOf(document);
  if (!source) return false;
  const state = await parseDesiredState(source.path, source.text);
  changes.forEach((change, index) => {
    const problem = problemOf(state, change);
    if (problem) {
      throw new UsageError(
        `${planName(file, document)}: change ${index + 1} (${savedChangeLabel(document.changes[index])}) does not follow from ${document.file}: ${problem}; nothing was applied`,
        'make the plan again (and review it) rather than editing it',
      );
    }
  });
  return true;
}
