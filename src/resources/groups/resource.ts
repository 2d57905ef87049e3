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
  shared_runners_setting: f.enum(['enabled', 'disabled_and_overridable', 'disabled_and_unoverridable'], { help: "the instance's runners for its projects and subgroups" }),
  wiki_access_level: f.enum(FEATURE, { help: 'the group wiki' }),
  prevent_forking_outside_group: f.bool({ help: 'its projects may be forked only within it' }),
  prevent_sharing_groups_outside_hierarchy: f.bool({ help: 'it may be shared only within its hierarchy' }),
} as const;

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
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    name: f.string({ create: 'required', help: 'the name' }),
    path: f.string({ create: 'required', help: 'the path (URL segment)' }),
    full_path: f.string({ readOnly: true }),
    parent_id: f.int({ min: 1, nullable: true, update: false, help: 'the parent group\'s id (a subgroup)' }),
    ...GROUP_SETTING_FIELDS,
    marked_for_deletion_on: f.date({ readOnly: true, nullable: true }),
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
