import { badges as resource } from './resource.js';
import { findGroup, projectFor, Role } from '../../sandbox/auth.js';
import { crudModule, type Crud } from '../../sandbox/crud.js';
import type { Db } from '../../sandbox/db.js';
import { renderBadge, renderedBadgeUrls, validateBadgeUrls } from '../../sandbox/badges.js';
import { HttpError, type SandboxRequest } from '../../sandbox/http.js';
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

export const badges: Crud<StoredBadge> = crudModule<StoredBadge>(resource, {
  /** Group badges of the project's groups first, then its own, as the service lists them. */
  visible(db, project) {
    const groupIds = new Set(ancestorGroups(db, project as Project).map((g) => g.id));
    return [...badges.table(db).filter((b) => b.group_id !== undefined && groupIds.has(b.group_id)), ...badges.table(db).filter((b) => b.project_id === project.id)];
  },
  validate: (badge) => validateBadgeUrls({ link_url: badge.link_url, image_url: badge.image_url }),
  computed(badge, req, project) {
    return { ...renderedBadgeUrls(badge.link_url, badge.image_url, placeholders(req, project as Project)), kind: badge.group_id === undefined ? 'project' : 'group' };
  },
  beforeDelete(badge) {
    if (badge.group_id !== undefined) throw new HttpError(403, { error: 'To delete a Group badge please use the Group endpoint' });
  },
  routes(api) {
    api.route(resource.routes.render, (req) => renderBadge(req, placeholders(req, projectFor(req, Role.maintainer))));
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
