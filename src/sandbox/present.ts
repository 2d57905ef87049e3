import type { Db } from './db.js';
import { groups, type Group, type Project, type User } from './model.js';

/** JSON views of core records, shared by the route modules. */

export function presentUserBasic(user: User, rootUrl: string): Record<string, unknown> {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.state,
    locked: false,
    avatar_url: `${rootUrl}/uploads/-/system/user/avatar/${user.id}/avatar.png`,
    web_url: `${rootUrl}/${user.username}`,
  };
}

/**
 * The public view of a user record (what any signed-in user sees); routes/users.ts adds the private fields. A plain
 * literal, not a spread of presentUserBasic: see presentFullUser for why (speed of large lists).
 */
export function presentPublicUser(user: User, rootUrl: string): Record<string, unknown> {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.state,
    locked: false,
    avatar_url: `${rootUrl}/uploads/-/system/user/avatar/${user.id}/avatar.png`,
    web_url: `${rootUrl}/${user.username}`,
    created_at: user.created_at,
    bio: '',
    bot: user.bot,
    location: '',
    public_email: (user.public_email as string | undefined) ?? null,
    skype: '',
    linkedin: '',
    twitter: '',
    discord: '',
    website_url: '',
    organization: '',
    job_title: '',
    pronouns: null,
    work_information: null,
    followers: 0,
    following: 0,
    local_time: null,
    is_followed: false,
  };
}

export function presentGroup(group: Group, rootUrl: string): Record<string, unknown> {
  return {
    id: group.id,
    name: group.name,
    path: group.path,
    full_path: group.full_path,
    full_name: group.name,
    parent_id: group.parent_id,
    visibility: group.visibility,
    web_url: `${rootUrl}/groups/${group.full_path}`,
    created_at: group.created_at,
  };
}

export function presentProject(project: Project, db: Db, rootUrl: string): Record<string, unknown> {
  const namespace = groups(db).find((g) => g.id === project.namespace_id);
  return {
    id: project.id,
    name: project.name,
    name_with_namespace: `${namespace?.name ?? ''} / ${project.name}`,
    path: project.path,
    path_with_namespace: project.path_with_namespace,
    description: project.description,
    default_branch: project.default_branch,
    visibility: project.visibility,
    web_url: `${rootUrl}/${project.path_with_namespace}`,
    http_url_to_repo: `${rootUrl}/${project.path_with_namespace}.git`,
    namespace: namespace ? { id: namespace.id, name: namespace.name, path: namespace.path, kind: 'group', full_path: namespace.full_path } : null,
    repository_storage: project.repository_storage,
    created_at: project.created_at,
  };
}
