import { findGroup, Role } from '../../sandbox/auth.js';
import { integrations as declared } from './resource.js';
import { BOOLEAN_PROPERTIES, INTEGRATION_EVENT_FLAGS, INTEGRATION_KINDS, type IntegrationKind } from './values.js';
import { bool, errors, noContent, ok, type SandboxRequest } from '../../sandbox/http.js';
import type { Router } from '../../sandbox/router.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { type Integration, integrationTable } from '../../sandbox/model.js';
import { found, parentOf, presentRecord, type Values } from '../../sandbox/records.js';

/**
 * Group and project integrations: every kind the service offers (values.ts), set up with PUT, read with
 * GET, disabled (settings reset) with DELETE; the list shows the active ones.
 */

type Owner = 'group' | 'project';

/** A new integration: every event flag on but vulnerability_events. */
const EVENTS_ON = Object.fromEntries(INTEGRATION_EVENT_FLAGS.map((flag) => [flag, flag !== 'vulnerability_events'])) as Record<(typeof INTEGRATION_EVENT_FLAGS)[number], boolean>;

/** The list goes without the settings. */
const LISTED = { fields: declared.fields, without: ['properties'] };

/** An integration as the service presents it: its kind's title, active, and its settings but the secret ones. */
function present(integration: Integration, withProperties: boolean): Values {
  const kind = INTEGRATION_KINDS[integration.slug];
  const properties = Object.fromEntries(Object.entries(integration.properties).filter(([key]) => !kind.secret.includes(key)));
  return presentRecord(withProperties ? declared : LISTED, integration, { title: kind.title, active: true, properties });
}

/** The kind of `:slug`; an unknown slug (or a project-only kind on a group) has no route at all (Grape's 404 body). */
function kindOf(req: SandboxRequest, owner: Owner): IntegrationKind {
  const kind = INTEGRATION_KINDS[req.params.slug];
  if (!kind || (kind.projectOnly && owner === 'group')) throw errors.error(404, '404 Not Found');
  return kind;
}

/** The group or project of the route for a caller with at least the Maintainer role. */
const ownerId = (req: SandboxRequest, owner: Owner): number => parentOf({ parent: owner }, req, Role.maintainer).id;

function find(req: SandboxRequest, owner: Owner, id: number): Integration | undefined {
  return integrationTable(req.db).find((i) => i.owner === owner && i.owner_id === id && i.slug === req.params.slug);
}

/** The integration of `:slug` set up on the route's group or project, else 404. */
function setUp(req: SandboxRequest, owner: Owner): Integration {
  const id = ownerId(req, owner);
  kindOf(req, owner);
  return found(find(req, owner, id), 'Integration');
}

function urlProblem(value: string): boolean {
  try {
    return !['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return true;
  }
}

/** A group's or a project's integrations, on the declaration's routes (src/resources/integrations/resource.ts). */
function integrationRoutes(api: Router, owner: Owner): void {
  const routes = declared.parents[owner].routes;

  api.route(routes.list, (req) => {
    const id = ownerId(req, owner);
    return ok(integrationTable(req.db).filter((i) => i.owner === owner && i.owner_id === id).map((i) => present(i, false)));
  });

  api.route(routes.get, (req) => ok(present(setUp(req, owner), true)));

  api.route(routes.set, (req) => {
    const id = ownerId(req, owner);
    const kind = kindOf(req, owner);
    const existing = find(req, owner, id);
    const missing = kind.required.filter((name) => isBlank(req.input[name]));
    if (missing.length) throw errors.error(400, missing.map((name) => `${name} is missing`).join(', '));
    const now = req.now().toISOString();
    const integration: Integration = existing ?? { id: req.db.nextId('integrations'), owner, owner_id: id, slug: req.params.slug, created_at: now, updated_at: now, inherited: false, ...EVENTS_ON, properties: {} };
    const properties = { ...integration.properties };
    const problems: Record<string, string[]> = {};
    for (const name of [...kind.required, ...kind.optional]) {
      const value = req.input[name];
      if (value === undefined) continue;
      if (BOOLEAN_PROPERTIES.has(name)) properties[name] = Boolean(bool(value));
      else properties[name] = Array.isArray(value) ? value.join(',') : String(value);
      if (name.endsWith('_url') && urlProblem(String(value))) problems[name] = ['must be a valid URL'];
    }
    if (Object.keys(problems).length) throw errors.validation(problems);
    for (const flag of INTEGRATION_EVENT_FLAGS) if (req.input[flag] !== undefined) integration[flag] = Boolean(bool(req.input[flag]));
    integration.properties = properties;
    integration.inherited = Boolean(bool(req.input.use_inherited_settings));
    integration.updated_at = now;
    if (!existing) integrationTable(req.db).push(integration);
    return ok(present(integration, true));
  });

  // Disabling resets the settings: the integration is gone until it is set up again.
  api.route(routes.disable, (req) => {
    const integration = setUp(req, owner);
    integrationTable(req.db).splice(integrationTable(req.db).indexOf(integration), 1);
    return noContent();
  });
}

const isBlank = (value: unknown): boolean => value === undefined || value === null || value === '';

export const integrations: SandboxModule = {
  routes(api) {
    integrationRoutes(api, 'group');
    integrationRoutes(api, 'project');
  },

  seed(db, { now }) {
    const at = now.toISOString();
    integrationTable(db).push({
      id: db.nextId('integrations'), owner: 'group', owner_id: findGroup(db, 'acme').id, slug: 'bugzilla', created_at: at, updated_at: at, inherited: false, ...EVENTS_ON,
      properties: { new_issue_url: 'https://bugs.acme.example.com/enter_bug.cgi', issues_url: 'https://bugs.acme.example.com/show_bug.cgi?id=:id', project_url: 'https://bugs.acme.example.com' },
    });
  },
};
