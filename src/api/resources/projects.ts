import { f } from '../fields.js';
import { defineResource } from '../resource.js';

/**
 * Projects of the instance (read here; created and changed elsewhere). A project is named by its id or full path,
 * one encoded segment: `{project}`. The lists of a group's and of a user's projects are routes of their own.
 */
export const projects = defineResource({
  noun: 'project',
  command: 'projects',
  parent: 'instance',
  id: { param: 'project', field: 'id' },
  routes: {
    list: 'GET /projects',
    get: 'GET /projects/{project}',
    ofGroup: 'GET /groups/{group}/projects',
    ofUser: 'GET /users/{user}/projects',
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    name: f.string({ readOnly: true }),
    path: f.string({ readOnly: true }),
    path_with_namespace: f.string({ readOnly: true }),
    visibility: f.enum(['private', 'internal', 'public'], { readOnly: true }),
    archived: f.bool({ readOnly: true }),
    default_branch: f.string({ readOnly: true, nullable: true }),
    repository_storage: f.string({ readOnly: true }),
    last_activity_at: f.time({ readOnly: true }),
  },
  columns: ['id', 'path_with_namespace', 'visibility', 'archived', 'default_branch', 'last_activity_at'],
  identity: ['path_with_namespace'],
  roles: { read: 'guest', write: 'owner' },
});

/** Groups of the instance (read here), by id or full path; a group's subgroups and all its descendants. */
export const groups = defineResource({
  noun: 'group',
  command: 'groups',
  parent: 'instance',
  id: { param: 'group', field: 'id' },
  routes: {
    list: 'GET /groups',
    get: 'GET /groups/{group}',
    subgroups: 'GET /groups/{group}/subgroups',
    descendants: 'GET /groups/{group}/descendant_groups',
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    name: f.string({ readOnly: true }),
    path: f.string({ readOnly: true }),
    full_path: f.string({ readOnly: true }),
    visibility: f.enum(['private', 'internal', 'public'], { readOnly: true }),
    parent_id: f.int({ readOnly: true, nullable: true }),
  },
  columns: ['id', 'full_path', 'name', 'visibility', 'parent_id'],
  identity: ['full_path'],
  roles: { read: 'guest', write: 'owner' },
});
