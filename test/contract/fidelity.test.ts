import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { declarationFolders, declarationModule } from '../helpers/resources.js';
import { f } from '../../src/api/fields.js';
import { defineResource, placements, presentedFields, type MultiParentDef, type Placement, type ResourceDef } from '../../src/api/resource.js';
import { USER_FIELDS, USER_PROFILE_FIELDS, users } from '../../src/resources/users/resource.js';

/**
 * Fidelity, not only self-consistency: the CLI and the sandbox read the same declaration, so a field the service
 * does not have would pass both. Here every declaration's routes and presented fields are held against what the
 * service's documentation records (fixtures/service.json, taken from the API spec and the notes on the real
 * instance, and where they are silent from the GitLab API docs, each entry naming its source): a route or a field it
 * does not record fails.
 */
const service = JSON.parse(readFileSync(new URL('./fixtures/service.json', import.meta.url), 'utf8')) as {
  routes: string[];
  fields: Record<string, { source: string; fields: string[] }>;
};
const recordedRoutes = new Set(service.routes);

/** Routes the documents leave out ("method and path: not shown") that the sandbox and clients agree on, with why. */
const ROUTES_NOT_RECORDED: Record<string, string> = {
  'GET /projects/{}/jobs/{}': 'a job, read before its artifacts (python-gitlab and gitbeaker read it)',
  'GET /projects/{}/pipelines': 'the pipelines of a project, to find the jobs whose artifacts to fetch',
  'GET /projects/{}/pipelines/{}/jobs': 'the jobs of a pipeline, to find the one whose artifacts to fetch',
  'GET /projects/{}/jobs/artifacts/{}/download': 'artifacts of the latest job of a ref (gitbeaker)',
  'GET /projects/{}/jobs/artifacts/{}/raw/{}': 'one artifact file of the latest job of a ref (gitbeaker)',
  'GET /projects/{}/merge_requests/{}/notes': 'notes of a merge request: the routes of issue notes under merge_requests',
  'GET /projects/{}/merge_requests/{}/notes/{}': 'as above',
  'POST /projects/{}/merge_requests/{}/notes': 'as above',
  'PUT /projects/{}/merge_requests/{}/notes/{}': 'as above',
  'DELETE /projects/{}/merge_requests/{}/notes/{}': 'as above',
  'PUT /projects/{}/snippets/{}/notes/{}': 'snippet notes: the documents record list, get, create and delete; update as for issues',
  'GET /groups/{}/badges': 'group badges: the documents describe project badges; the group routes are the same under /groups (python-gitlab GroupBadgeManager)',
  'GET /groups/{}/badges/{}': 'as above',
  'POST /groups/{}/badges': 'as above',
  'PUT /groups/{}/badges/{}': 'as above',
  'DELETE /groups/{}/badges/{}': 'as above',
  'GET /groups/{}/badges/render': 'as above',
  'GET /projects/{}/access_tokens': 'project access tokens: "the same shape exists for projects" (the group routes under /projects)',
  'POST /projects/{}/access_tokens': 'as above',
  'GET /personal_access_tokens': 'the list of personal tokens (python-gitlab PersonalAccessTokenManager)',
  'POST /users/{}/personal_access_tokens': "an administrator creates a user's personal token (python-gitlab UserPersonalAccessTokenManager)",
  'POST /admin/token': 'what any token is, from its value (GitLab API docs, Token information API; administrators)',
  'DELETE /admin/token': 'as above: revokes any token by its value, sent in the body',
  'GET /users/{}/impersonation_tokens': "a user's impersonation tokens (GitLab API docs, Users; python-gitlab UserImpersonationTokenManager)",
  'GET /users/{}/impersonation_tokens/{}': 'as above',
  'POST /users/{}/impersonation_tokens': 'as above',
  'DELETE /users/{}/impersonation_tokens/{}': 'as above',
  'GET /service_accounts': "the instance's service accounts (GitLab API docs, Service accounts API; python-gitlab ServiceAccountManager)",
  'POST /service_accounts': 'as above',
  'PATCH /service_accounts/{}': 'as above (GitLab 18.2)',
  'GET /groups/{}/service_accounts': "a top-level group's service accounts (GitLab API docs, Group service accounts API; python-gitlab GroupServiceAccountManager)",
  'POST /groups/{}/service_accounts': 'as above',
  'PATCH /groups/{}/service_accounts/{}': 'as above (GitLab 17.10)',
  'DELETE /groups/{}/service_accounts/{}': 'as above, with hard_delete',
  'GET /groups/{}/service_accounts/{}/personal_access_tokens': "a group's service account's personal tokens (GitLab API docs, Group service accounts API, 17.11)",
  'POST /groups/{}/service_accounts/{}/personal_access_tokens': 'as above',
  'DELETE /groups/{}/service_accounts/{}/personal_access_tokens/{}': 'as above',
  'POST /groups/{}/service_accounts/{}/personal_access_tokens/{}/rotate': 'as above (a week unless expires_at, as every rotation)',
  'GET /users/{}/memberships': "a user's direct memberships of groups and projects (GitLab API docs, Users; python-gitlab UserMembershipManager)",
  'GET /projects/{}/integrations': "a project's integrations: the group routes under /projects (the sandbox serves both; python-gitlab ProjectIntegrationManager)",
  'GET /projects/{}/integrations/{}': 'as above',
  'PUT /projects/{}/integrations/{}': 'as above',
  'DELETE /projects/{}/integrations/{}': 'as above',
  'GET /projects/{}': 'one project (python-gitlab ProjectManager.get)',
  'GET /groups/{}/projects': "a group's projects (python-gitlab GroupProjectManager)",
  'GET /users/{}/projects': "a user's projects (python-gitlab UserProjectManager)",
  'GET /user': 'the user the token belongs to (python-gitlab CurrentUserManager; the documents use it without a section)',
  'GET /version': 'the version and revision of the instance (GitLab API docs, Version; python-gitlab Gitlab.version)',
  'GET /metadata': 'the same record under its newer name (GitLab API docs, Metadata; gitbeaker Metadata.show)',
  'GET /sidekiq/process_metrics': 'the background job processes (GitLab API docs, Sidekiq Metrics; python-gitlab SidekiqManager.process_metrics, which its functional tests wait on)',
  'GET /groups': 'the groups of the instance (python-gitlab GroupManager)',
  'GET /groups/{}': 'one group (python-gitlab GroupManager.get)',
  'GET /groups/{}/subgroups': "a group's subgroups (python-gitlab GroupSubgroupManager)",
  'GET /groups/{}/descendant_groups': "a group's descendants (python-gitlab GroupDescendantGroupManager)",
  'POST /snippets/{}/repository_storage_moves': 'scheduling one move: "Snippets and groups are the same" as projects, in words',
  'POST /groups/{}/repository_storage_moves': 'as above',
  'GET /projects/{}/issues/{}/discussions': 'the threads of an issue (python-gitlab ProjectIssueDiscussionManager)',
  'GET /projects/{}/snippets/{}/discussions': 'the threads of a snippet (python-gitlab ProjectSnippetDiscussionManager)',
  'GET /projects/{}/merge_requests/{}/discussions': 'the threads of a merge request (python-gitlab ProjectMergeRequestDiscussionManager)',
  'GET /projects/{}/repository/branches': 'branches (GitLab API docs, Branches; python-gitlab ProjectBranchManager)',
  'GET /projects/{}/repository/branches/{}': 'as above',
  'POST /projects/{}/repository/branches': 'as above',
  'DELETE /projects/{}/repository/branches/{}': 'as above',
  'DELETE /projects/{}/repository/merged_branches': 'as above (delete_merged_branches)',
  'GET /projects/{}/repository/tags': 'tags (GitLab API docs, Tags; python-gitlab ProjectTagManager)',
  'GET /projects/{}/repository/tags/{}': 'as above',
  'POST /projects/{}/repository/tags': 'as above',
  'DELETE /projects/{}/repository/tags/{}': 'as above',
  'GET /projects/{}/deploy_keys': 'deploy keys (GitLab API docs, Deploy keys; python-gitlab ProjectKeyManager)',
  'GET /projects/{}/deploy_keys/{}': 'as above',
  'POST /projects/{}/deploy_keys': 'as above',
  'PUT /projects/{}/deploy_keys/{}': 'as above',
  'DELETE /projects/{}/deploy_keys/{}': 'as above',
  'POST /projects/{}/deploy_keys/{}/enable': 'as above (ProjectKeyManager.enable)',
  'GET /projects/{}/repository/commits/{}/signature': 'GitLab API docs, Commits (python-gitlab ProjectCommit.signature)',
  'POST /projects/{}/repository/commits/{}/revert': 'as above (ProjectCommit.revert)',
  'GET /projects/{}/repository/commits/{}/diff': 'as above (ProjectCommit.diff)',
  'GET /projects/{}/repository/commits/{}/comments': 'as above (ProjectCommitCommentManager)',
  'POST /projects/{}/repository/commits/{}/comments': 'as above',
  'GET /projects/{}/repository/commits/{}/statuses': 'as above (ProjectCommitStatusManager)',
  'POST /projects/{}/statuses/{}': 'as above (ProjectCommitStatusManager.create)',
  ...Object.fromEntries(['/projects/{}', '/groups/{}', '/admin/ci'].flatMap((base, i) => ['GET /variables', 'GET /variables/{}', 'POST /variables', 'PUT /variables/{}', 'DELETE /variables/{}'].map((route, j) => {
    const [method, path] = route.split(' ');
    return [`${method} ${base}${path}`, i + j ? 'as above' : 'CI/CD variables of projects, groups and the instance (GitLab API docs, project-, group- and instance-level CI/CD variables; python-gitlab ProjectVariableManager, GroupVariableManager, VariableManager)'];
  }))),
  'POST /projects': 'create a project (GitLab API docs, Projects; python-gitlab ProjectManager.create)',
  'DELETE /projects/{}': 'delete a project, delayed on Premium and Ultimate (GitLab API docs, Projects; ProjectManager.delete)',
  'POST /projects/{}/archive': 'as above (Project.archive)',
  'POST /projects/{}/unarchive': 'as above (Project.unarchive)',
  'PUT /projects/{}/transfer': 'as above (Project.transfer)',
  'POST /projects/{}/restore': 'restore a project marked for deletion (GitLab API docs, Projects; Project.restore)',
  'POST /groups': 'create a group (GitLab API docs, Groups; python-gitlab GroupManager.create)',
  'PUT /groups/{}': 'as above (Group.save)',
  'DELETE /groups/{}': 'as above, delayed on Premium and Ultimate (GroupManager.delete)',
  'POST /groups/{}/restore': 'as above (Group.restore)',
  'GET /projects/{}/members': 'members (GitLab API docs, Group and project members; python-gitlab ProjectMemberManager)',
  'GET /projects/{}/members/{}': 'as above',
  'POST /projects/{}/members': 'as above',
  'PUT /projects/{}/members/{}': 'as above',
  'DELETE /projects/{}/members/{}': 'as above',
  'GET /projects/{}/members/all': 'as above, inherited and invited (ProjectMemberAllManager)',
  'GET /projects/{}/members/all/{}': 'as above',
  'POST /projects/{}/share': 'sharing with a group (GitLab API docs, Projects and Groups; Project.share)',
  'DELETE /projects/{}/share/{}': 'as above (unshare)',
  'GET /groups/{}/members': 'members (GitLab API docs, Group and project members; python-gitlab GroupMemberManager)',
  'GET /groups/{}/members/{}': 'as above',
  'POST /groups/{}/members': 'as above',
  'PUT /groups/{}/members/{}': 'as above',
  'DELETE /groups/{}/members/{}': 'as above',
  'GET /groups/{}/members/all': 'as above, inherited and invited (GroupMemberAllManager)',
  'GET /groups/{}/members/all/{}': 'as above',
  'GET /groups/{}/billable_members/{}/memberships': "a user's direct memberships in a top-level group's hierarchy, for its Owners (GitLab API docs, Group and project members: list memberships for a billable member of a group)",
  'POST /groups/{}/share': 'sharing with a group (GitLab API docs, Projects and Groups; Group.share)',
  'DELETE /groups/{}/share/{}': 'as above (unshare)',
  'GET /groups/{}/groups/shared': 'the groups a group was invited to (GitLab API docs, Groups: List shared groups; its direct members reach them)',
  'GET /groups/{}/invited_groups': 'the groups invited to a group (GitLab API docs, Groups: List invited groups)',
  'GET /projects/{}/invited_groups': "the groups invited to a project (GitLab API docs, Projects: List a project's invited groups)",
  'GET /groups/{}/projects/shared': 'the projects shared with a group (GitLab API docs, Groups: List shared projects; python-gitlab GroupProjectManager with shared)',
  'GET /projects/{}/merge_requests/{}/approvals': 'the approval state of a merge request (GitLab API docs, Merge request approvals; python-gitlab ProjectMergeRequestApprovalManager.get)',
  'GET /projects/{}/merge_requests/{}/approval_state': 'the state of each approval rule of a merge request (as above; python-gitlab ProjectMergeRequestApprovalStateManager)',
  'GET /projects/{}/merge_requests/{}/approval_rules': 'merge request approval rules (GitLab API docs, Merge request approvals; python-gitlab ProjectMergeRequestApprovalRuleManager)',
  'GET /projects/{}/merge_requests/{}/approval_rules/{}': 'as above',
  'POST /projects/{}/merge_requests/{}/approval_rules': 'as above',
  'PUT /projects/{}/merge_requests/{}/approval_rules/{}': 'as above',
  'DELETE /projects/{}/merge_requests/{}/approval_rules/{}': 'as above',
  'GET /audit_events': 'instance audit events (GitLab API docs, Audit events; python-gitlab AuditEventManager)',
  'GET /audit_events/{}': 'as above',
  'GET /groups/{}/audit_events': 'group audit events (as above; GroupAuditEventManager)',
  'GET /groups/{}/audit_events/{}': 'as above',
  'GET /projects/{}/audit_events': 'project audit events (as above; ProjectAuditEventManager)',
  'GET /projects/{}/audit_events/{}': 'as above',
  'GET /projects/{}/deploy_tokens': 'deploy tokens (GitLab API docs, Deploy tokens; python-gitlab ProjectDeployTokenManager)',
  'GET /projects/{}/deploy_tokens/{}': 'as above',
  'POST /projects/{}/deploy_tokens': 'as above',
  'DELETE /projects/{}/deploy_tokens/{}': 'as above',
  'GET /groups/{}/deploy_tokens': 'as above (GroupDeployTokenManager)',
  'GET /groups/{}/deploy_tokens/{}': 'as above',
  'POST /groups/{}/deploy_tokens': 'as above',
  'DELETE /groups/{}/deploy_tokens/{}': 'as above',
  'GET /deploy_tokens': 'as above (DeployTokenManager, administrators)',
  'GET /runners': 'runners (GitLab API docs, Runners; python-gitlab RunnerManager)',
  'GET /runners/all': 'as above (RunnerAllManager, administrators)',
  'GET /groups/{}/runners': 'as above (GroupRunnerManager)',
  'GET /projects/{}/runners': 'as above (ProjectRunnerManager)',
  'GET /projects/{}/repository/commits/{}/merge_requests': 'the merge requests a commit is in (GitLab API docs, Commits: List merge requests associated with a commit; python-gitlab ProjectCommit.merge_requests)',
  'POST /projects/{}/runners': 'as above (Assign a runner to project; ProjectRunnerManager.create)',
  'DELETE /projects/{}/runners/{}': 'as above (Unassign a project runner from the project; ProjectRunnerManager.delete)',
  'GET /runners/{}': 'as above (RunnerManager.get)',
  'PUT /runners/{}': 'as above (Runner.save)',
  'DELETE /runners/{}': 'as above (Runner.delete)',
  'GET /runners/{}/jobs': 'as above (RunnerJobManager)',
  'POST /runners/{}/reset_authentication_token': 'as above (Reset runner\'s authentication token by using the runner ID)',
  'POST /user/runners': 'as above (Users API, Create a runner; python-gitlab CurrentUserRunnerManager, its functional tests\' fixture)',
  'POST /runners/verify': 'as above (RunnerManager.verify)',
  'DELETE /runners': 'as above (delete a runner by its authentication token; python-gitlab\'s functional tests\' fixture)',
  'GET /projects/{}/protected_branches': 'protected branches (GitLab API docs, Protected branches; python-gitlab ProjectProtectedBranchManager)',
  'GET /projects/{}/protected_branches/{}': 'as above',
  'POST /projects/{}/protected_branches': 'as above',
  'PATCH /projects/{}/protected_branches/{}': 'as above (update, GitLab 15.6 and later)',
  'DELETE /projects/{}/protected_branches/{}': 'as above',
  'GET /groups/{}/protected_branches': 'group-level protected branches (GitLab API docs, Group-level protected branches; python-gitlab GroupProtectedBranchManager)',
  'GET /groups/{}/protected_branches/{}': 'as above',
  'POST /groups/{}/protected_branches': 'as above',
  'PATCH /groups/{}/protected_branches/{}': 'as above',
  'DELETE /groups/{}/protected_branches/{}': 'as above',
  'GET /projects/{}/merge_requests': 'merge requests (GitLab API docs, Merge requests; python-gitlab ProjectMergeRequestManager)',
  'GET /projects/{}/merge_requests/{}': 'as above',
  'POST /projects/{}/merge_requests': 'as above',
  'PUT /projects/{}/merge_requests/{}': 'as above',
  'DELETE /projects/{}/merge_requests/{}': 'as above (administrators and project owners)',
  'GET /groups/{}/merge_requests': 'as above, of a group (GroupMergeRequestManager)',
  'GET /merge_requests': 'as above, everything the caller can see (MergeRequestManager)',
  'GET /projects/{}/issues': 'issues (GitLab API docs, Issues; python-gitlab ProjectIssueManager)',
  'GET /projects/{}/issues/{}': 'as above',
  'POST /projects/{}/issues': 'as above',
  'PUT /projects/{}/issues/{}': 'as above',
  'GET /groups/{}/issues': 'as above, of a group (GroupIssueManager)',
  'GET /issues': 'as above, everything the caller can see (IssueManager)',
  'POST /users': 'user administration: "User creation, modification, deletion and other user operations: not shown" (GitLab API docs, Users; python-gitlab UserManager)',
  'PUT /users/{}': 'as above',
  'DELETE /users/{}': 'as above',
  'POST /users/{}/block': 'as above (User.block)',
  'POST /users/{}/unblock': 'as above (User.unblock)',
  'POST /users/{}/ban': 'as above (User.ban)',
  'POST /users/{}/unban': 'as above (User.unban)',
  'POST /users/{}/deactivate': 'as above (User.deactivate)',
  'POST /users/{}/activate': 'as above (User.activate)',
  'POST /users/{}/approve': 'approving a pending sign-up (GitLab API docs, User moderation: 201 {"message":"Success"}; 409 when not pending; python-gitlab User.approve)',
  'POST /users/{}/reject': 'rejecting a pending sign-up, which deletes the account (GitLab API docs, User moderation: 200; 409 "User does not have a pending request"; python-gitlab User.reject)',
  'DELETE /users/{}/identities/{}': 'as above (UserIdentityProviderManager.delete)',
  'GET /user/keys': "your SSH keys (GitLab API docs, User SSH and GPG keys; python-gitlab CurrentUserKeyManager)",
  'GET /user/keys/{}': 'as above',
  'POST /user/keys': 'as above',
  'DELETE /user/keys/{}': 'as above',
  'GET /users/{}/keys': "a user's SSH keys (as above; UserKeyManager)",
  'GET /users/{}/keys/{}': 'as above',
  'POST /users/{}/keys': 'as above',
  'DELETE /users/{}/keys/{}': 'as above',
  'GET /user/gpg_keys': 'your GPG keys (GitLab API docs, User SSH and GPG keys; python-gitlab CurrentUserGPGKeyManager)',
  'GET /user/gpg_keys/{}': 'as above',
  'POST /user/gpg_keys': 'as above',
  'DELETE /user/gpg_keys/{}': 'as above',
  'GET /users/{}/gpg_keys': "a user's GPG keys (as above; UserGPGKeyManager)",
  'GET /users/{}/gpg_keys/{}': 'as above',
  'POST /users/{}/gpg_keys': 'as above',
  'DELETE /users/{}/gpg_keys/{}': 'as above',
  'GET /user/emails': 'your email addresses (GitLab API docs, User email addresses; python-gitlab CurrentUserEmailManager)',
  'GET /user/emails/{}': 'as above',
  'POST /user/emails': 'as above',
  'DELETE /user/emails/{}': 'as above',
  'GET /users/{}/emails': "a user's email addresses (as above; UserEmailManager)",
  'POST /users/{}/emails': 'as above',
  'DELETE /users/{}/emails/{}': 'as above',
  'GET /user/status': 'your user status (GitLab API docs, Users; python-gitlab CurrentUserStatusManager)',
  'PUT /user/status': 'as above',
  'GET /users/{}/status': "a user's status (as above; UserStatusManager)",
  'GET /snippets': 'personal snippets (GitLab API docs, Snippets; python-gitlab SnippetManager)',
  'GET /snippets/public': 'as above (SnippetManager.public)',
  'GET /snippets/all': 'as above (List all snippets; SnippetManager.list_all)',
  'GET /snippets/{}/user_agent_detail': 'as above (Get user agent details; Snippet.user_agent_detail)',
  'GET /snippets/{}': 'as above',
  'POST /snippets': 'as above',
  'PUT /snippets/{}': 'as above',
  'DELETE /snippets/{}': 'as above',
  'GET /snippets/{}/raw': 'as above (Snippet.content)',
  'GET /features': "the instance's feature flags (GitLab API docs, Feature flags API; python-gitlab FeatureManager)",
  'GET /features/definitions': 'as above (List all feature definitions)',
  'POST /features/{}': 'as above (FeatureManager.set)',
  'DELETE /features/{}': 'as above',
  'GET /projects/{}/pipelines/{}': 'one pipeline (GitLab API docs, Pipelines; python-gitlab ProjectPipelineManager.get)',
  'GET /projects/{}/jobs': "a project's jobs (GitLab API docs, Jobs; python-gitlab ProjectJobManager)",
  'POST /groups/{}/transfer': 'moving a group (GitLab API docs, Groups; python-gitlab Group.transfer)',
  'GET /projects/{}/groups': "a project's groups (GitLab API docs, Projects; python-gitlab ProjectGroupManager)",
  'GET /projects/{}/snapshot': "a tar of a project's repository (GitLab API docs, Projects; python-gitlab Project.snapshot)",
  'POST /projects/user/{}': 'an administrator creates a project for a user (GitLab API docs, Projects; python-gitlab UserProjectManager.create)',
};

