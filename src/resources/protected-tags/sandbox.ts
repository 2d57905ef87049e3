import { findProject, projectRole, Role } from '../../sandbox/auth.js';
import { crudModule } from '../../sandbox/crud.js';
import { errors, HttpError, type SandboxRequest } from '../../sandbox/http.js';
import { protectedTagTable, users, type CreateAccess, type Project, type ProtectedTag } from '../../sandbox/model.js';
import { deployKeysOf, presentEntry, TAG_WORDS, uniqueEntries } from '../../sandbox/protection.js';
import { protectedTags as declared } from './resource.js';

/**
 * Protected tags of a project, served from their declaration: who may create matching tags is a list of access
 * entries (a role, and on Premium users, groups and deploy keys), checked and numbered on create; a taken name is 422.
 */

const LEVELS = TAG_WORDS.levels;

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
      if (!(value in LEVELS)) throw errors.invalid('allowed_to_create[access_level]');
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

export const protectedTags = crudModule<ProtectedTag>(declared, {
  notFound: '',
  validate(tag, req, _previous, { parent }) {
    const project = parent as Project;
    const level = req.input.create_access_level === undefined ? Role.maintainer : Number(req.input.create_access_level);
    if (!(level in LEVELS)) throw errors.invalid('create_access_level');
    const problems: string[] = [];
    if (protectedTagTable(req.db).some((t) => t.project_id === project.id && t.name === tag.name)) problems.push('Name has already been taken');
    const allowed = allowedEntries(req, project, problems);
    // The default Maintainer level applies only when allowed_to_create names nothing but deploy keys.
    const useLevel = req.input.create_access_level !== undefined || allowed.every((entry) => entry.deploy_key_id !== undefined);
    tag.create_access_levels = uniqueEntries([...(useLevel ? [{ id: 0, access_level: level }] : []), ...allowed]);
    for (const entry of tag.create_access_levels) entry.id = req.db.nextId('protected_tag_access');
    // Creation failures are 422 with an array of full messages.
    if (problems.length) throw new HttpError(422, { message: problems });
  },
  computed: (tag, req) => ({ create_access_levels: tag.create_access_levels.map((entry) => presentEntry(req.db, entry, req.tier, TAG_WORDS)) }),
  seed(db, _context, insert) {
    insert(findProject(db, 'acme/api').id, { name: 'release-*', create_access_levels: [{ id: db.nextId('protected_tag_access'), access_level: Role.maintainer }] });
  },
});
