import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';
import { USER_FIELDS } from '../users/resource.js';

/**
 * Members of a project or a group: the direct ones (list, get, add, change, remove), and every member with
 * inherited and invited access (`/members/all`). A member is named by its user id; adding takes several user ids
 * at once (comma-separated) or usernames. Groups a project or group is shared with are its "shared groups": added
 * with `share`, removed with `unshare`, never changed in place (remove and share again).
 */
const placement = <P extends 'project' | 'group'>(parent: P, base: `/${P}s/{${P}}`) =>
  ({
    parent,
    routes: {
      list: `GET ${base}/members`,
      get: `GET ${base}/members/{user_id}`,
      create: `POST ${base}/members`,
      update: `PUT ${base}/members/{user_id}`,
      delete: `DELETE ${base}/members/{user_id}`,
      all: `GET ${base}/members/all`,
      allGet: `GET ${base}/members/all/{user_id}`,
      share: `POST ${base}/share`,
      unshare: `DELETE ${base}/share/{group_id}`,
    },
  }) as const;

const groupPlacement = placement('group', '/groups/{group}');

/**
 * Whether a membership (or a group share) with this expiry still gives access on a day (YYYY-MM-DD): the service
 * removes it at the start of its expiry day. The sandbox and `access report` both follow this rule.
 */
export const liveOn = (expiresAt: string | null | undefined, day: string): boolean => !expiresAt || expiresAt.slice(0, 10) > day;

/** The bot user of a group's or project's access token, as the service names it (`project_7_bot_1f2e`): it dies with its token. */
export const TOKEN_BOT = /^(project|group)_\d+_bot_/;

export const members = defineResource({
  noun: 'member',
  command: 'members',
  id: { param: 'user_id', field: 'id' },
  parents: {
    project: placement('project', '/projects/{project}'),
    group: {
      ...groupPlacement,
      routes: {
        ...groupPlacement.routes,
        /**
         * A user's direct memberships of a top-level group, its subgroups and the projects in them (its "billable
         * member's memberships"): for the group's Owners, on the Enterprise edition, for users who take a seat.
         */
        hierarchyMemberships: 'GET /groups/{group}/billable_members/{user_id}/memberships',
      },
    },
  },
  fields: {
    ...USER_FIELDS,
    access_level: f.accessLevel(undefined, { create: 'required', help: 'the role: guest, planner, reporter, developer, maintainer, owner (or 10 … 50)' }),
    created_at: f.time({ readOnly: true }),
    created_by: f.object(),
    expires_at: f.date({ nullable: true, help: 'the day the membership ends (YYYY-MM-DD; "" on update removes it)' }),
    group_saml_identity: f.object(),
    membership_state: f.string({ readOnly: true }),
    member_role: f.object(),
  },
  /** role: the access level by name (developer), as the options take it. */
  computed: ['role'],
  columns: ['id', 'username', 'name', 'role', 'expires_at', 'state'],
  identity: ['username'],
  roles: { read: 'guest', write: 'maintainer' },
});
