import { groupBadges as resource } from './resource.js';
import { groupFor, Role } from '../../sandbox/auth.js';
import { crudModule } from '../../sandbox/crud.js';
import { renderBadge, validateBadgeUrls } from '../../sandbox/badges.js';
import type { StoredBadge } from '../../sandbox/model.js';

/**
 * Group badges: a group's own badges, in the table of project badges (records with a group_id), so its projects show
 * them. On the group itself placeholders stay as written: there is no project to render them for.
 */
export const groupBadges = crudModule<StoredBadge>(resource, {
  table: 'badges',
  notFound: 'Badge',
  validate: (badge) => validateBadgeUrls({ link_url: badge.link_url, image_url: badge.image_url }),
  computed: (badge) => ({ rendered_link_url: badge.link_url, rendered_image_url: badge.image_url, kind: 'group' }),
  routes(api) {
    // No project to render them for: placeholders stay as written.
    api.route(resource.routes.render, (req) => {
      groupFor(req, Role.owner);
      return renderBadge(req, {});
    });
  },
});
