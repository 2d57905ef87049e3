import { f, type RecordOf } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** Tag names and wildcards of a project that only some may create. The name is the id (one encoded segment). */
export const protectedTags = defineResource({
  noun: 'protected tag',
  command: 'protected-tags',
  parent: 'project',
  id: { param: 'name', field: 'name' },
  routes: {
    list: 'GET /projects/{project}/protected_tags',
    get: 'GET /projects/{project}/protected_tags/{name}',
    create: 'POST /projects/{project}/protected_tags',
    delete: 'DELETE /projects/{project}/protected_tags/{name}',
  },
  fields: {
    name: f.string({ create: 'required', update: false, help: 'tag name or wildcard such as v* or *-stable', placeholder: '<tag>' }),
    create_access_levels: f.object<CreateAccessLevel[]>(),
  },
  columns: ['name'],
  identity: ['name'],
  roles: { read: 'maintainer', write: 'maintainer' },
});

export interface CreateAccessLevel {
  id: number;
  access_level: number;
  access_level_description: string;
  user_id?: number | null;
  group_id?: number | null;
  deploy_key_id?: number;
}

/** A protected tag rule as the service presents it. */
export type ProtectedTag = RecordOf<typeof protectedTags>;
