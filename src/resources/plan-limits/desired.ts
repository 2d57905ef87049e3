import type { FieldSpec, LiveObject } from '../../desired/model.js';
import { bodyOf } from '../../desired/sections/generic.js';
import type { Section } from '../../desired/section.js';
import { planLimits } from './resource.js';
import { PLAN_LIMITS, PLANS } from './values.js';

/** The instance's plan limits in a desired-state file (`plan_limits`). */

type Values = Record<string, unknown>;

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
