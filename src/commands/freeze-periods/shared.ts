import type { OptionDef } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { p } from '../../api/path.js';
import { canonicalTimeZone, cronProblem, similarTimeZones } from '../../api/freeze-periods.js';

function parseCron(flag: string) {
  return (value: string): string => {
    const problem = cronProblem(value);
    if (problem) throw new UsageError(`${flag} is not a valid cron expression ("${value}"): ${problem}`, "example: '0 23 * * 5' is Friday 23:00");
    return value.trim();
  };
}

function parseTimeZone(value: string): string {
  const zone = canonicalTimeZone(value);
  if (!zone) {
    const similar = similarTimeZones(value);
    throw new UsageError(`--cron-timezone "${value}" is not an IANA time zone name`, similar.length ? `did you mean ${similar.join(', ')}?` : 'for example UTC, Europe/Berlin, America/New_York');
  }
  return zone;
}

export const freezeOptions = (required: boolean): OptionDef[] => [
  { flags: '--freeze-start <cron>', description: 'when the freeze starts, as a cron expression (checked locally)', parse: parseCron('--freeze-start'), required },
  { flags: '--freeze-end <cron>', description: 'when the freeze ends, as a cron expression (checked locally)', parse: parseCron('--freeze-end'), required },
  { flags: '--cron-timezone <zone>', description: `IANA time zone of both expressions${required ? ' (default UTC)' : ''}`, parse: parseTimeZone },
];

export interface FreezeOptions {
  project?: string;
  freezeStart?: string;
  freezeEnd?: string;
  cronTimezone?: string;
}

export const freezeBody = (opts: FreezeOptions) => ({ freeze_start: opts.freezeStart, freeze_end: opts.freezeEnd, cron_timezone: opts.cronTimezone });

export const freezeColumns = ['id', 'freeze_start', 'freeze_end', 'cron_timezone', 'created_at'];

export const periodsPath = (project: string): string => p`/projects/${project}/freeze_periods`;
export const periodPath = (project: string, id: number): string => p`/projects/${project}/freeze_periods/${id}`;