/** Declarations whose records the documents do not describe field by field ("fields: not shown"), with why. */
const FIELDS_NOT_RECORDED: Record<string, string> = {
  artifacts: 'the job record is not described; only its artifacts are',
  experiments: 'an internal listing the documents describe without its fields; the fields are those the sandbox and the command show',
  projects: 'projects are not described field by field; the fields declared are those of the GitLab API docs (Projects), the ones the sandbox answers with',
  groups: 'groups are not described field by field; the fields declared are those of the GitLab API docs (Groups), the ones the sandbox answers with',
  submodules: 'a submodule update answers a commit; the one field declared is the path, the route parameter that names it',
  members: 'not in the documents here; the fields are those of the GitLab API docs (Group and project members), checked by the sandbox tests',
  branches: 'not in the documents here; the fields are those of the GitLab API docs (Branches), checked by the sandbox tests',
  tags: 'not in the documents here; the fields are those of the GitLab API docs (Tags), checked by the sandbox tests',
  'protected-branches': 'not in the documents here; the fields are those of the GitLab API docs (Protected branches), checked by the sandbox tests',
  'deploy-keys': 'not in the documents here; the fields are those of the GitLab API docs (Deploy keys), checked by the sandbox tests',
  variables: 'not in the documents here; the fields are those of the GitLab API docs (CI/CD variables), checked by the sandbox tests',
  'audit-events': 'not in the documents here; the fields are those of the GitLab API docs (Audit events) and its event schema, checked by the sandbox tests',
  'deploy-tokens': 'not in the documents here; the fields are those of the GitLab API docs (Deploy tokens), checked by the sandbox tests and python-gitlab',
  runners: 'not in the documents here; the fields are those of the GitLab API docs (Runners), checked by the sandbox tests and python-gitlab',
  metadata: 'not in the documents here; the fields are those of the GitLab API docs (Metadata), checked by python-gitlab and gitbeaker',
  'merge-request-approvals': 'approve "returns the merge request with approvals" without its fields; they are those of the GitLab API docs (Merge request approvals), checked by the sandbox tests',
};

