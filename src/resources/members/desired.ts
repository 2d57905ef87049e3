import { findUsers } from '../../api/lookups.js';
import { routeOf } from '../../api/resource.js';
import { members, TOKEN_BOT } from './resource.js';
import { projects } from '../projects/resource.js';
import { groups } from '../groups/resource.js';
import { users as usersResource } from '../users/resource.js';
import { placed } from '../../api/resource.js';
import { ApiError, UsageError } from '../../errors.js';
import { ACCESS_LEVELS, accessLevelName, parseAccessLevel, parseDate } from '../../parse.js';
import { digestOf, sameValue, type Change, type FieldChange, type FieldSpec, type LiveObject, type Owner, type SectionIo } from '../../desired/model.js';
import type { Section } from '../../desired/section.js';

/**
 * Members of a project or group: users and the groups it is shared with, each with an access level and optionally
 * an expiry. `enforce: true` removes direct members and shared groups the file does not list, but not bot users
 * (an access token's, a service account) unless `keep_bots: false` says so: removing a token's bot revokes the token;
 * every removal is a line of the plan, by name (a bot's saying so), before anything is removed. The
 * caller is never removed, nor a top-level group's last owner: those show as findings the plan refuses to carry out.
 * Inherited members (from the groups above) are not direct members: they are never listed, changed or removed here.
 */

type Values = Record<string, unknown>;

/** One member as the file means it: an access level, and an expiry when the file gives one (null: none). */
interface Wanted {
  access_level: number;
  expires_at?: string | null;
}

interface Live {
  id: number;
  name: string;
  access_level: number;
  expires_at: string | null;
  bot?: boolean;
}

const ROLE_NAMES = Object.keys(ACCESS_LEVELS);
const ENTRY_SCHEMA = {
  anyOf: [
    { enum: [...ROLE_NAMES, ...Object.values(ACCESS_LEVELS)] },
    {
      type: 'object',
      additionalProperties: false,
      required: ['access_level'],
      properties: {
        access_level: { anyOf: [{ enum: ROLE_NAMES }, { enum: Object.values(ACCESS_LEVELS) }], description: 'the role' },
        expires_at: { type: ['string', 'null'], pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'the day the membership ends (YYYY-MM-DD); null: never' },
      },
    },
  ],
};

/** A map of members: `alice: developer` or `alice: {access_level: developer, expires_at: 2030-12-31}`. */
function membersSpec(what: 'users' | 'groups'): FieldSpec {
  return {
    schema: { type: 'object', additionalProperties: ENTRY_SCHEMA },
    help: what === 'users'
      ? 'users by username: a role (guest … owner), or {access_level, expires_at}'
      : 'groups (full paths) it is shared with: a role, or {access_level, expires_at}',
    parse(value, label) {
      const entries = Object.entries((value ?? {}) as Record<string, unknown>).map(([name, entry]): [string, Wanted] => {
        const given = entry && typeof entry === 'object' ? (entry as Values) : { access_level: entry };
        const wanted: Wanted = { access_level: parseAccessLevel(`${label}.${name}`)(String(given.access_level)) };
        if ('expires_at' in given) wanted.expires_at = given.expires_at === null ? null : parseDate(`${label}.${name}.expires_at`)(String(given.expires_at));
        return [what === 'users' ? name.replace(/^@/, '') : name, wanted];
      });
      const seen = new Set<string>();
      for (const [name] of entries) {
        if (seen.has(name.toLowerCase())) throw new UsageError(`${label} names ${name} twice`);
        seen.add(name.toLowerCase());
      }
      return Object.fromEntries(entries);
    },
    toFile: (value) => Object.fromEntries(Object.entries(value as Record<string, Wanted>).map(([name, wanted]) => [name, wanted.expires_at ? { access_level: accessLevelName(wanted.access_level), expires_at: wanted.expires_at } : accessLevelName(wanted.access_level)])),
  };
}

const FIELDS: Record<string, FieldSpec> = {
  users: membersSpec('users'),
  groups: membersSpec('groups'),
  enforce: { schema: { type: 'boolean' }, help: 'remove direct members and shared groups this file does not list (default false)' },
  keep_bots: { schema: { type: 'boolean' }, help: "with enforce: keep the bot users of access tokens and service accounts the file does not list (default true); false removes them too, and a token's bot removed revokes the token" },
};

const placementFor = (owner: Owner) => placed(members, owner.level === 'group' ? 'group' : 'project');
const parentOf = (owner: Owner): Values => ({ [owner.level]: owner.path });
const ownerRoute = (owner: Owner) => (owner.level === 'group' ? groups.routes.get : projects.routes.get);

