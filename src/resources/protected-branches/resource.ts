import { f, type RecordOf } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';
import type { AccessEntry } from './values.js';

/**
 * Branch names and wildcards (`release/*`) of a project, or of every project of a group (Premium), that only some
 * may push to, merge into and unprotect. The name is the id (one encoded segment). A new project's default branch
 * is protected by the service itself (Maintainers push and merge).
 */
export const protectedBranches = defineResource({
  noun: 'protected branch',
  command: 'protected-branches',
  id: { param: 'name', field: 'name' },
  parents: {
    project: {
      parent: 'project',
      routes: {
        list: 'GET /projects/{project}/protected_branches',
        get: 'GET /projects/{project}/protected_branches/{name}',
        create: 'POST /projects/{project}/protected_branches',
        update: 'PATCH /projects/{project}/protected_branches/{name}',
        delete: 'DELETE /projects/{project}/protected_branches/{name}',
      },
    },
    group: {
      parent: 'group',
      tier: 'premium',
      routes: {
        list: 'GET /groups/{group}/protected_branches',
        get: 'GET /groups/{group}/protected_branches/{name}',
        create: 'POST /groups/{group}/protected_branches',
        update: 'PATCH /groups/{group}/protected_branches/{name}',
        delete: 'DELETE /groups/{group}/protected_branches/{name}',
      },
    },
  },
  fields: {
    id: f.int({ readOnly: true }),
    name: f.string({ create: 'required', update: false, help: 'branch name or wildcard such as release/* or *-stable', placeholder: '<branch>' }),
    push_access_levels: f.object<AccessEntry[]>(),
    merge_access_levels: f.object<AccessEntry[]>(),
    unprotect_access_levels: f.object<AccessEntry[]>(),
    allow_force_push: f.bool({ default: false, help: 'members who may push may also force-push' }),
    code_owner_approval_required: f.bool({ default: false, help: 'pushes need a code owner approval (Premium)' }),
    inherited: f.bool({ readOnly: true }),
  },
  filters: { search: f.string({ help: 'names containing this text' }) },
  columns: ['name', 'push', 'merge', 'allow_force_push'],
  computed: ['push', 'merge', 'unprotect'],
  identity: ['name'],
  roles: { read: 'maintainer', write: 'maintainer' },
});

/** A protected branch rule as the service presents it. */
export type ProtectedBranch = RecordOf<typeof protectedBranches>;
