import { BADGE_URL_HINT, f, type RecordOf } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

const placeholders = 'placeholders such as %{project_path} and %{default_branch} are rendered';

/** Badges of a project: its own, and (read-only here, kind "group") those of its groups. */
export const badges = defineResource({
  noun: 'badge',
  command: 'badges',
  parent: 'project',
  id: { param: 'badge_id', field: 'id' },
  routes: {
    list: 'GET /projects/{project}/badges',
    get: 'GET /projects/{project}/badges/{badge_id}',
    create: 'POST /projects/{project}/badges',
    update: 'PUT /projects/{project}/badges/{badge_id}',
    delete: 'DELETE /projects/{project}/badges/{badge_id}',
    render: 'GET /projects/{project}/badges/render',
  },
  fields: {
    name: f.string({ help: 'badge name', placeholder: '<name>' }),
    id: f.int({ min: 1, readOnly: true }),
    link_url: f.url({ create: 'required', hint: BADGE_URL_HINT, help: `where the badge links to; ${placeholders}` }),
    image_url: f.url({ create: 'required', hint: BADGE_URL_HINT, help: 'the badge image; placeholders are rendered as in --link-url' }),
    rendered_link_url: f.url({ readOnly: true }),
    rendered_image_url: f.url({ readOnly: true }),
    kind: f.enum(['project', 'group'], { readOnly: true }),
  },
  filters: { name: f.string({ help: 'only badges with this name (case-sensitive)', placeholder: '<name>' }) },
  columns: ['id', 'kind', 'name', 'rendered_link_url', 'rendered_image_url'],
  identity: ['name'],
  roles: { read: 'guest', write: 'maintainer' },
});

/** A badge as the service presents it. */
export type Badge = RecordOf<typeof badges>;