/** The direct members (by lower-case username) and shared groups (by lower-case path) of an owner. */
async function readLive(io: SectionIo, owner: Owner): Promise<{ users: Map<string, Live>; groups: Map<string, Live>; topLevel: boolean }> {
  const users = new Map<string, Live>();
  for await (const member of io.api.list<{ id: number; username: string; access_level: number; expires_at: string | null }>(routeOf(placementFor(owner), 'list'), parentOf(owner), { all: true })) {
    users.set(member.username.toLowerCase(), { id: member.id, name: member.username, access_level: member.access_level, expires_at: member.expires_at ?? null });
  }
  const record = await io.api.call<{ parent_id?: number | null; namespace?: { kind?: string }; shared_with_groups?: SharedWith }>(ownerRoute(owner), { [owner.level]: owner.path, with_projects: false });
  const shared = new Map<string, Live>();
  for (const link of record.shared_with_groups ?? []) shared.set(link.group_full_path.toLowerCase(), { id: link.group_id, name: link.group_full_path, access_level: link.group_access_level, expires_at: link.expires_at ?? null });
  return { users, groups: shared, topLevel: owner.level === 'group' && (record.parent_id ?? null) === null };
}

const liveValues = (live: Live | undefined): Values | undefined => (live ? { access_level: live.access_level, expires_at: live.expires_at } : undefined);

/** The key of a change: the username, or "group PATH". */
const keyOf = (kind: 'user' | 'group', name: string): string => (kind === 'user' ? name : `group ${name}`);

function fieldChanges(live: Live | undefined, wanted: Wanted): FieldChange[] {
  const changes: FieldChange[] = [];
  if (!live || live.access_level !== wanted.access_level) changes.push({ field: 'access_level', ...(live ? { from: accessLevelName(live.access_level) } : {}), to: accessLevelName(wanted.access_level) });
  if (wanted.expires_at !== undefined && (!live || !sameValue(live.expires_at, wanted.expires_at))) changes.push({ field: 'expires_at', ...(live ? { from: live.expires_at } : {}), to: wanted.expires_at });
  return changes;
}

/** Whether a user is a bot or service account (GET /users/:id says `bot`). */
async function isBot(io: SectionIo, id: number): Promise<boolean> {
  const user = await io.api.call<{ bot?: boolean }>(usersResource.routes.get, { user: id });
  return user.bot === true;
}

