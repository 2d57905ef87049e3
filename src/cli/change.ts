import { visible } from '../output/formats.js';
import type { Context } from './command.js';
import { sameValue } from '../desired/model.js';

/**
 * Previewing, confirming and checking a change to a record: `key: current → new` on stderr, confirmation, and a
 * warning for every value the answer does not show as asked. Used by settings set and plan-limits set, and meant
 * for desired state (plan/apply).
 */

export interface Change {
  key: string;
  from: unknown;
  to: unknown;
  secret?: boolean;
}

/** The wanted values that differ from the current record. */
export function changesFrom(current: Record<string, unknown>, wanted: Record<string, unknown>, isSecret: (key: string) => boolean = () => false): Change[] {
  return Object.entries(wanted)
    .filter(([key, to]) => !sameValue(current[key], to))
    .map(([key, to]) => ({ key, from: current[key], to, secret: isSecret(key) }));
}

const show = (value: unknown, secret?: boolean): string => (secret ? (value === null || value === '' || value === undefined ? '(empty)' : '(hidden)') : visible(JSON.stringify(value ?? null)));

/** One line per change: `key: current → new`, red and green on a colour terminal. */
export async function formatChanges(changes: Change[], color: boolean): Promise<string> {
  const paint = color ? (await import('chalk')).default : undefined;
  return changes
    .map(({ key, from, to, secret }) => {
      const before = show(from, secret);
      const after = secret ? '(new value)' : show(to);
      return `  ${key}: ${paint ? paint.red(before) : before} → ${paint ? paint.green(after) : after}`;
    })
    .join('\n');
}

/** Shows the change on stderr and asks for confirmation (--yes off a terminal). Nothing is sent before this. */
export async function previewAndConfirm(ctx: Context, subject: string, changes: Change[]): Promise<void> {
  const preview = `Changes to ${subject}:\n${await formatChanges(changes, ctx.io.options.color)}`;
  // Before a prompt the preview is part of the question, so --quiet does not hide it there. Written as it is (it
  // may be coloured): formatChanges made its values visible.
  const asking = ctx.io.interactive && !ctx.globals.yes && !ctx.globals.dryRun;
  if (asking || !ctx.io.options.quiet) ctx.io.streams.stderr.write(`${preview}\n`);
  await ctx.confirm(`Apply ${changes.length === 1 ? 'this change' : `these ${changes.length} changes`} to ${subject}?`);
}

/** Warns about every change the record the instance answered with does not show (ignored or adjusted values). */
export function checkApplied(ctx: Context, changes: Change[], result: Record<string, unknown>): void {
  for (const change of changes) {
    if (!(change.key in result)) ctx.io.warn(`${change.key} was not applied: the instance does not have this setting`);
    else if (!change.secret && !sameValue(result[change.key], change.to)) {
      ctx.io.warn(`${change.key} was not applied as asked: the instance now has ${JSON.stringify(result[change.key])}`);
    }
  }
}
