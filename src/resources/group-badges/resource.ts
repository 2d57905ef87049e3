import { BADGE_URL_HINT, f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** Badges of a group: shown on every project of the group and its subgroups (kind "group" there). */
export const groupBadges = defineResource({
  noun: 'group badge',
  command: 'group-badges',
  parent: 'group',
  id: { param: 'badge_id', field: 'id' },
  routes: {
    list: 'GET /groups/{group}/badges',
    get: 'GET /groups/{group}/badges/{badge_id}',
    create: 'POST /groups/{group}/badges',
    update: 'PUT /groups/{group}/badges/{badge_id}',
    delete: 'DELETE /groups/{group}/badges/{badge_id}',
    render: 'GET /groups/{group}/badges/render',
  },
  fields: {
    name: f.string({ help: 'badge name', placeholder: '<name>' }),
    id: f.int({ min: 1, readOnly: true }),
    link_url: f.url({ create: 'required', hint: BADGE_URL_HINT, help: 'where the badge links to; on each project, placeholders such as %{project_path} are rendered' }),
    image_url: f.url({ create: 'required', hint: BADGE_URL_HINT, help: 'the badge image; placeholders are rendered as in --link-url' }),
    rendered_link_url: f.url({ readOnly: true }),
    rendered_image_url: f.url({ readOnly: true }),
    kind: f.enum(['project', 'group'], { readOnly: true }),
  },
  filters: { name: f.string({ help: 'only badges with this name (case-sensitive)', placeholder: '<name>' }) },
  columns: ['id', 'name', 'link_url', 'image_url'],
  identity: ['name'],
  roles: { read: 'guest', write: 'owner' },
});