/** Fields the documents leave out that the service presents, by declaration file, with why. */
const FIELDS_BEYOND_DOCS: Record<string, Record<string, string>> = {
  snippets: { files: "a snippet's files [{path, raw_url}] (python-gitlab and gitbeaker read them; the documents list file_name only)" },
  commits: Object.fromEntries([
    ...['note', 'path', 'line', 'line_type', 'author'].map((name) => [name, 'a commit comment (GitLab API docs, Commits: Post comment to commit; python-gitlab ProjectCommitComment)']),
    ...['sha', 'ref', 'name', 'target_url', 'description', 'started_at', 'finished_at', 'allow_failure', 'coverage', 'pipeline_id'].map((name) => [name, 'a commit status (GitLab API docs, Commits: List the statuses of a commit; python-gitlab ProjectCommitStatus)']),
  ]),
  'approval-rules': {
    source_rule: "a merge request's rule: the project rule it copies (GitLab API docs, Merge request approvals: merge request level rules)",
    section: "a merge request's rule: its CODEOWNERS section (as above)",
    overridden: "a merge request's rule: whether it differs from the project rule it copies (as above)",
  },
  // The single user record; the documents here list a user in a list only.
  users: Object.fromEntries([
    ...Object.keys(USER_PROFILE_FIELDS).map((name) => [name, "a user's public profile (GitLab API docs, Users: single user; python-gitlab User)"]),
    ...Object.keys(users.fields).filter((name) => !(name in USER_FIELDS) && !(name in USER_PROFILE_FIELDS))
      .map((name) => [name, 'the user record administrators and the user see (GitLab API docs, Users: single user for administrators; gitbeaker Users.show)']),
  ]),
  'access-tokens': { impersonation: "an impersonation token's mark (GitLab API docs, Users: get an impersonation token of a user; python-gitlab UserImpersonationToken)" },
  keys: { deploy_keys_projects: 'a deploy key found by id or fingerprint: the projects it is enabled on (GitLab API docs, Keys: get key by fingerprint)' },
};

