import { requireAdmin } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { crudModule } from '../../sandbox/crud.js';
import { accepted, errors, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { licenseTable, users, type LicenseRecord } from '../../sandbox/model.js';
import { found, INSTANCE, presentRecord, type Values } from '../../sandbox/records.js';
import { isoDate } from '../../sandbox/seed.js';
import { isBillable } from '../../sandbox/users.js';
import { licenses as declared } from './resource.js';

/**
 * Licenses (spec document 3, api-facts §1.16), administrators only. A sandbox license key is the base64 of a JSON
 * object {"plan", "licensee": {"Name","Email","Company"}, "starts_at", "expires_at", "user_limit"}; anything else
 * answers 400 with a message. Billable users are active humans; their daily counts are kept as historical data so
 * that historical_max and the overage of expired licenses can be computed as the spec says.
 */

/** Billable user counts by day (YYYY-MM-DD → highest count seen that day). */
type History = Record<string, number>;

const history = (db: Db): History => db.record<History>('license_history', () => ({}));

export const LICENSE_PLANS = ['starter', 'premium', 'ultimate'];

const billableCount = (db: Db): number => users(db).filter(isBillable).length;

/** Records today's billable count, as the instance's daily job does, and returns it. */
function recordToday(db: Db, now: Date): number {
  const count = billableCount(db);
  const day = isoDate(now);
  const days = history(db);
  days[day] = Math.max(days[day] ?? 0, count);
  return count;
}

const isExpired = (license: LicenseRecord, now: Date): boolean => license.expires_at < isoDate(now);

function historicalMax(db: Db, license: LicenseRecord): number {
  const counts = Object.entries(history(db)).filter(([day]) => day >= license.starts_at && day <= license.expires_at).map(([, count]) => count);
  return Math.max(0, ...counts);
}

/** The newest license that has started and not expired, as the instance picks it. */
function current(db: Db, now: Date): LicenseRecord | undefined {
  const today = isoDate(now);
  return [...licenseTable(db)].reverse().find((l) => l.starts_at <= today && !isExpired(l, now));
}

/** What the service computes of a license from the billable users: today's, the license term's highest, the overage. */
function computed(req: SandboxRequest, license: LicenseRecord): Values {
  const now = req.now();
  const activeUsers = recordToday(req.db, now);
  const max = historicalMax(req.db, license);
  const expired = isExpired(license, now);
  // Overage: billable users beyond the licensed ones; an expired license counts its historical maximum.
  const overage = Math.max(0, (expired ? max : activeUsers) - license.user_limit);
  return { historical_max: max, maximum_user_count: Math.max(max, activeUsers), expired, overage, active_users: activeUsers };
}

/** The list goes without today's count of active users (only a single license has it). */
const LISTED = { fields: declared.fields, without: ['active_users'] };

const INVALID = 'The license key is invalid. Make sure it is exactly as you received it';
const isDate = (value: unknown): value is string => typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value));

/** Decodes and checks a key; a 400 {"message": …} names what is wrong, as the service's validation does. */
function decodeKey(key: string, now: Date): Omit<LicenseRecord, 'id' | 'created_at'> {
  const fail = (reason?: string) => errors.message(400, reason ? `${INVALID}: ${reason}.` : `${INVALID}.`);
  const compact = key.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(compact)) throw fail();
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(Buffer.from(compact, 'base64').toString('utf8')) as Record<string, unknown>;
  } catch {
    throw fail();
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw fail();
  if (typeof data.plan !== 'string' || !LICENSE_PLANS.includes(data.plan)) throw fail(`plan must be one of ${LICENSE_PLANS.join(', ')}`);
  const licensee = data.licensee as Record<string, unknown> | undefined;
  if (!licensee || typeof licensee !== 'object' || !['Name', 'Email', 'Company'].every((k) => typeof licensee[k] === 'string' && licensee[k] !== '')) {
    throw fail('licensee must have Name, Email and Company');
  }
  if (!isDate(data.starts_at) || !isDate(data.expires_at)) throw fail('starts_at and expires_at must be dates (YYYY-MM-DD)');
  if (data.expires_at < data.starts_at) throw fail('expires_at is before starts_at');
  if (!Number.isInteger(data.user_limit) || (data.user_limit as number) < 1) throw fail('user_limit must be a whole number of at least 1');
  if (data.expires_at < isoDate(now)) throw errors.message(400, 'This license has already expired.');
  const addOns = data.add_ons && typeof data.add_ons === 'object' ? (data.add_ons as Record<string, number>) : {};
  return {
    key: compact,
    plan: data.plan,
    licensee: { Name: String(licensee.Name), Email: String(licensee.Email), Company: String(licensee.Company) },
    starts_at: data.starts_at,
    expires_at: data.expires_at,
    user_limit: data.user_limit as number,
    add_ons: addOns,
  };
}

