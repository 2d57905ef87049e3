import { findGroup, findProject, requireAdmin } from '../../sandbox/auth.js';
import { bool, created, errors, noContent, ok, required, SANDBOX_VERSION, type SandboxRequest } from '../../sandbox/http.js';
import { users, type FeatureFlag, featureTable } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { found, presentRecord, type Values } from '../../sandbox/records.js';
import { features } from './resource.js';
import { metadata } from '../metadata/resource.js';

/** Definitions of flags the sandbox knows (any other name may be set too; its definition is null). */
const DEFINITIONS: Record<string, { milestone: string; type: string; group: string; default_enabled: boolean }> = {
  approval_group_rules: { milestone: '16.7', type: 'beta', group: 'group::source code', default_enabled: false },
  git_guardian_integration: { milestone: '16.8', type: 'ops', group: 'group::source code', default_enabled: true },
};

function definition(name: string): Record<string, unknown> | null {
  const known = DEFINITIONS[name];
  return known ? { name, introduced_by_url: null, rollout_issue_url: null, milestone: known.milestone, log_state_changes: null, type: known.type, group: known.group, default_enabled: known.default_enabled } : null;
}

/** What the service derives of a flag from its gates: its state, the gates as a list, its definition. */
function computed(flag: FeatureFlag): Values {
  const gates: Array<{ key: string; value: unknown }> = [{ key: 'boolean', value: flag.boolean === true }];
  if (flag.percentage_of_time !== undefined) gates.push({ key: 'percentage_of_time', value: flag.percentage_of_time });
  if (flag.percentage_of_actors !== undefined) gates.push({ key: 'percentage_of_actors', value: flag.percentage_of_actors });
  if (flag.actors.length) gates.push({ key: 'actors', value: flag.actors });
  const conditional = flag.percentage_of_time !== undefined || flag.percentage_of_actors !== undefined || flag.actors.length > 0;
  return { state: flag.boolean ? 'on' : conditional ? 'conditional' : 'off', gates, definition: definition(flag.name) };
}

const presentFeature = (flag: FeatureFlag): Values => presentRecord(features, flag, computed(flag));

/** Sets a flag as `POST /features/:name` does: true/false for everyone or for actors, a number for a percentage. */
function setFeature(req: SandboxRequest, flag: FeatureFlag): void {
  const value = String(required(req, 'value'));
  const actors: string[] = [];
  for (const name of String(req.input.user ?? '').split(',').filter(Boolean)) {
    const user = found(users(req.db).find((u) => u.username === name.trim()), 'User');
    actors.push(`User:${user.id}`);
  }
  for (const path of String(req.input.group ?? '').split(',').filter(Boolean)) actors.push(`Group:${findGroup(req.db, path.trim()).id}`);
  for (const path of String(req.input.project ?? '').split(',').filter(Boolean)) actors.push(`Project:${findProject(req.db, path.trim()).id}`);
  if (/^\d+(\.\d+)?$/.test(value)) {
    const percent = Number(value);
    if (percent > 100) throw errors.badRequest('Value must be at most 100');
    if (req.input.key === 'percentage_of_actors') flag.percentage_of_actors = percent;
    else if (req.input.key === undefined || req.input.key === 'percentage_of_time') flag.percentage_of_time = percent;
    else throw errors.invalid('key');
    flag.boolean = false;
    return;
  }
  const on = bool(value);
  if (on === undefined || !['true', 'false'].includes(value)) throw errors.invalid('value');
  if (actors.length) {
    flag.actors = on ? [...new Set([...flag.actors, ...actors])] : flag.actors.filter((a) => !actors.includes(a));
    return;
  }
  // On or off for everyone replaces every other gate.
  Object.assign(flag, { boolean: on, actors: [], percentage_of_time: undefined, percentage_of_actors: undefined });
}

export const core: SandboxModule = {
  routes(api) {
    const about = () => ok({ version: SANDBOX_VERSION, revision: 'sandbox', kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null }, enterprise: true });
    api.route(metadata.routes.get, about);
    api.route(metadata.routes.metadata, about);
    // Changes take effect at once here: one background process, never busy.
    api.route(metadata.routes.sidekiqProcesses, (req) => {
      requireAdmin(req);
      return ok({ processes: [{ hostname: 'sandbox', pid: 1, tag: 'gitlab', started_at: req.now().toISOString(), queues: ['default', 'mailers'], labels: [], concurrency: 20, busy: 0 }] });
    });

    // Feature flags (administrators).
    api.route(features.routes.list, (req) => {
      requireAdmin(req);
      return ok(featureTable(req.db).map(presentFeature));
    });
    api.route(features.routes.definitions, (req) => {
      requireAdmin(req);
      return ok(Object.keys(DEFINITIONS).map(definition));
    });
    api.route(features.routes.set, (req) => {
      requireAdmin(req);
      const flag: FeatureFlag = featureTable(req.db).find((f) => f.name === req.params.name) ?? { name: req.params.name, actors: [] };
      setFeature(req, flag);
      if (!featureTable(req.db).includes(flag)) featureTable(req.db).push(flag);
      return created(presentFeature(flag));
    });
    api.route(features.routes.delete, (req) => {
      requireAdmin(req);
      const table = featureTable(req.db);
      const index = table.findIndex((f) => f.name === req.params.name);
      if (index >= 0) table.splice(index, 1);
      return noContent();
    });
  },
};
