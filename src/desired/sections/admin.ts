import { coerceSetting, REMOVED_SETTINGS, SETTINGS, SETTINGS_ROUTES, settingConstraint, type SettingField } from '../../resources/settings/resource.js';
import { INTEGRATION_EVENT_FLAGS, SECRET_PARAM, SLUG } from '../../api/integrations.js';
import { integrations } from '../../resources/integrations/resource.js';

const groupIntegrationRoutes = integrations.parents.group.routes;
import { PLAN_LIMITS, PLANS } from '../../api/plan-limits.js';
import { planLimits } from '../../resources/plan-limits/resource.js';
import { closestName } from '../../parse.js';
import { ApiError } from '../../errors.js';
import { isSecretRef, type FieldSpec, type LiveObject } from '../model.js';
import { refuse, type Section } from '../section.js';
import { bodyOf } from './generic.js';

/** Sections of groups and of the instance: group integrations, application settings and plan limits. */

type Values = Record<string, unknown>;

const SECRET_REF = { $ref: '#/definitions/secret' };

/** A setting of an integration: text, a switch, a number, or (for credentials) a secret reference. */
const integrationSetting: FieldSpec = {
  schema: { anyOf: [{ type: ['string', 'boolean', 'integer'] }, SECRET_REF] },
  help: 'a setting of the integration (its properties and event flags)',
};

export const integrationsSection: Section = {
  key: 'integrations',
  noun: 'integration',
  level: 'group',
  shape: 'map',
  help: 'Group integrations by slug (bugzilla, asana …): their settings and event flags, credentials as secret references (sent with every change, never compared). null: the integration is disabled.',
  fields: {},
  other: integrationSetting,
  nullable: true,
  exported: true,
  sendsSecretsAlways: true,
  check(values) {
    for (const [key, value] of Object.entries(values)) {
      if (SECRET_PARAM.test(key) && !isSecretRef(value)) refuse(key, 'is a credential: give it as {env: VARIABLE}, {file: PATH} or {command: …}, never as the value');
    }
    return values;
  },
  async exportNames(io, owner) {
    const active = await io.api.call<Array<{ slug: string }>>(groupIntegrationRoutes.list, { group: owner.path });
    return active.map((integration) => integration.slug);
  },
  async read(io, owner, names = []) {
    const live: LiveObject[] = [];
    for (const slug of names) {
      if (!SLUG.test(slug)) refuse(`integration ${slug}`, 'is not an integration slug (for example asana, custom-issue-tracker)');
      try {
        const record = await io.api.call<Values>(groupIntegrationRoutes.get, { group: owner.path, slug });
        const flags = Object.fromEntries(INTEGRATION_EVENT_FLAGS.filter((flag) => flag in record).map((flag) => [flag, record[flag]]));
        live.push({ key: slug, values: { ...((record.properties as Values | undefined) ?? {}), ...flags } });
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 404)) throw error;
      }
    }
    return live;
  },
  // The service wants the required settings (credentials included) with every change: all of them are sent.
  async create(io, owner, desired, slug) {
    await io.api.call(groupIntegrationRoutes.set, { group: owner.path, slug: slug!, ...(await bodyOf(io, integrationsSection, desired)) });
  },
  // A change sends the settings the integration has with those the file declares: the service wants its
  // required settings every time.
  async update(io, owner, live, _changed, desired) {
    const [current] = await integrationsSection.read(io, owner, [live.key]);
    await io.api.call(groupIntegrationRoutes.set, { group: owner.path, slug: live.key, ...current?.values, ...(await bodyOf(io, integrationsSection, desired)) });
  },
  async remove(io, owner, live) {
    await io.api.call(groupIntegrationRoutes.disable, { group: owner.path, slug: live.key });
  },
};

/** The JSON Schema of a setting of the application settings table. */
function settingSchema(setting: SettingField): Record<string, unknown> {
  const types: Record<SettingField['type'], Record<string, unknown>> = {
    integer: { type: 'integer' },
    number: { type: 'number' },
    boolean: { type: 'boolean' },
    string: { type: 'string' },
    array: { type: 'array', items: { type: ['string', 'integer'] } },
    object: { type: 'object' },
  };
  const schema: Record<string, unknown> = { ...types[setting.type] };
  if (setting.type === 'string' || setting.nullable) schema.type = [schema.type as string, 'null'];
  if (setting.choices && setting.type !== 'array') schema.enum = setting.nullable ? [...setting.choices, null] : [...setting.choices];
  if (setting.min !== undefined && setting.type !== 'array') schema.minimum = setting.min;
  if (setting.max !== undefined) schema.maximum = setting.max;
  return setting.secret ? SECRET_REF : schema;
}

/** A setting's value as `settings set` takes it: the same coercion and constraints, the same messages. */
function settingSpec(key: string, setting: SettingField): FieldSpec {
  return {
    schema: settingSchema(setting),
    secret: setting.secret,
    help: setting.deprecatedBy ? `deprecated: use ${setting.deprecatedBy}` : undefined,
    parse(value, label) {
      if (setting.secret) return value;
      const coerced = coerceSetting(setting, value);
      if (!coerced.ok) refuse(label, coerced.problem);
      const constraint = settingConstraint(setting, coerced.value);
      if (constraint) refuse(label, constraint.problem);
      return coerced.value;
    },
  };
}

export const applicationSettingsSection: Section = {
  key: 'application_settings',
  noun: 'application settings',
  level: 'instance',
  shape: 'one',
  help: 'Instance application settings (administrators). Only the settings given are compared; credentials are secret references, sent with any change of the settings.',
  fields: Object.fromEntries(Object.entries(SETTINGS).filter(([, setting]) => !setting.readOnly).map(([key, setting]) => [key, settingSpec(key, setting)])),
  exported: true,
  sendsSecretsAlways: true,
  check(values) {
    for (const key of Object.keys(values)) if (REMOVED_SETTINGS.includes(key)) refuse(key, 'was removed from the application settings in an earlier release');
    return values;
  },
  async read(io) {
    const record = await io.api.call<Values>(SETTINGS_ROUTES.get);
    return [{ key: 'application settings', values: record }];
  },
  async update(io, _owner, _live, changed, desired) {
    const secrets = Object.keys(desired).filter((key) => SETTINGS[key]?.secret);
    await io.api.call(SETTINGS_ROUTES.update, await bodyOf(io, applicationSettingsSection, desired, [...changed, ...secrets]));
  },
};

export const planLimitsSection: Section = {
  key: 'plan_limits',
  noun: 'plan limits',
  level: 'instance',
  shape: 'map',
  help: 'Plan limits by plan (administrators; the community edition has only `default`). Only the limits given are compared.',
  names: PLANS,
  exportNames: async () => ['default'],
  fields: Object.fromEntries(Object.keys(PLAN_LIMITS).map((key) => [key, { schema: { type: 'integer', minimum: 0 } } satisfies FieldSpec])),
  exported: true,
  async read(io, _owner, names = []) {
    const live: LiveObject[] = [];
    for (const plan of names) live.push({ key: plan, values: await io.api.call<Values>(planLimits.routes.get, { plan_name: plan }) });
    return live;
  },
  async update(io, _owner, live, changed, desired) {
    await io.api.call(planLimits.routes.update, { plan_name: live.key, ...(await bodyOf(io, planLimitsSection, desired, changed)) });
  },
};

/** "did you mean" for a mistyped setting or limit. */
export const guessName = (name: string, section: Section): string | undefined => closestName(name, Object.keys(section.fields));
