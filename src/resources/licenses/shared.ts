import type { Context } from '../../cli/command.js';
import { CliError, ExitCode } from '../../errors.js';
import type { RecordOf } from '../../api/fields.js';
import { licenses } from './resource.js';
import { plural } from '../../parse.js';

/** A license as the service presents it (some fields only in some answers), and whatever else it adds. */
export type License = Partial<RecordOf<typeof licenses>> & Pick<RecordOf<typeof licenses>, 'id' | 'plan' | 'starts_at' | 'expires_at' | 'expired'> & Record<string, unknown>;

/** Columns of `license list`: fields every listed license has (active_users is only in the current license's record). */
export const licenseColumns = licenses.columns;

/** Days a license is warned about before it expires. */
export const EXPIRY_WARNING_DAYS = 30;

/** The current license, or exit 5 when the instance has none (the service answers null). */
export async function currentLicense(ctx: Context): Promise<License> {
  const license = await ctx.api.call<License | null>(licenses.routes.current);
  if (!license) throw new CliError('no license is installed on this instance', ExitCode.notFound, 'add one: forgectl license add --file PATH');
  return license;
}

/** The record with what an administrator looks for first: plan, licensee, seats, overage, expiry. */
export function presentLicense(license: License): License {
  const first = ['id', 'plan', 'licensee', 'user_limit', 'active_users', 'overage', 'historical_max', 'maximum_user_count', 'starts_at', 'expires_at', 'expired'];
  return Object.fromEntries([...first.filter((k) => k in license), ...Object.keys(license).filter((k) => !first.includes(k))].map((k) => [k, license[k]])) as License;
}

export function describeLicense(license: License): string {
  const who = license.licensee?.Company || license.licensee?.Name;
  return `license ${license.id} (${license.plan}${who ? `, ${who}` : ''})`;
}

/** Warns when the current license has expired or expires within 30 days, and when more users are active than licensed. */
export function warnAboutCurrent(ctx: Context, license: License): void {
  if (license.expires_at) {
    const days = Math.floor((Date.parse(`${license.expires_at.slice(0, 10)}T00:00:00Z`) - ctx.now().getTime()) / 86_400_000) + 1;
    if (license.expired || days <= 0) ctx.io.warn(`the current ${describeLicense(license)} expired on ${license.expires_at}`);
    else if (days <= EXPIRY_WARNING_DAYS) ctx.io.warn(`the current ${describeLicense(license)} expires on ${license.expires_at}, in ${plural(days, 'day')}`);
  }
  if (license.overage) ctx.io.warn(`${describeLicense(license)} has ${plural(license.overage, 'billable user')} over its user limit of ${license.user_limit}`);
}
