import { PLAN_LIMITS, PLANS } from './values.js';
import { planLimits as declared } from './resource.js';
import { requireAdmin } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { errors, HttpError, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { planLimitsByPlan } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';

/** Plan limits per plan (spec document 3): integers only; unknown plans answer 400 as Grape's `values:` check does. */

function limitsOf(db: Db, plan: string): Record<string, number> {
  const all = planLimitsByPlan(db);
  return (all[plan] ??= { ...PLAN_LIMITS });
}

function planName(req: SandboxRequest, value: unknown): string {
  const plan = String(value);
  if (!(PLANS as readonly string[]).includes(plan)) throw errors.error(400, 'plan_name does not have a valid value');
  return plan;
}

export const planLimits: SandboxModule = {
  routes(api) {
    api.route(declared.routes.get, (req) => {
      requireAdmin(req);
      return ok({ ...limitsOf(req.db, planName(req, req.query.plan_name ?? 'default')) });
    });

    api.route(declared.routes.update, (req) => {
      requireAdmin(req);
      const plan = planName(req, required(req, 'plan_name'));
      const values: Record<string, number> = {};
      const invalid: string[] = [];
      const validation: Record<string, string[]> = {};
      for (const key of Object.keys(PLAN_LIMITS)) {
        const raw = req.input[key];
        if (raw === undefined) continue;
        const text = String(raw).trim();
        if (typeof raw === 'object' || !/^-?\d+$/.test(text)) invalid.push(`${key} is invalid`);
        else if (Number(text) < 0) validation[key] = ['must be greater than or equal to 0'];
        else values[key] = Number(text);
      }
      if (invalid.length) throw errors.error(400, invalid.join(', '));
      if (Object.keys(validation).length) throw new HttpError(400, { message: validation });
      const limits = limitsOf(req.db, plan);
      Object.assign(limits, values);
      return ok({ ...limits });
    });
  },
};
