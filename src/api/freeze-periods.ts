import { CronExpressionParser } from 'cron-parser';

/**
 * Checks of freeze-period input shared by the CLI (before sending) and the sandbox (as the service validates).
 * The service parses cron with Fugit: five fields (minute hour day-of-month month day-of-week) or a macro
 * such as @daily. Returns a problem description, or undefined when the expression is valid.
 */
export function cronProblem(expression: string): string | undefined {
  const text = expression.trim();
  if (!text) return 'is empty';
  const fields = text.split(/\s+/);
  if (!text.startsWith('@') && fields.length !== 5) {
    return `has ${fields.length} field${fields.length === 1 ? '' : 's'}; a cron expression has 5 (minute hour day-of-month month day-of-week)`;
  }
  try {
    CronExpressionParser.parse(text, { tz: 'UTC' });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * The IANA time zone name as given, in the spelling the zone database uses (the service's lookup is
 * case-sensitive), or undefined when Node does not know it. Aliases such as UTC, Etc/UTC and US/Pacific are IANA
 * names too; UTC offsets like +01:00 are not zone names and are refused.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
  } catch {
    return undefined;
  }
  return Intl.supportedValuesOf('timeZone').find((zone) => zone.toLowerCase() === name.toLowerCase()) ?? name;
}

/** Known zone names close to a mistyped one, for the hint. */
export function similarTimeZones(name: string): string[] {
  const needle = name.toLowerCase().split('/').pop() ?? '';
  if (needle.length < 3) return [];
  return Intl.supportedValuesOf('timeZone').filter((zone) => zone.toLowerCase().includes(needle.slice(0, 4))).slice(0, 5);
}
