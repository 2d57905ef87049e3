import { badges as resource } from './resource.js';
import { findGroup, projectFor, Role } from '../../sandbox/auth.js';
import { crudModule, type Crud } from '../../sandbox/crud.js';
import type { Db } from '../../sandbox/db.js';
import { validateBadgeUrls } from '../../sandbox/badges.js';
import { HttpError, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { groupChain, projectGroup } from '../../sandbox/hierarchy.js';
import { repositories, type Group, type Project, type StoredBadge } from '../../sandbox/model.js';

/** Domain the sandbox pretends hosts Pages sites (the `%{gitlab_pages_domain}` placeholder). */
const PAGES_DOMAIN = 'pages.sandbox.test';

/** The groups a project's group badges come from: its group and every ancestor. */
const ancestorGroups = (db: Db, project: Project): Group[] => groupChain(db, projectGroup(db, project)?.id ?? null);

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

export const badges: Crud<StoredBadge> = crudModule<StoredBadge>(resource, {
  /** Group badges of the project's groups first, then its own, as the service lists them. */
  visible(db, project) {
    const groupIds = new Set(ancestorGroups(db, project as Project).map((g) => g.id));
    return [...badges.table(db).filter((b) => b.group_id !== undefined && groupIds.has(b.group_id)), ...badges.table(db).filter((b) => b.project_id === project.id)];
  },
  validate: (badge) => validateBadgeUrls({ link_url: badge.link_url, image_url: badge.image_url }),
  computed(badge, req, project) {
    const values = placeholders(req, project as Project);
    return { rendered_link_url: renderBadgeUrl(badge.link_url, values), rendered_image_url: renderBadgeUrl(badge.image_url, values), kind: badge.group_id === undefined ? 'project' : 'group' };
  },
  beforeDelete(badge) {
    if (badge.group_id !== undefined) throw new HttpError(403, { error: 'To delete a Group badge please use the Group endpoint' });
  },
  routes(api) {
    api.route(resource.routes.render, (req) => {
      const project = projectFor(req, Role.maintainer);
      const link = String(required(req, 'link_url'));
      const image = String(required(req, 'image_url'));
      validateBadgeUrls({ link_url: link, image_url: image });
      const values = placeholders(req, project);
      return ok({ link_url: link, image_url: image, rendered_link_url: renderBadgeUrl(link, values), rendered_image_url: renderBadgeUrl(image, values) });
    });
  },
  seed(db) {
    badges.table(db).push({
      id: db.nextId('badges'),
      group_id: findGroup(db, 'acme').id,
      name: 'pipeline',
      link_url: 'https://ci.acme.example.com/%{project_path}/-/pipelines?ref=%{default_branch}',
      image_url: 'https://ci.acme.example.com/%{project_path}/badges/%{default_branch}/pipeline.svg',
    });
  },
});
