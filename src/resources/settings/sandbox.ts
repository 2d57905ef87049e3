import { coerceSetting, defaultSettings, SETTINGS, SETTINGS_ROUTES, settingConstraint } from './resource.js';
import { requireAdmin } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { errors, HttpError, ok, type SandboxRequest } from '../../sandbox/http.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { repositoryStorages } from '../../sandbox/storage-moves.js';

/**
 * Application settings (spec document 3): one record, typed by the shared settings table. PUT answers as Grape and
 * the model do: a value of the wrong type → 400 {"error":"x is invalid"}, one outside its allowed values →
 * {"error":"x does not have a valid value"}, one out of range → {"message":{"x":["must be …"]}}; unknown parameters
 * are ignored, and a request with none of the settings answers "at least one parameter must be provided".
 */

export function settingsRecord(db: Db, now: Date): Record<string, unknown> {
  const record = db.record<Record<string, unknown>>('application_settings', () => {
    const storages = repositoryStorages(db);
    return {
      ...defaultSettings(true),
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      repository_storages_weighted: Object.fromEntries(storages.map((name, index) => [name, index === 0 ? 100 : 0])),
    };
  });
  // A state file written before a setting existed has the setting's default.
  for (const [key, value] of Object.entries(defaultSettings(true))) if (!(key in record)) record[key] = value;
  return record;
}

const available = (req: SandboxRequest, key: string): boolean => !SETTINGS[key].premium || req.tier !== 'free';

/** The record as the tier shows it: Premium settings only on Premium and Ultimate. */
function present(req: SandboxRequest): Record<string, unknown> {
  const record = settingsRecord(req.db, req.now());
  return Object.fromEntries(Object.entries(record).filter(([key]) => SETTINGS[key] && available(req, key)));
}

/**
 * The given settings checked and coerced: a value of the wrong type or outside its allowed values answers 400
 * {"error": …} (all of them named), one out of range (or naming an unknown storage) 400 {"message": {…}}.
 */
function checkedValues(req: SandboxRequest, given: string[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const invalid: string[] = [];
  const notAllowed: string[] = [];
  const validation: Record<string, string[]> = {};
  for (const key of given) {
    const field = SETTINGS[key];
    const coerced = coerceSetting(field, req.input[key]);
    if (!coerced.ok) {
      invalid.push(`${key} is invalid`);
      continue;
    }
    const constraint = settingConstraint(field, coerced.value);
    if (constraint?.kind === 'choice') notAllowed.push(`${key} does not have a valid value`);
    else if (constraint) validation[key] = [constraint.problem];
    else values[key] = coerced.value;
  }
  if (invalid.length || notAllowed.length) throw errors.error(400, [...invalid, ...notAllowed].join(', '));

  const storages = repositoryStorages(req.db);
  const weights = values.repository_storages_weighted as Record<string, number> | undefined;
  const unknownStorages = weights ? Object.keys(weights).filter((name) => !storages.includes(name)) : [];
  if (unknownStorages.length) validation.repository_storages_weighted = [`can't include: ${unknownStorages.join(', ')}`];
  if (Object.keys(validation).length) throw new HttpError(400, { message: validation });
  return values;
}

/**
 * Deprecated settings and the ones that replaced them, as the settings table declares them: the service keeps each
 * pair in step. (default_branch_protection, an integer, maps onto its replacement's object in ways the sandbox does
 * not simulate, so only pairs of one type are kept in step.)
 */
const IN_STEP = Object.entries(SETTINGS).flatMap(([name, field]) => (field.deprecatedBy && SETTINGS[field.deprecatedBy].type === field.type ? [[name, field.deprecatedBy]] : []));

/** A deprecated name writes through to the setting that replaced it, and the new one to the old. */
function keepInStep(values: Record<string, unknown>): void {
  for (const [deprecated, current] of IN_STEP) {
    if (deprecated in values && !(current in values)) values[current] = values[deprecated];
    if (current in values) values[deprecated] = values[current];
  }
}

function update(req: SandboxRequest): Record<string, unknown> {
  const writable = Object.keys(SETTINGS).filter((key) => !SETTINGS[key].readOnly && available(req, key));
  const given = writable.filter((key) => key in req.input);
  if (!given.length) throw errors.error(400, `${writable.join(', ')} are missing, at least one parameter must be provided`);
  const values = checkedValues(req, given);
  const record = settingsRecord(req.db, req.now());
  // Storage weights change by storage: the ones not given keep theirs.
  if (values.repository_storages_weighted) values.repository_storages_weighted = { ...(record.repository_storages_weighted as object), ...(values.repository_storages_weighted as object) };
  keepInStep(values);
  Object.assign(record, values, { updated_at: req.now().toISOString() });
  return present(req);
}

export const settings: SandboxModule = {
  routes(api) {
    api.route(SETTINGS_ROUTES.get, (req) => {
      requireAdmin(req);
      return ok(present(req));
    });
    api.route(SETTINGS_ROUTES.update, (req) => {
      requireAdmin(req);
      return ok(update(req));
    });
  },
};