async function planMembers(io: SectionIo, owner: Owner, desired: Values): Promise<Change[]> {
  const live = await readLive(io, owner);
  const wantedUsers = (desired.users ?? {}) as Record<string, Wanted>;
  const wantedGroups = (desired.groups ?? {}) as Record<string, Wanted>;
  const changes: Change[] = [];
  const change = (kind: 'user' | 'group', name: string, action: Change['action'], current: Live | undefined, fields: FieldChange[], values: Values, note?: string): Change => ({
    owner, section: 'members', key: keyOf(kind, name), action, fields, desired: { kind, name, ...values }, ref: current ? { id: current.id } : undefined, digest: digestOf(liveValues(current)), ...(note ? { note } : {}),
  });

  // Users the file lists but who are not members yet must exist: refused here, before anything changes.
  const missing = Object.keys(wantedUsers).filter((name) => !live.users.has(name.toLowerCase()));
  const ids = new Map((missing.length ? await findUsers(io.api, missing) : []).map((user) => [user.username.toLowerCase(), user.id]));

  // Who the caller is, read once and only when needed: forgectl never takes the caller's own access away.
  let caller: Promise<{ username: string; is_admin?: boolean }> | undefined;
  const whoAmI = () => (caller ??= io.api.call<{ username: string; is_admin?: boolean }>(usersResource.routes.current));
  for (const [name, wanted] of Object.entries(wantedUsers)) {
    const current = live.users.get(name.toLowerCase());
    const fields = fieldChanges(current, wanted);
    if (!fields.length) continue;
    // Lowering one's own role locks the caller (and every later run with its token) out of what it manages;
    // an administrator keeps access whatever the role, so only theirs goes through.
    if (current && wanted.access_level < current.access_level) {
      const me = await whoAmI();
      if (me.username.toLowerCase() === current.name.toLowerCase() && me.is_admin !== true) {
        changes.push(change('user', current.name, 'violation', current, fields, {}, `is you: forgectl never lowers the caller's own role (${accessLevelName(current.access_level)}); change it by hand, or with another token`));
        continue;
      }
    }
    changes.push(change('user', current?.name ?? name, current ? 'update' : 'create', current, fields, { ...wanted, user_id: current?.id ?? ids.get(name.toLowerCase()) }));
  }
  for (const [path, wanted] of Object.entries(wantedGroups)) {
    const current = live.groups.get(path.toLowerCase());
    const fields = fieldChanges(current, wanted);
    if (!fields.length) continue;
    // A share cannot be changed in place: it is removed and made again.
    const made = change('group', current?.name ?? path, current ? 'replace' : 'create', current, fields, { ...wanted });
    changes.push(current ? { ...made, replace_reason: SHARE_REPLACE } : made);
  }

  if (desired.enforce === true) {
    const listed = new Set(Object.keys(wantedUsers).map((name) => name.toLowerCase()));
    const me = (await whoAmI()).username.toLowerCase();
    const unlisted = [...live.users.entries()].filter(([name]) => !listed.has(name));
    // Owners left once the file is applied (a top-level group must keep one).
    const ownersAfter = Object.values(wantedUsers).filter((wanted) => wanted.access_level === ACCESS_LEVELS.owner).length;
    for (const [name, current] of unlisted) {
      // A bot goes only when the file says keep_bots: false (an exported file lists no bots: they would all go).
      const bot = await isBot(io, current.id);
      if (bot && desired.keep_bots !== false) continue;
      if (name === me) {
        changes.push(change('user', current.name, 'violation', current, [], {}, `is you: forgectl never removes the caller; list ${current.name} under users (or leave enforce off)`));
        continue;
      }
      if (live.topLevel && current.access_level === ACCESS_LEVELS.owner && ownersAfter === 0) {
        changes.push(change('user', current.name, 'violation', current, [], {}, `is an owner, and the group would have none left: list an owner under users`));
        continue;
      }
      changes.push(change('user', current.name, 'delete', current, [{ field: 'access_level', from: accessLevelName(current.access_level) }], bot ? { bot: true } : {}, bot ? botRemoval(current.name) : undefined));
    }
    const listedGroups = new Set(Object.keys(wantedGroups).map((path) => path.toLowerCase()));
    for (const [path, current] of live.groups) {
      if (!listedGroups.has(path)) changes.push(change('group', current.name, 'delete', current, [{ field: 'access_level', from: accessLevelName(current.access_level) }], {}));
    }
  }
  if (live.topLevel && Object.keys(wantedUsers).length) {
    // A demotion of the last owner is refused as the service would refuse it.
    const owners = [...live.users.values()].filter((member) => member.access_level === ACCESS_LEVELS.owner);
    const stay = owners.filter((member) => {
      const wanted = Object.entries(wantedUsers).find(([name]) => name.toLowerCase() === member.name.toLowerCase())?.[1];
      return wanted ? wanted.access_level === ACCESS_LEVELS.owner : !changes.some((c) => c.key === member.name && c.action === 'delete');
    });
    const becoming = Object.values(wantedUsers).some((wanted) => wanted.access_level === ACCESS_LEVELS.owner);
    if (owners.length && !stay.length && !becoming) {
      for (const c of changes) if (c.action === 'update' && owners.some((o) => o.name === c.key)) Object.assign(c, { action: 'violation', note: 'is the last owner: the group must keep one; list an owner under users' });
    }
  }
  return changes;
}

/** What removing a bot user does, for its line of the plan: a token's bot (named as the service names them) takes its token along. */
function botRemoval(username: string): string {
  const token = TOKEN_BOT.exec(username);
  return token ? `the bot user of a ${token[1]} access token: removing it revokes the token` : 'a bot user or service account: its tokens lose this access';
}

/** A saved plan's changes again (their digests now), to find the members that moved since. */
async function replan(io: SectionIo, owner: Owner, planned: Values[]): Promise<Change[]> {
  const live = await readLive(io, owner);
  return planned.map((values) => {
    const kind = values.kind as 'user' | 'group';
    const current = (kind === 'user' ? live.users : live.groups).get(String(values.name).toLowerCase());
    return { owner, section: 'members', key: keyOf(kind, String(values.name)), action: 'update', fields: [], digest: digestOf(liveValues(current)) };
  });
}

/** Why a changed share is removed and made again. */
const SHARE_REPLACE = "the service cannot change a shared group's role or expiry in place";

type SharedWith = Array<{ group_id: number; group_full_path: string; group_access_level: number; expires_at: string | null }>;

/** A share as it is, read before it is removed, to share the group again as it was should the new share fail. */
async function keepShare(io: SectionIo, owner: Owner, live: LiveObject): Promise<(() => Promise<void>) | undefined> {
  if (!live.key.startsWith('group ')) return undefined;
  const record = await io.api.call<{ shared_with_groups?: SharedWith }>(ownerRoute(owner), { [owner.level]: owner.path, with_projects: false });
  const link = record.shared_with_groups?.find((shared) => shared.group_id === live.ref?.id);
  if (!link) return undefined;
  return async () => void (await io.api.call(routeOf(placementFor(owner), 'share'), { ...parentOf(owner), group_id: link.group_id, group_access: link.group_access_level, expires_at: link.expires_at ?? undefined }));
}

