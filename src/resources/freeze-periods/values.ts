import { CronExpressionParser } from 'cron-parser';
import { UsageError } from '../../errors.js';
import { kindField } from '../../api/fields.js';
import { plural } from '../../parse.js';

/**
 * Cron expressions as the service parses them (Fugit): five fields (minute hour day-of-month month day-of-week) or
 * a macro such as @daily. Checked by the CLI before sending and by the sandbox as the service validates. A module of
 * its own because cron-parser is heavy: only resources with a cron field load it.
 */
export function cronProblem(expression: string): string | undefined {
  const text = expression.trim();
  if (!text) return 'is empty';
  const fields = text.split(/\s+/);
  if (!text.startsWith('@') && fields.length !== 5) {
    return `has ${plural(fields.length, 'field')}; a cron expression has 5 (minute hour day-of-month month day-of-week)`;
  }
  try {
    CronExpressionParser.parse(text, { tz: 'UTC' });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The field kind of a cron expression (see f in fields.ts). */
export const cron = kindField<string>({
  name: 'cron',
  type: 'string',
  placeholder: '<cron>',
  parse(text, label) {
    const problem = cronProblem(text);
    if (problem) throw new UsageError(`${label} is not a valid cron expression ("${text}"): ${problem}`, "example: '0 23 * * 5' is Friday 23:00");
    return text.trim();
  },
});