/** `'GET /projects/{project}/badges/{badge_id}'` → `'GET /projects/{}/badges/{}'`. */
const shape = (route: string): string => route.replace(/\{\*?[a-z_]+\}/g, '{}');

type Declared = (ResourceDef | MultiParentDef | (Placement & { noun: string; fields: ResourceDef['fields'] })) & { noun: string };

/** What a declaration has that the service's documents do not record. */
function unrecorded(file: string, def: Declared): { routes: string[]; fields: string[] } {
  const all = 'parents' in def ? placements(def) : [def as Placement];
  const routes = all.flatMap((placement) => Object.values(placement.routes)).map(shape).filter((route) => !recordedRoutes.has(route) && !(route in ROUTES_NOT_RECORDED));
  const recorded = service.fields[file];
  const fields = recorded ? presentedFields(def).map(([name]) => name).filter((name) => !recorded.fields.includes(name) && !(name in (FIELDS_BEYOND_DOCS[file] ?? {}))) : [];
  return { routes, fields };
}

const declarations = await Promise.all(
  declarationFolders().map(async (file) => {
    const module = await declarationModule(file);
    const found = Object.values(module).filter((value): value is Declared => typeof value === 'object' && value !== null && 'fields' in value && ('routes' in value || 'parents' in value));
    return { file, found };
  }),
);