/** A key the sandbox accepts, for tests, the demo and users trying `license add`. */
export function sandboxLicenseKey(fields: { plan: string; licensee: LicenseRecord['licensee']; starts_at: string; expires_at: string; user_limit: number }): string {
  return Buffer.from(JSON.stringify(fields)).toString('base64');
}

function usageCsv(req: SandboxRequest, license: LicenseRecord): string {
  recordToday(req.db, req.now());
  const quote = (value: string | number): string => (/[",\n]/.test(String(value)) ? `"${String(value).replace(/"/g, '""')}"` : String(value));
  const rows: Array<Array<string | number>> = [
    ['License Key', license.key],
    ['Email', license.licensee.Email],
    ['License Start Date', license.starts_at],
    ['License End Date', license.expires_at],
    ['Company', license.licensee.Company],
    ['Generated At', req.now().toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')],
    ['', ''],
    ['Date', 'Billable User Count'],
    ...Object.entries(history(req.db))
      .filter(([day]) => day >= license.starts_at && day <= license.expires_at)
      .sort(([a], [b]) => a.localeCompare(b)),
  ];
  return rows.map((row) => row.map(quote).join(',')).join('\n') + '\n';
}

export const licenses = crudModule<LicenseRecord>(declared, {
  // The list, answered whole and without today's count of active users, is this module's own (below).
  servedElsewhere: [declared.routes.list],
  // A license's id is read as an integer: 01 is license 1; what is no number is 400.
  choose(_matches, req) {
    if (!/^\d+$/.test(req.params.license_id)) throw errors.error(400, 'id is invalid');
    return licenseTable(req.db).find((l) => l.id === Number(req.params.license_id));
  },
  input: (req) => decodeKey(String(required(req, 'license')), req.now()),
  computed: (license, req) => computed(req, license),
  routes(api) {
    const { routes } = declared;
    api.route(routes.current, (req) => {
      requireAdmin(req);
      const license = current(req.db, req.now());
      return ok(license ? licenses.present(license, req, INSTANCE) : null);
    });
    api.route(routes.list, (req) => {
      requireAdmin(req);
      return ok([...licenseTable(req.db)].reverse().map((l) => presentRecord(LISTED, l, computed(req, l))));
    });
    // The service's resource is license/usage_export; the .csv suffix is its format suffix, and either answers.
    for (const route of [routes.usageExport, routes.usageExport.replace(/\.csv$/, '')]) {
      api.route(route, (req) => {
        requireAdmin(req);
        const license = found(current(req.db, req.now()), 'License');
        return { status: 200, raw: { data: usageCsv(req, license), contentType: 'text/csv; charset=utf-8' }, headers: { 'Content-Disposition': 'attachment; filename="license_usage.csv"' } };
      });
    }
    api.route(routes.refreshBillable, (req) => {
      requireAdmin(req);
      licenses.find(req, INSTANCE);
      recordToday(req.db, req.now());
      return accepted({ success: true });
    });
  },
  seed(db, { tier, now }, insert) {
    recordToday(db, now);
    if (tier === 'free') return;
    const licensee = { Name: 'Sandbox Administrator', Email: 'admin@example.com', Company: 'Acme Corp' };
    const terms = { plan: tier, licensee, starts_at: isoDate(now, -30), expires_at: isoDate(now, 335), user_limit: 100 };
    insert(INSTANCE.id, { key: sandboxLicenseKey(terms), ...terms, add_ons: {} });
  },
});
