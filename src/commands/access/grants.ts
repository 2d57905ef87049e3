import { accessLevelName } from '../../parse.js';
import { liveOn } from '../../resources/members/resource.js';

/**
 * The rows of an access report: one for each way a user reaches a group or project, as the service resolves access
 * (Sharing projects and groups, Group and project members): a direct membership; a membership of a group above,
 * inherited; or a membership of a group the place (or a group above it) is shared with, at most at the link's
 * level and until the link's expiry, whichever comes first.
 */

export type PlaceKind = 'group' | 'project';

/** A group or project as the report needs it: where it sits and the groups it is shared with. */
export interface Place {
  kind: PlaceKind;
  id: number;
  path: string;
  /** The group it is in (a project's namespace, a subgroup's parent); null at the top or in a personal namespace. */
  parentId: number | null;
  links: Link[];
}

/** A share of a group or project with a group (its `shared_with_groups`). */
export interface Link {
  group_id: number;
  group_full_path: string;
  group_access_level: number;
  expires_at: string | null;
}

/** A membership as the members lists answer it. */
export interface Membership {
  id: number;
  username: string;
  access_level: number;
  expires_at?: string | null;
  created_at?: string;
  created_by?: { username?: string } | null;
  /** The user's account: active, blocked, banned, deactivated … */
  state?: string;
}

/** The conditions --fail-on takes. */
export const CONDITIONS = ['expired', 'owner', 'external', 'no-expiry', 'inactive'] as const;
export type Condition = (typeof CONDITIONS)[number];

export interface AccessRow {
  place: string;
  place_type: PlaceKind;
  user: string;
  user_id: number;
  role: string;
  access_level: number;
  /** direct: a membership of the place; inherited: of a group above; shared: of a group the place or a group above is shared with. */
  via: 'direct' | 'inherited' | 'shared';
  /** The group or project whose membership it is. */
  source: string;
  /** For a share: the group or project that was shared (the place or a group above it), and the link's highest role. */
  shared_via: string | null;
  link_role: string | null;
  /** The user's role in the source, before a link caps it. */
  member_role: string;
  expires_at: string | null;
  created_by: string | null;
  created_at: string | null;
  /** Whether the user is external; null when the service did not say (it tells administrators only). */
  external: boolean | null;
  /** The user's account state (a blocked or deactivated user keeps memberships that give nothing until it is active). */
  user_state: string | null;
  /** This way gives the user's access there (the highest of the ways still in force). */
  effective: boolean;
  /** Which --fail-on conditions the row meets. */
  findings: Condition[];
}

/** How a membership reaches a place. */
export interface Way {
  via: AccessRow['via'];
  source: string;
  /** The shares it went through, outermost first (a project shared with a group that a group was shared with). */
  links?: Array<{ on: string; link: Link }>;
}

/** The earlier of two expiry dates (YYYY-MM-DD); null is never. */
const earlier = (a: string | null | undefined, b: string | null | undefined): string | null => {
  const [x, y] = [a ? a.slice(0, 10) : null, b ? b.slice(0, 10) : null];
  return x === null ? y : y === null ? x : x < y ? x : y;
};

/** One row: the membership as the way gives it (capped by each link it went through). */
export function grant(place: Place, member: Membership, way: Way): AccessRow {
  const links = way.links ?? [];
  const level = Math.min(member.access_level, ...links.map((l) => l.link.group_access_level));
  const expires = links.reduce((at, l) => earlier(at, l.link.expires_at), member.expires_at ?? null);
  const lowest = links.length ? Math.min(...links.map((l) => l.link.group_access_level)) : undefined;
  return {
    place: place.path,
    place_type: place.kind,
    user: member.username,
    user_id: member.id,
    role: accessLevelName(level),
    access_level: level,
    via: way.via,
    source: way.source,
    shared_via: links.length ? links[0].on : null,
    link_role: lowest === undefined ? null : accessLevelName(lowest),
    member_role: accessLevelName(member.access_level),
    expires_at: expires,
    created_by: member.created_by?.username ?? null,
    created_at: member.created_at ?? null,
    external: null,
    user_state: member.state ?? null,
    effective: false,
    findings: [],
  };
}

/**
 * The rows completed: whether each gives the user's access there (the highest level of the rows still in force;
 * the first such row on a tie), the user's `external` flag, and the conditions each meets; sorted by place, user,
 * the effective row first.
 */
export function complete(rows: AccessRow[], external: Map<number, boolean | null>, today: string): AccessRow[] {
  const live = (row: AccessRow): boolean => liveOn(row.expires_at, today);
  const best = new Map<string, AccessRow>();
  for (const row of rows) {
    if (!live(row)) continue;
    const key = `${row.place_type} ${row.place}\n${row.user_id}`;
    const current = best.get(key);
    if (!current || row.access_level > current.access_level) best.set(key, row);
  }
  for (const row of rows) {
    row.effective = best.get(`${row.place_type} ${row.place}\n${row.user_id}`) === row;
    row.external = external.get(row.user_id) ?? null;
    row.findings = CONDITIONS.filter((condition) => meets(row, condition, live(row)));
  }
  return rows.sort((a, b) => compare(a.place, b.place) || compare(a.place_type, b.place_type) || compare(a.user, b.user) || Number(b.effective) - Number(a.effective));
}

function meets(row: AccessRow, condition: Condition, live: boolean): boolean {
  switch (condition) {
    case 'expired':
      return !live;
    case 'owner':
      return live && row.access_level >= 50;
    case 'external':
      return row.external === true;
    case 'no-expiry':
      return row.expires_at === null;
    case 'inactive':
      return row.user_state !== null && row.user_state !== 'active';
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
