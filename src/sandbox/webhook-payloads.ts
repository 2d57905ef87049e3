import type { HookEventFlag } from '../resources/hooks/resource.js';
import { groups, issues, mergeRequests, type Commit, type Issue, type MergeRequest, type Note, type Project, type User } from './model.js';
import { diffSnapshots } from './git/diff.js';
import { findCommit, parentsOf, snapshotOf, ZERO_SHA, type PushEvent } from './git/repository.js';
import type { HookEnv } from './webhooks.js';

/** Webhook payloads as the service sends them (push payload of the spec; the others as the service documents them). */

const VISIBILITY_LEVEL = { private: 0, internal: 10, public: 20 } as const;

/** The named fields of a record, in the order named: the attributes a payload copies from it. */
const fieldsOf = <T extends object>(record: T, names: ReadonlyArray<keyof T & string>): Record<string, unknown> =>
  Object.fromEntries(names.map((name) => [name, record[name]]));

function namespaceName(env: HookEnv, project: Project): string {
  return groups(env.db).find((g) => g.id === project.namespace_id)?.name ?? '';
}

export function projectPayload(env: HookEnv, project: Project): Record<string, unknown> {
  const web = `${env.rootUrl}/${project.path_with_namespace}`;
  const host = new URL(env.rootUrl).hostname;
  const ssh = `git@${host}:${project.path_with_namespace}.git`;
  return {
    ...fieldsOf(project, ['id', 'name', 'description']),
    web_url: web,
    avatar_url: null,
    git_ssh_url: ssh,
    git_http_url: `${web}.git`,
    namespace: namespaceName(env, project),
    visibility_level: VISIBILITY_LEVEL[project.visibility],
    path_with_namespace: project.path_with_namespace,
    default_branch: project.default_branch,
    ci_config_path: null,
    homepage: web,
    url: ssh,
    ssh_url: ssh,
    http_url: `${web}.git`,
  };
}

/** The `repository` of a payload: these of its project's fields. */
function repositoryPayload(env: HookEnv, project: Project): Record<string, unknown> {
  const { name, url, description, homepage, git_http_url, git_ssh_url, visibility_level } = projectPayload(env, project);
  return { name, url, description, homepage, git_http_url, git_ssh_url, visibility_level };
}

const avatar = (env: HookEnv, user: User): string => `${env.rootUrl}/uploads/-/system/user/avatar/${user.id}/avatar.png`;

function userPayload(env: HookEnv, user: User): Record<string, unknown> {
  return { id: user.id, name: user.name, username: user.username, avatar_url: avatar(env, user), email: user.email };
}

/** Paths a commit added, changed and removed against its first parent (a rename is a removal and an addition). */
function changedPaths(env: HookEnv, commit: Commit): { added: string[]; modified: string[]; removed: string[] } {
  const [parent] = parentsOf(env.db, commit, true);
  const changes = diffSnapshots(env.db, snapshotOf(env.db, parent), snapshotOf(env.db, commit));
  return {
    added: changes.filter((c) => c.new_file || c.renamed_file).map((c) => c.new_path),
    modified: changes.filter((c) => !c.new_file && !c.deleted_file && !c.renamed_file).map((c) => c.new_path),
    removed: changes.filter((c) => c.deleted_file || c.renamed_file).map((c) => c.old_path),
  };
}

/** What a push payload describes: a ref that moved, and the commits the move added (oldest first). */
export type Push = Pick<PushEvent, 'project' | 'ref' | 'before' | 'after' | 'commits' | 'user'>;

/** Only the newest 20 commits are described; total_commits_count says how many there were. */
const PUSH_COMMIT_LIMIT = 20;

