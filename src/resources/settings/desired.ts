import type { FieldSpec } from '../../desired/model.js';
import { bodyOf } from '../../desired/sections/generic.js';
import { refuse, SECRET_REF, type Section } from '../../desired/section.js';
import { coerceSetting, REMOVED_SETTINGS, SETTINGS, SETTINGS_ROUTES, settingConstraint, type SettingField } from './resource.js';

/** The instance's application settings in a desired-state file (`application_settings`). */

type Values = Record<string, unknown>;

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
