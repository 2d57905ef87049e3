import { findGroup, groupFor, Role } from '../auth.js';
import { defineTable } from '../db.js';
import { bool, errors, noContent, ok, type SandboxRequest } from '../http.js';
import type { Group } from '../model.js';
import type { SandboxModule } from '../module.js';

/** The integration kinds of spec 1 (the slugs are the real ones the spec writes as <integration_slug>). */
interface Kind {
  title: string;
  required: string[];
  optional: string[];
  /** Write-only fields: accepted, never returned. */
  secret: string[];
}

export const INTEGRATION_KINDS: Record<string, Kind> = {
  asana: { title: 'Asana', required: ['api_key'], optional: ['restrict_to_branch'], secret: ['api_key'] },
  assembla: { title: 'Assembla', required: ['token'], optional: ['subdomain'], secret: ['token'] },
  bamboo: { title: 'Atlassian Bamboo', required: ['bamboo_url', 'build_key', 'username', 'password'], optional: ['enable_ssl_verification'], secret: ['password'] },
  bugzilla: { title: 'Bugzilla', required: ['new_issue_url', 'issues_url', 'project_url'], optional: [], secret: [] },
  buildkite: { title: 'Buildkite', required: ['token', 'project_url'], optional: ['enable_ssl_verification'], secret: ['token'] },
  'custom-issue-tracker': { title: 'Custom issue tracker', required: ['new_issue_url', 'issues_url', 'project_url'], optional: [], secret: [] },
};

export const EVENT_FLAGS = [
  'commit_events', 'push_events', 'issues_events', 'alert_events', 'confidential_issues_events', 'merge_requests_events', 'tag_push_events',
  'deployment_events', 'note_events', 'confidential_note_events', 'pipeline_events', 'wiki_page_events', 'job_events', 'comment_on_event_enabled',
] as const;

const BOOLEAN_PROPERTIES = new Set(['enable_ssl_verification']);

export interface GroupIntegration {
  id: number;
  group_id: number;
  slug: string;
  created_at: string;
  updated_at: string;
  inherited: boolean;
  events: Record<string, boolean>;
  vulnerability_events: boolean;
  properties: Record<string, string | boolean>;
}

export const integrationTable = defineTable<GroupIntegration>('group_integrations');

function present(integration: GroupIntegration, withProperties: boolean): Record<string, unknown> {
  const kind = INTEGRATION_KINDS[integration.slug];
  const record: Record<string, unknown> = {
    id: integration.id,
    title: kind.title,
    slug: integration.slug,
    created_at: integration.created_at,
    updated_at: integration.updated_at,
    active: true,
    ...integration.events,
    inherited: integration.inherited,
    vulnerability_events: integration.vulnerability_events,
  };
  if (withProperties) {
    record.properties = Object.fromEntries(Object.entries(integration.properties).filter(([key]) => !kind.secret.includes(key)));
  }
  return record;
}

/** The kind of `:slug`; an unknown slug has no route at all (Grape's 404 body). */
function kindOf(req: SandboxRequest): Kind {
  const kind = INTEGRATION_KINDS[req.params.slug];
  if (!kind) throw errors.error(404, '404 Not Found');
  return kind;
}

function find(req: SandboxRequest, group: Group): GroupIntegration | undefined {
  return integrationTable(req.db).find((i) => i.group_id === group.id && i.slug === req.params.slug);
}

function urlProblem(value: string): boolean {
  try {
    return !['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return true;
  }
}

export const integrations: SandboxModule = {
  routes(api) {
    api.get('/groups/:id/integrations', (req) => {
      const group = groupFor(req, Role.maintainer);
      return ok(integrationTable(req.db).filter((i) => i.group_id === group.id).map((i) => present(i, false)));
    });

    api.get('/groups/:id/integrations/:slug', (req) => {
      const group = groupFor(req, Role.maintainer);
      kindOf(req);
      const integration = find(req, group);
      if (!integration) throw errors.notFound('Integration');
      return ok(present(integration, true));
    });

    api.put('/groups/:id/integrations/:slug', (req) => {
      const group = groupFor(req, Role.maintainer);
      const kind = kindOf(req);
      const missing = kind.required.filter((name) => req.input[name] === undefined || req.input[name] === null || req.input[name] === '');
      if (missing.length) throw errors.error(400, missing.map((name) => `${name} is missing`).join(', '));
      const now = req.now().toISOString();
      const integration = find(req, group) ?? {
        id: req.db.nextId('integrations'), group_id: group.id, slug: req.params.slug, created_at: now, updated_at: now, inherited: false,
        events: Object.fromEntries(EVENT_FLAGS.map((flag) => [flag, true])), vulnerability_events: false, properties: {},
      };
      const properties = { ...integration.properties };
      const problems: Record<string, string[]> = {};
      for (const name of [...kind.required, ...kind.optional]) {
        const value = req.input[name];
        if (value === undefined) continue;
        if (BOOLEAN_PROPERTIES.has(name)) properties[name] = Boolean(bool(value));
        else properties[name] = String(value);
        if (name.endsWith('_url') && urlProblem(String(value))) problems[name] = ['must be a valid URL'];
      }
      if (Object.keys(problems).length) throw errors.validation(problems);
      for (const flag of [...EVENT_FLAGS, 'vulnerability_events'] as const) {
        if (req.input[flag] === undefined) continue;
        if (flag === 'vulnerability_events') integration.vulnerability_events = Boolean(bool(req.input[flag]));
        else integration.events[flag] = Boolean(bool(req.input[flag]));
      }
      integration.properties = properties;
      integration.inherited = Boolean(bool(req.input.use_inherited_settings));
      integration.updated_at = now;
      if (!integrationTable(req.db).includes(integration)) integrationTable(req.db).push(integration);
      return ok(present(integration, true));
    });

    // Disabling resets the settings: the integration is gone until it is set up again.
    api.delete('/groups/:id/integrations/:slug', (req) => {
      const group = groupFor(req, Role.maintainer);
      kindOf(req);
      const integration = find(req, group);
      if (!integration) throw errors.notFound('Integration');
      integrationTable(req.db).splice(integrationTable(req.db).indexOf(integration), 1);
      return noContent();
    });
  },

  seed(db, { now }) {
    const at = now.toISOString();
    integrationTable(db).push({
      id: db.nextId('integrations'), group_id: findGroup(db, 'acme').id, slug: 'bugzilla', created_at: at, updated_at: at, inherited: false,
      events: Object.fromEntries(EVENT_FLAGS.map((flag) => [flag, true])), vulnerability_events: false,
      properties: { new_issue_url: 'https://bugs.acme.example.com/enter_bug.cgi', issues_url: 'https://bugs.acme.example.com/show_bug.cgi?id=:id', project_url: 'https://bugs.acme.example.com' },
    });
  },
};
