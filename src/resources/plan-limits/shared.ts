import { PLAN_LIMITS, PLANS } from './values.js';
import type { OptionDef } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { closestName, parseChoice, splitPairs } from '../../parse.js';

export const planOption: OptionDef = {
  flags: '--plan <name>',
  description: `plan whose limits to use (the community edition has only default): ${PLANS.join(', ')}`,
  parse: parseChoice('--plan', PLANS),
  default: 'default',
};

/** `limit=N` arguments: known limit names and whole numbers of at least 0, else exit 2 before anything is sent. */
export function parseLimitPairs(pairs: string[]): Record<string, number> {
  const wanted: Record<string, number> = {};
  for (const [key, text] of splitPairs(pairs)) {
    if (!(key in PLAN_LIMITS)) {
      const guess = closestName(key, Object.keys(PLAN_LIMITS));
      throw new UsageError(`unknown plan limit "${key}"${guess ? ` (did you mean ${guess}?)` : ''}`, `known limits: ${Object.keys(PLAN_LIMITS).join(', ')}`);
    }
    if (!/^\d+$/.test(text.trim())) throw new UsageError(`${key} must be a whole number of at least 0, got "${text}"`);
    const value = Number(text);
    if (!Number.isSafeInteger(value)) throw new UsageError(`${key} is too large: ${text}`);
    wanted[key] = value;
  }
  return wanted;
}
