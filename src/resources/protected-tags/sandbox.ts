import { findProject, projectFor, projectRole, Role } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { created, errors, HttpError, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { groups, users, type Project, type CreateAccess, type ProtectedTag, protectedTagTable } from '../../sandbox/model.js';
import { paginate } from '../../sandbox/pagination.js';
import { deployKeysOf } from '../../sandbox/protection.js';
import { sshKeyTable } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { protectedTags as declared } from './resource.js';

const LEVEL_DESCRIPTIONS: Record<number, string> = { 0: 'No one', 30: 'Developers + Maintainers', 40: 'Maintainers' };

function describe(db: Db, access: CreateAccess): string {
  if (access.user_id !== undefined) return users(db).find((u) => u.id === access.user_id)?.name ?? '';
  if (access.group_id !== undefined) return groups(db).find((g) => g.id === access.group_id)?.name ?? '';
  if (access.deploy_key_id !== undefined) return sshKeyTable(db).find((k) => k.id === access.deploy_key_id)?.title ?? '';
  return LEVEL_DESCRIPTIONS[access.access_level] ?? String(access.access_level);
}

function present(req: SandboxRequest, tag: ProtectedTag): Record<string, unknown> {
  return {
    name: tag.name,
    create_access_levels: tag.create_access_levels.map((access) => ({
      id: access.id,
      access_level: access.access_level,
      access_level_description: describe(req.db, access),
      // The enterprise edition names the user or group of every entry; deploy_key_id only on deploy key entries.
      ...(req.tier === 'free' ? {} : { user_id: access.user_id ?? null, group_id: access.group_id ?? null }),
      ...(access.deploy_key_id !== undefined ? { deploy_key_id: access.deploy_key_id } : {}),
    })),
  };
}

function findTag(req: SandboxRequest, project: Project): ProtectedTag {
  const tag = protectedTagTable(req.db).find((t) => t.project_id === project.id && t.name === req.params.name);
  if (!tag) throw errors.notFound();
  return tag;
}

/** `allowed_to_create` entries (Premium): each names a user, a group, a deploy key or an access level. */
function allowedEntries(req: SandboxRequest, project: Project, problems: string[]): CreateAccess[] {
  const raw = req.input.allowed_to_create;
  if (raw === undefined || req.tier === 'free') return []; // the free edition does not know the parameter
  if (!Array.isArray(raw)) throw errors.invalid('allowed_to_create');
  return raw.map((item: Record<string, unknown>): CreateAccess => {
    const keys = Object.keys(item ?? {}).filter((k) => ['user_id', 'group_id', 'deploy_key_id', 'access_level'].includes(k));
    if (keys.length !== 1 || !Number.isInteger(Number(item[keys[0]]))) throw errors.invalid('allowed_to_create');
    const value = Number(item[keys[0]]);
    const id = 0; // numbered once duplicates are gone
    if (keys[0] === 'access_level') {
      if (!(value in LEVEL_DESCRIPTIONS)) throw errors.invalid('allowed_to_create[access_level]');
      return { id, access_level: value };
    }
    if (keys[0] === 'user_id') {
      const user = users(req.db).find((u) => u.id === value);
      if (!user || projectRole(req.db, user, project) === 0) problems.push('Create access levels user is not a member of the project');
      return { id, access_level: Role.maintainer, user_id: value };
    }
    if (keys[0] === 'group_id') {
      // Groups need the project shared with them; the sandbox has no project sharing, so none qualifies.
      problems.push('Create access levels group does not have access to the project');
      return { id, access_level: Role.maintainer, group_id: value };
    }
    if (!deployKeysOf(req.db, project.id).some((k) => k.id === value)) problems.push('Create access levels deploy key is not enabled for the project');
    return { id, access_level: Role.maintainer, deploy_key_id: value };
  });
}

/** Each role, user, group and deploy key once, as the service stores them. */
function uniqueEntries(entries: CreateAccess[]): CreateAccess[] {
  const seen = new Set<string>();
  return entries.filter((entry) => {
    const key = entry.user_id !== undefined ? `user:${entry.user_id}` : entry.group_id !== undefined ? `group:${entry.group_id}`
      : entry.deploy_key_id !== undefined ? `key:${entry.deploy_key_id}` : `role:${entry.access_level}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export const protectedTags: SandboxModule = {
  routes(api) {
    api.route(declared.routes.list, (req) => {
      const project = projectFor(req, Role.maintainer);
      return paginate(req, protectedTagTable(req.db).filter((t) => t.project_id === project.id), { present: (t) => present(req, t) });
    });

    api.route(declared.routes.get, (req) => ok(present(req, findTag(req, projectFor(req, Role.maintainer)))));

    api.route(declared.routes.create, (req) => {
      const project = projectFor(req, Role.maintainer);
      const name = String(required(req, 'name'));
      const level = req.input.create_access_level === undefined ? Role.maintainer : Number(req.input.create_access_level);
      if (!(level in LEVEL_DESCRIPTIONS)) throw errors.invalid('create_access_level');
      const problems: string[] = [];
      if (protectedTagTable(req.db).some((t) => t.project_id === project.id && t.name === name)) problems.push('Name has already been taken');
      const allowed = allowedEntries(req, project, problems);
      // The default Maintainer level applies only when allowed_to_create names nothing but deploy keys.
      const useLevel = req.input.create_access_level !== undefined || allowed.every((entry) => entry.deploy_key_id !== undefined);
      const entries = uniqueEntries([...(useLevel ? [{ id: 0, access_level: level }] : []), ...allowed]);
      for (const entry of entries) entry.id = req.db.nextId('protected_tag_access');
      // Creation failures are 422 with an array of full messages (api-facts §1.8).
      if (problems.length) throw new HttpError(422, { message: problems });
      const tag: ProtectedTag = { id: req.db.nextId('protected_tags'), project_id: project.id, name, create_access_levels: entries };
      protectedTagTable(req.db).push(tag);
      return created(present(req, tag));
    });

    api.route(declared.routes.delete, (req) => {
      const tag = findTag(req, projectFor(req, Role.maintainer));
      protectedTagTable(req.db).splice(protectedTagTable(req.db).indexOf(tag), 1);
      return noContent();
    });
  },

  seed(db) {
    const project = findProject(db, 'acme/api');
    protectedTagTable(db).push({
      id: db.nextId('protected_tags'),
      project_id: project.id,
      name: 'release-*',
      create_access_levels: [{ id: db.nextId('protected_tag_access'), access_level: Role.maintainer }],
    });
  },
};
