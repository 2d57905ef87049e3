import { f } from '../../api/fields.js';
import { defineResource, defineSingleton } from '../../api/resource.js';
import { FEATURE, VISIBILITY } from '../projects/resource.js';

/**
 * Groups of the instance. A group is named by its id or full path, one encoded segment: `{group}`. The settings
 * admins standardise are settable fields: `groups update` takes them as options, and the desired `settings` section
 * of groups (groupSettings below) compares and sets them.
 */

/** Group settings admins standardise (terraform's gitlab_group, gitlabform's group_settings). */
export const GROUP_SETTING_FIELDS = {
  description: f.string({ help: 'the description' }),
  visibility: f.enum(VISIBILITY, { help: 'who can see it (default private; not above its parent\'s)' }),
  project_creation_level: f.enum(['noone', 'owner', 'maintainer', 'developer', 'administrator'], { help: 'who may create projects in it' }),
  subgroup_creation_level: f.enum(['owner', 'maintainer'], { help: 'who may create subgroups' }),
  request_access_enabled: f.bool({ help: 'users may request access' }),
  require_two_factor_authentication: f.bool({ help: 'members must use two-factor authentication' }),
  two_factor_grace_period: f.int({ min: 0, help: 'hours before two-factor authentication is enforced' }),
  share_with_group_lock: f.bool({ help: 'its projects cannot be shared with other groups' }),
  membership_lock: f.bool({ help: 'no members may be added to its projects' }),
  lfs_enabled: f.bool({ help: 'Git LFS for its projects' }),
  emails_enabled: f.bool({ help: 'email notifications' }),
  mentions_disabled: f.bool({ nullable: true, help: 'the group cannot be mentioned' }),
  default_branch: f.string({ nullable: true, help: 'the default branch of new projects' }),
  shared_runners_setting: f.enum(['enabled', 'disabled_and_overridable', 'disabled_and_unoverridable'], {
    placeholder: '<setting>',
    help: "the instance's runners for its projects and subgroups: enabled, disabled_and_overridable or disabled_and_unoverridable",
  }),
  wiki_access_level: f.enum(FEATURE, { help: 'the group wiki' }),
  prevent_forking_outside_group: f.bool({ help: 'its projects may be forked only within it' }),
  prevent_sharing_groups_outside_hierarchy: f.bool({ help: 'it may be shared only within its hierarchy' }),
} as const;

const S = GROUP_SETTING_FIELDS;

/** What a create or an update of a group sends, in the order the commands offer them. */
export const GROUP_INPUTS = {
  name: f.string({ create: 'required', help: 'the name' }),
  path: f.string({ create: 'required', help: 'the path (URL segment)' }),
  parent_id: f.int({ min: 1, nullable: true, update: false, help: 'the parent group\'s id (a subgroup)' }),
  ...GROUP_SETTING_FIELDS,
} as const;

/** A group a group or project is shared with, as `shared_with_groups` lists it. */
export const SHARED_GROUP_FIELDS = {
  group_id: f.int({ readOnly: true }),
  group_name: f.string({ readOnly: true }),
  group_full_path: f.string({ readOnly: true }),
  group_access_level: f.accessLevel(undefined, { readOnly: true }),
  expires_at: f.date({ readOnly: true, nullable: true }),
};

