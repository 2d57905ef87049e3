import { f } from '../../api/fields.js';
import { collectionSection } from '../../desired/sections/generic.js';
import { specOf } from '../../desired/section.js';
import { accessLevelName } from '../../parse.js';
import { protectedTags } from './resource.js';

/** Protected tags in a desired-state file (a project's `protected_tags`). */

type Values = Record<string, unknown>;

/** Access levels a protected tag's create level may have; written by name in exports. */
const TAG_LEVELS = [0, 30, 40];
const levelName = (value: unknown): unknown => (typeof value === 'number' ? (value === 0 ? 'no-access' : accessLevelName(value)) : value);

type TagLevel = { access_level?: number; user_id?: number | null; group_id?: number | null; deploy_key_id?: number | null };
const tagLevels = (record: Values): TagLevel[] => (record.create_access_levels as TagLevel[] | undefined) ?? [];
/** A role's entry (not a user's, a group's or a deploy key's). */
const isRole = (level: TagLevel): boolean => level.user_id == null && level.group_id == null && level.deploy_key_id == null;

export const protectedTagsSection = collectionSection(protectedTags, {
  key: 'protected_tags',
  help: 'Protected tags: a name or wildcard, and who may create matching tags (developer, maintainer or no-access; default maintainer). A changed level unprotects and protects the tag again.',
  fields: {
    name: specOf(protectedTags.fields.name),
    create_access_level: specOf(f.accessLevel(TAG_LEVELS, { help: 'who may create matching tags' }), { toFile: levelName }),
  },
  values(record) {
    const level = tagLevels(record).find(isRole)?.access_level ?? null;
    return { name: record.name, create_access_level: level };
  },
  replaceOnly: true,
  replaceReason: "the service cannot change a protected tag's level in place",
  overrides: {
    lostWithDelete: (object) => `unprotected, ${object.key.includes('*') ? 'the tags it matches' : 'the tag'} may be created and deleted by every Developer`,
    // Who may create matching tags, read before the unprotect, to protect the tag again as it was should the new protection fail.
    async keepOld(io, owner, live) {
      const record = await io.api.call<Values>(protectedTags.routes.get, { project: owner.path, ...(live.ref as { name: string }) });
      const levels = tagLevels(record);
      const others = levels.filter((level) => !isRole(level)).map((level) => (level.user_id != null ? { user_id: level.user_id } : level.group_id != null ? { group_id: level.group_id } : { deploy_key_id: level.deploy_key_id }));
      const body = { project: owner.path, name: String(record.name), create_access_level: levels.find(isRole)?.access_level, allowed_to_create: others.length ? others : undefined };
      return async () => void (await io.api.call(protectedTags.routes.create, body));
    },
  },
});
