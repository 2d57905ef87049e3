import { findGroup, projectFor, Role } from '../auth.js';
import { defineTable, type Db } from '../db.js';
import { errors, HttpError, noContent, ok, created, required, type SandboxRequest } from '../http.js';
import { groups, repositories, type Group, type Project } from '../model.js';
import { paginate } from '../pagination.js';
import type { SandboxModule } from '../module.js';

export interface Badge {
  id: number;
  kind: 'project' | 'group';
  /** Project id or group id, by kind. */
  source_id: number;
  name: string | null;
  link_url: string;
  image_url: string;
}

export const badgeTable = defineTable<Badge>('badges');

/** Domain the sandbox pretends hosts Pages sites (the `%{gitlab_pages_domain}` placeholder). */
const PAGES_DOMAIN = 'pages.sandbox.test';

/** The groups a project's group badges come from: its namespace and every ancestor. */
function ancestorGroups(db: Db, project: Project): Group[] {
  const chain: Group[] = [];
  let current = groups(db).find((g) => g.id === project.namespace_id);
  while (current) {
    chain.push(current);
    const parentId = current.parent_id;
    current = parentId === null ? undefined : groups(db).find((g) => g.id === parentId);
  }
  return chain;
}

/** Placeholder values of a project; the spec's `%{service_…}` names and the real `%{gitlab_…}` names both work. */
function placeholders(req: SandboxRequest, project: Project): Record<string, string> {
  const chain = ancestorGroups(req.db, project);
  const repo = repositories(req.db).find((r) => r.project_id === project.id);
  const tags = Object.keys(repo?.tags ?? {});
  const server = new URL(req.rootUrl).hostname;
  return {
    project_path: project.path_with_namespace,
    project_title: project.name,
    project_name: project.path,
    project_id: String(project.id),
    project_namespace: chain[0]?.full_path ?? '',
    group_name: chain[chain.length - 1]?.full_path ?? '',
    gitlab_server: server,
    service_server: server,
    gitlab_pages_domain: PAGES_DOMAIN,
    service_pages_domain: PAGES_DOMAIN,
    default_branch: project.default_branch,
    commit_sha: repo?.branches[project.default_branch] ?? '',
    latest_tag: tags[tags.length - 1] ?? '',
  };
}

export function renderBadgeUrl(url: string, values: Record<string, string>): string {
  return url.replace(/%\{([a-z_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}

function presentBadge(req: SandboxRequest, project: Project, badge: Badge): Record<string, unknown> {
  const values = placeholders(req, project);
  return {
    name: badge.name,
    id: badge.id,
    link_url: badge.link_url,
    image_url: badge.image_url,
    rendered_link_url: renderBadgeUrl(badge.link_url, values),
    rendered_image_url: renderBadgeUrl(badge.image_url, values),
    kind: badge.kind,
  };
}

/** Project badges plus the group badges of its ancestors, group badges first as the service lists them. */
function badgesOf(db: Db, project: Project): Badge[] {
  const groupIds = new Set(ancestorGroups(db, project).map((g) => g.id));
  return [
    ...badgeTable(db).filter((b) => b.kind === 'group' && groupIds.has(b.source_id)),
    ...badgeTable(db).filter((b) => b.kind === 'project' && b.source_id === project.id),
  ];
}

function findBadge(req: SandboxRequest, project: Project): Badge {
  const badge = badgesOf(req.db, project).find((b) => String(b.id) === req.params.badge_id);
  if (!badge) throw errors.notFound('Badge');
  return badge;
}

/** URLs are validated as written; placeholders are fine in the path and query but not as the host. */
function validateUrls(fields: { link_url?: string; image_url?: string }): void {
  const problems: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    let valid = false;
    try {
      const url = new URL(value);
      valid = (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && !url.hostname.includes('%');
    } catch {
      valid = false;
    }
    if (!valid) problems[key] = ['is blocked: URI is invalid'];
  }
  if (Object.keys(problems).length) throw errors.validation(problems);
}

function stringParam(req: SandboxRequest, name: string): string | undefined {
  const value = req.input[name];
  return value === undefined || value === null ? undefined : String(value);
}

export const badges: SandboxModule = {
  routes(api) {
    api.get('/projects/:id/badges', (req) => {
      const project = projectFor(req, Role.guest);
      const name = stringParam(req, 'name');
      const list = badgesOf(req.db, project).filter((b) => name === undefined || b.name === name);
      return paginate(req, list, { present: (b) => presentBadge(req, project, b) });
    });

    // Registered before /badges/:badge_id so that "render" is not taken for an id.
    api.get('/projects/:id/badges/render', (req) => {
      const project = projectFor(req, Role.maintainer);
      const link = String(required(req, 'link_url'));
      const image = String(required(req, 'image_url'));
      validateUrls({ link_url: link, image_url: image });
      const values = placeholders(req, project);
      return ok({ link_url: link, image_url: image, rendered_link_url: renderBadgeUrl(link, values), rendered_image_url: renderBadgeUrl(image, values) });
    });

    api.get('/projects/:id/badges/:badge_id', (req) => {
      const project = projectFor(req, Role.guest);
      return ok(presentBadge(req, project, findBadge(req, project)));
    });

    api.post('/projects/:id/badges', (req) => {
      const project = projectFor(req, Role.maintainer);
      const badge: Badge = {
        id: 0,
        kind: 'project',
        source_id: project.id,
        link_url: String(required(req, 'link_url')),
        image_url: String(required(req, 'image_url')),
        name: stringParam(req, 'name') ?? null,
      };
      validateUrls({ link_url: badge.link_url, image_url: badge.image_url });
      badge.id = req.db.nextId('badges');
      badgeTable(req.db).push(badge);
      return created(presentBadge(req, project, badge));
    });

    api.put('/projects/:id/badges/:badge_id', (req) => {
      const project = projectFor(req, Role.maintainer);
      const badge = findBadge(req, project);
      const changes = { link_url: stringParam(req, 'link_url'), image_url: stringParam(req, 'image_url') };
      validateUrls(changes);
      if (changes.link_url !== undefined) badge.link_url = changes.link_url;
      if (changes.image_url !== undefined) badge.image_url = changes.image_url;
      const name = stringParam(req, 'name');
      if (name !== undefined) badge.name = name;
      return ok(presentBadge(req, project, badge));
    });

    api.delete('/projects/:id/badges/:badge_id', (req) => {
      const project = projectFor(req, Role.maintainer);
      const badge = findBadge(req, project);
      if (badge.kind === 'group') throw new HttpError(403, { error: 'To delete a Group badge please use the Group endpoint' });
      badgeTable(req.db).splice(badgeTable(req.db).indexOf(badge), 1);
      return noContent();
    });
  },

  seed(db) {
    const acme = findGroup(db, 'acme');
    badgeTable(db).push({
      id: db.nextId('badges'),
      kind: 'group',
      source_id: acme.id,
      name: 'pipeline',
      link_url: 'https://ci.acme.example.com/%{project_path}/-/pipelines?ref=%{default_branch}',
      image_url: 'https://ci.acme.example.com/%{project_path}/badges/%{default_branch}/pipeline.svg',
    });
  },
};