/** Groups of the instance, by id or full path; a group's subgroups and all its descendants. */
export const groups = defineResource({
  noun: 'group',
  command: 'groups',
  parent: 'instance',
  id: { param: 'group', field: 'id' },
  routes: {
    list: 'GET /groups',
    get: 'GET /groups/{group}',
    create: 'POST /groups',
    update: 'PUT /groups/{group}',
    delete: 'DELETE /groups/{group}',
    subgroups: 'GET /groups/{group}/subgroups',
    descendants: 'GET /groups/{group}/descendant_groups',
    restore: 'POST /groups/{group}/restore',
    /** Moves a group under another (group_id) or to the top level. */
    transfer: 'POST /groups/{group}/transfer',
    /** The groups of a project: its group and that group's ancestors (with_shared: and those it is shared with). */
    ofProject: 'GET /projects/{project}/groups',
    /** The groups this group was invited to (shared with it): its direct members reach them. */
    sharedWith: 'GET /groups/{group}/groups/shared',
    /** The groups invited to this group (those it is shared with). */
    invited: 'GET /groups/{group}/invited_groups',
    /** The groups invited to a project (those it is shared with). */
    invitedToProject: 'GET /projects/{project}/invited_groups',
  },
  /** In the service's order: the list's fields (Group), then those of one group (GroupDetail). */
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    web_url: f.string({ readOnly: true }),
    name: GROUP_INPUTS.name,
    path: GROUP_INPUTS.path,
    description: S.description,
    visibility: S.visibility,
    share_with_group_lock: S.share_with_group_lock,
    require_two_factor_authentication: S.require_two_factor_authentication,
    two_factor_grace_period: S.two_factor_grace_period,
    project_creation_level: S.project_creation_level,
    auto_devops_enabled: f.bool({ readOnly: true, nullable: true }),
    subgroup_creation_level: S.subgroup_creation_level,
    emails_disabled: f.bool({ readOnly: true }),
    emails_enabled: S.emails_enabled,
    mentions_disabled: S.mentions_disabled,
    lfs_enabled: S.lfs_enabled,
    math_rendering_limits_enabled: f.bool({ readOnly: true }),
    lock_math_rendering_limits_enabled: f.bool({ readOnly: true }),
    default_branch: S.default_branch,
    default_branch_protection: f.int({ readOnly: true }),
    default_branch_protection_defaults: f.object({ readOnly: true }),
    avatar_url: f.string({ readOnly: true, nullable: true }),
    request_access_enabled: S.request_access_enabled,
    full_name: f.string({ readOnly: true }),
    full_path: f.string({ readOnly: true }),
    created_at: f.time({ readOnly: true }),
    parent_id: GROUP_INPUTS.parent_id,
    organization_id: f.int({ readOnly: true }),
    shared_runners_setting: S.shared_runners_setting,
    max_artifacts_size: f.int({ readOnly: true, nullable: true }),
    ldap_cn: f.string({ readOnly: true, nullable: true }),
    ldap_access: f.int({ readOnly: true, nullable: true }),
    marked_for_deletion_on: f.date({ readOnly: true, nullable: true }),
    wiki_access_level: S.wiki_access_level,
    archived: f.bool({ readOnly: true }),
    /** Administrators only. */
    repository_storage: f.string({ readOnly: true }),
    shared_with_groups: f.object({ readOnly: true }),
    /** Owners only. */
    runners_token: f.string({ readOnly: true }),
    enabled_git_access_protocol: f.string({ readOnly: true }),
    prevent_sharing_groups_outside_hierarchy: S.prevent_sharing_groups_outside_hierarchy,
    membership_lock: S.membership_lock,
    prevent_forking_outside_group: S.prevent_forking_outside_group,
    ip_restriction_ranges: f.string({ readOnly: true, nullable: true }),
    allowed_email_domains_list: f.string({ readOnly: true, nullable: true }),
    projects: f.object({ readOnly: true }),
    shared_projects: f.object({ readOnly: true }),
  },
  columns: ['id', 'full_path', 'name', 'visibility', 'parent_id'],
  identity: ['full_path'],
  roles: { read: 'guest', write: 'owner' },
});

/** A group's general settings as one record (the desired `settings` section of groups). */
export const groupSettings = defineSingleton({
  noun: 'group settings',
  command: 'groups update',
  parent: 'group',
  routes: { get: 'GET /groups/{group}', update: 'PUT /groups/{group}' },
  fields: GROUP_SETTING_FIELDS,
  roles: { read: 'guest', write: 'owner' },
});
