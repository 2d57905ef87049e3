import type { Level } from '../model.js';
import type { Section } from '../section.js';
import { sectionModules } from './all.js';

/**
 * The sections of each level, by key, in the order plans show and apply them. Each is defined in its resource's
 * folder (src/resources/<resource>/desired.ts, listed in the generated all.ts); a section this order does not name is
 * an error when the list is built (and in test/registries.test.ts).
 */
const ORDER: Record<Level, string[]> = {
  project: [
    'settings', 'members', 'push_rule', 'protected_tags', 'badges', 'freeze_periods', 'approvals', 'approval_rules', 'pull_mirror', 'hooks',
    'secure_files', 'files', 'access_tokens', 'variables',
    // After the members a rule may name (a user added in the same apply is waited for): keep it after members.
    'protected_branches',
  ],
  group: ['settings', 'members', 'integrations', 'access_tokens', 'variables', 'protected_branches'],
  instance: ['application_settings', 'plan_limits', 'variables'],
};

const isSection = (value: unknown): value is Section =>
  typeof value === 'object' && value !== null && typeof (value as Section).key === 'string' && typeof (value as Section).level === 'string' && typeof (value as Section).shape === 'string';

/** The sections the modules define, each level's in ORDER; throws on a section ORDER leaves out, or one it names twice. */
export function orderSections(modules: Array<Record<string, unknown>>, order: Record<Level, string[]>): Record<Level, Section[]> {
  const defined = [...new Set(modules.flatMap((module) => Object.values(module).filter(isSection)))];
  const sections = Object.fromEntries(
    (Object.keys(order) as Level[]).map((level) => {
      const here = defined.filter((section) => section.level === level);
      const unordered = here.filter((section) => !order[level].includes(section.key));
      if (unordered.length) throw new Error(`desired-state sections ${unordered.map((s) => `${level}.${s.key}`).join(', ')} have no place in ORDER (src/desired/sections/index.ts)`);
      return [level, order[level].map((key) => {
        const found = here.filter((section) => section.key === key);
        if (found.length !== 1) throw new Error(`desired-state section ${level}.${key} is defined ${found.length} times`);
        return found[0];
      })];
    }),
  ) as Record<Level, Section[]>;
  const levels = new Set(Object.keys(order));
  const stray = defined.filter((section) => !levels.has(section.level));
  if (stray.length) throw new Error(`desired-state sections of unknown levels: ${stray.map((s) => `${s.level}.${s.key}`).join(', ')}`);
  return sections;
}

/** Every section a desired-state file may have, by level, in the order plans show and apply them. */
export const SECTIONS: Record<Level, Section[]> = orderSections(sectionModules, ORDER);

export function sectionOf(level: Level, key: string): Section | undefined {
  return SECTIONS[level].find((section) => section.key === key);
}