describe('declarations against the service as documented', () => {
  it('every declaration file declares something, and its fields are recorded or named as not recorded', () => {
    for (const { file, found } of declarations) {
      expect(found.length, file).toBeGreaterThan(0);
      expect(file in service.fields || file in FIELDS_NOT_RECORDED, `${file}: record its fields in fixtures/service.json`).toBe(true);
    }
  });

  it.each(declarations)('$file: every route and every presented field is one the service has', ({ file, found }) => {
    for (const def of found) expect(unrecorded(file, def), `${def.noun}`).toEqual({ routes: [], fields: [] });
  });

  it('fails on a field or a route the service does not have (the check can fail)', () => {
    const invented = defineResource({
      noun: 'freeze period',
      command: 'freeze-periods',
      parent: 'project',
      id: { param: 'freeze_period_id', field: 'id' },
      routes: { list: 'GET /projects/{project}/freeze_periods', thaw: 'POST /projects/{project}/freeze_periods/{freeze_period_id}/thaw' },
      fields: { id: f.int({ readOnly: true }), freeze_start: f.string(), frozen_by: f.string({ readOnly: true }) },
      columns: ['id'],
      identity: ['freeze_start'],
      roles: { read: 'reporter', write: 'maintainer' },
    });
    expect(unrecorded('freeze-periods', invented)).toEqual({ routes: ['POST /projects/{}/freeze_periods/{}/thaw'], fields: ['frozen_by'] });
  });
});
