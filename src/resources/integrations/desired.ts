import type { FieldSpec, LiveObject } from '../../desired/model.js';
import { isSecretRef } from '../../desired/model.js';
import { bodyOf } from '../../desired/sections/generic.js';
import { FieldProblem, refuse, SECRET_REF, type Section } from '../../desired/section.js';
import { ApiError, UsageError } from '../../errors.js';
import { integrations } from './resource.js';
import { checkIntegrationParam, INTEGRATION_EVENT_FLAGS, isSecretSetting, SLUG } from './values.js';

/** A group's integrations in a desired-state file (`integrations`). */

type Values = Record<string, unknown>;

const groupIntegrationRoutes = integrations.parents.group.routes;

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
  // The service resets a disabled integration's settings: turning it on again needs them all, credentials too.
  lostWithDelete: () => 'disabled, its settings are reset by the service: enabling it again needs them all, credentials too',
  // Each setting is one the kind takes (as integrations set checks them): the service drops the others without a word.
  check(values, _local, slug = '') {
    for (const [key, value] of Object.entries(values)) {
      if (isSecretSetting(slug, key) && !isSecretRef(value)) refuse(key, 'is a credential: give it as {env: VARIABLE}, {file: PATH} or {command: …}, never as the value');
      try {
        checkIntegrationParam(slug, key);
      } catch (error) {
        if (error instanceof UsageError) throw new FieldProblem(key, error.message, error.hint);
        throw error;
      }
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