export function pushPayload(env: HookEnv, push: Push): Record<string, unknown> {
  const { project, user } = push;
  const tag = push.ref.startsWith('refs/tags/');
  const head = push.after === ZERO_SHA ? undefined : findCommit(env.db, project.id, push.after);
  const branch = push.ref.replace(/^refs\/(heads|tags)\//, '');
  return {
    object_kind: tag ? 'tag_push' : 'push',
    event_name: tag ? 'tag_push' : 'push',
    before: push.before,
    after: push.after,
    ref: push.ref,
    ref_protected: !tag && branch === project.default_branch,
    checkout_sha: head?.id ?? null,
    message: null,
    user_id: user?.id ?? null,
    user_name: user?.name ?? null,
    user_username: user?.username ?? null,
    user_email: user?.email ?? null,
    user_avatar: user ? avatar(env, user) : null,
    project_id: project.id,
    project: projectPayload(env, project),
    commits: push.commits.slice(-PUSH_COMMIT_LIMIT).map((commit) => ({
      ...fieldsOf(commit, ['id', 'message', 'title']),
      timestamp: commit.committed_date,
      url: `${env.rootUrl}/${project.path_with_namespace}/-/commit/${commit.id}`,
      author: { name: commit.author_name, email: commit.author_email },
      ...changedPaths(env, commit),
    })),
    total_commits_count: push.commits.length,
    push_options: {},
    repository: repositoryPayload(env, project),
  };
}

/** The payload of an event on an issue or a merge request (`kind`): who, where, the object's attributes. */
function objectPayload(env: HookEnv, project: Project, kind: 'issue' | 'merge_request', attributes: Record<string, unknown>, user: User): Record<string, unknown> {
  return {
    object_kind: kind,
    event_type: kind,
    user: userPayload(env, user),
    project: projectPayload(env, project),
    object_attributes: attributes,
    labels: [],
    changes: {},
    repository: repositoryPayload(env, project),
  };
}

export function mergeRequestPayload(env: HookEnv, project: Project, mr: MergeRequest, action: string, user: User): Record<string, unknown> {
  return objectPayload(env, project, 'merge_request', {
    ...fieldsOf(mr, ['id', 'iid', 'title', 'description', 'state', 'source_branch', 'target_branch']),
    source_project_id: project.id,
    target_project_id: project.id,
    ...fieldsOf(mr, ['author_id', 'created_at', 'updated_at', 'merge_status', 'detailed_merge_status']),
    url: `${env.rootUrl}/${project.path_with_namespace}/-/merge_requests/${mr.iid}`,
    last_commit: { id: mr.sha },
    action,
  }, user);
}

function issueAttributes(env: HookEnv, project: Project, issue: Issue): Record<string, unknown> {
  return {
    ...fieldsOf(issue, ['id', 'iid', 'title', 'description', 'state', 'author_id']),
    project_id: project.id,
    ...fieldsOf(issue, ['created_at', 'updated_at']),
    url: `${env.rootUrl}/${project.path_with_namespace}/-/issues/${issue.iid}`,
  };
}

export function issuePayload(env: HookEnv, project: Project, issue: Issue, action: string, user: User): Record<string, unknown> {
  return objectPayload(env, project, 'issue', { ...issueAttributes(env, project, issue), action }, user);
}

export function notePayload(env: HookEnv, project: Project, note: Note, user: User): Record<string, unknown> {
  const noteableType = note.noteable_type;
  const target: Record<string, unknown> = {};
  if (noteableType === 'Issue') {
    const issue = issues(env.db).find((i) => i.id === note.noteable_id);
    if (issue) target.issue = issueAttributes(env, project, issue);
  } else if (noteableType === 'MergeRequest') {
    const mr = mergeRequests(env.db).find((m) => m.id === note.noteable_id);
    if (mr) target.merge_request = (mergeRequestPayload(env, project, mr, 'update', user).object_attributes as Record<string, unknown>);
  } else {
    target.snippet = { id: note.noteable_id };
  }
  const path = noteableType === 'Issue' ? `issues/${note.noteable_iid}` : noteableType === 'MergeRequest' ? `merge_requests/${note.noteable_iid}` : `snippets/${note.noteable_id}`;
  return {
    object_kind: 'note',
    event_type: note.internal ? 'confidential_note' : 'note',
    user: userPayload(env, user),
    project_id: project.id,
    project: projectPayload(env, project),
    object_attributes: {
      id: note.id,
      note: note.body,
      ...fieldsOf(note, ['noteable_type', 'author_id', 'created_at', 'updated_at']),
      project_id: project.id,
      ...fieldsOf(note, ['noteable_id', 'system', 'internal']),
      url: `${env.rootUrl}/${project.path_with_namespace}/-/${path}#note_${note.id}`,
    },
    repository: repositoryPayload(env, project),
    ...target,
  };
}

/** The event flag a note is delivered under. */
export const noteEvent = (note: Note): HookEventFlag => (note.internal ? 'confidential_note_events' : 'note_events');