async function addMember(io: SectionIo, owner: Owner, desired: Values): Promise<void> {
  const expires = desired.expires_at === null ? undefined : desired.expires_at;
  if (desired.kind === 'group') {
    const group = await io.api.call<{ id: number }>(groups.routes.get, { group: String(desired.name), with_projects: false });
    await io.api.call(routeOf(placementFor(owner), 'share'), { ...parentOf(owner), group_id: group.id, group_access: desired.access_level, expires_at: expires });
    return;
  }
  await io.api.call(routeOf(placementFor(owner), 'create'), { ...parentOf(owner), user_id: desired.user_id, access_level: desired.access_level, expires_at: expires });
}

/** Whether a saved change of a member follows from what the file declares (see follows.ts). */
function followsMembers(declared: unknown, change: Change): string | undefined {
  const desired = change.desired ?? {};
  const kind = desired.kind === 'group' || change.key.startsWith('group ') ? 'group' : 'user';
  const name = change.key.replace(/^group /, '').toLowerCase();
  const given = ((declared as Values)[kind === 'user' ? 'users' : 'groups'] ?? {}) as Record<string, Wanted>;
  const wanted = Object.entries(given).find(([listed]) => listed.toLowerCase() === name)?.[1];
  if (change.action === 'delete') {
    if (wanted) return 'it removes a member the file lists';
    if (desired.bot === true && (declared as Values).keep_bots !== false) return 'it removes a bot user, and the file keeps them (keep_bots)';
    return (declared as Values).enforce === true ? undefined : 'the file does not ask for members it does not list to be removed (enforce)';
  }
  if (!wanted) return 'the file does not list it';
  if (String(desired.name).toLowerCase() !== name || desired.kind !== kind) return 'it names another member than its key';
  if (desired.access_level !== wanted.access_level) return 'its access_level is not the one the file declares';
  if (wanted.expires_at !== undefined ? !sameValue(desired.expires_at, wanted.expires_at) : desired.expires_at !== undefined) return 'its expires_at is not the one the file declares';
  return undefined;
}

export const membersSection: Section = {
  key: 'members',
  noun: 'member',
  level: 'project',
  shape: 'one',
  help: 'Direct members and shared groups, each with a role and an optional expiry. enforce: true removes those not listed, bot users of access tokens and service accounts only with keep_bots: false (removing the bot of a token revokes the token); the plan names every removal. The caller and the last owner are never removed. Applied before the other sections, so they may name these members.',
  fields: FIELDS,
  exported: true,
  async read(io, owner) {
    const live = await readLive(io, owner);
    const humans: Record<string, Wanted> = {};
    for (const member of live.users.values()) {
      if (await isBot(io, member.id)) continue;
      humans[member.name] = { access_level: member.access_level, ...(member.expires_at ? { expires_at: member.expires_at } : {}) };
    }
    const shared = Object.fromEntries([...live.groups.values()].map((g): [string, Wanted] => [g.name, { access_level: g.access_level, ...(g.expires_at ? { expires_at: g.expires_at } : {}) }]));
    if (!Object.keys(humans).length && !Object.keys(shared).length) return [];
    return [{ key: 'members', values: { users: humans, ...(Object.keys(shared).length ? { groups: shared } : {}) } }];
  },
  async plan(io, owner, desired) {
    return Array.isArray(desired) ? replan(io, owner, desired as Values[]) : planMembers(io, owner, desired as Values);
  },
  create: (io, owner, desired) => addMember(io, owner, desired),
  keepOld: keepShare,
  follows: followsMembers,
  async update(io, owner, live, _changed, desired) {
    const expires = desired.expires_at === null ? '' : desired.expires_at;
    await io.api.call(routeOf(placementFor(owner), 'update'), { ...parentOf(owner), user_id: live.ref!.id, access_level: desired.access_level, expires_at: expires });
  },
  async remove(io, owner, live) {
    const kind = live.key.startsWith('group ') ? 'group' : 'user';
    try {
      if (kind === 'group') await io.api.call(routeOf(placementFor(owner), 'unshare'), { ...parentOf(owner), group_id: live.ref!.id });
      // Only what the plan names: a group's removal would otherwise take the user's memberships below it along.
      else await io.api.call(routeOf(placementFor(owner), 'delete'), { ...parentOf(owner), user_id: live.ref!.id, skip_subresources: owner.level === 'group' || undefined });
    } catch (error) {
      // Gone already: what the plan wanted.
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
  },
};

export const groupMembersSection: Section = { ...membersSection, level: 'group' };
