import { createHash } from 'node:crypto';
import { f } from '../../api/fields.js';
import { groupIds, userIds } from '../../api/lookups.js';
import { maskUrlCredentials, withoutCredentials } from '../../api/mirrors.js';
import { multipartBody } from '../../api/multipart.js';
import { PUSH_RULE_REGEX_FIELDS } from '../../api/push-rules.js';
import { placed } from '../../api/resource.js';
import { approvalRules } from '../../resources/approval-rules/resource.js';
import { approvalSettings } from '../../resources/approval-settings/resource.js';
import { badges } from '../../resources/badges/resource.js';
import { freezePeriods } from '../../resources/freeze-periods/resource.js';
import { HOOK_EVENT_FLAGS, HOOK_EVENTS, hooks } from '../../resources/hooks/resource.js';
import { protectedTags } from '../../resources/protected-tags/resource.js';
import { pullMirror } from '../../resources/pull-mirror/resource.js';
import { pushRule } from '../../resources/push-rule/resource.js';
import { SECURE_FILE_LIMITS, secureFiles } from '../../resources/secure-files/resource.js';
import { accessLevelName } from '../../parse.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import type { FieldSpec, Owner, SectionIo } from '../model.js';
import { pick, refuse, specOf, specsOf } from '../section.js';
import { bodyOf, collectionSection, singletonSection } from './generic.js';

/** The sections of a project in a desired-state file, each through its resource declaration. */

type Values = Record<string, unknown>;

const REGEX_FIELDS: readonly string[] = PUSH_RULE_REGEX_FIELDS;

/** "" and null both mean "no regex": the service presents an unset one as null. */
function noEmptyRegex(fields: readonly string[]) {
  return (values: Values): Values => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, fields.includes(k) && v === '' ? null : v]));
}

export const pushRuleSection = singletonSection(pushRule, {
  key: 'push_rule',
  help: 'The push rule (Premium): what every push must satisfy. null: no push rule.',
  fields: specsOf(pushRule, [], Object.fromEntries(REGEX_FIELDS.map((name) => [name, { nullable: true }]))),
  overrides: { check: noEmptyRegex(REGEX_FIELDS) },
});

export const approvalsSection = singletonSection(approvalSettings, {
  key: 'approvals',
  help: 'The approval configuration (Premium). Only the settings given are compared.',
  fields: specsOf(approvalSettings),
  overrides: {
    check(values) {
      if (values.selective_code_owner_removals === true && values.reset_approvals_on_push === true) {
        refuse('selective_code_owner_removals', 'can only be true when reset_approvals_on_push is false');
      }
      return values;
    },
    async update(io, owner, _live, changed, desired) {
      const body = await bodyOf(io, approvalsSection, desired, changed);
      if ('require_reauthentication_to_approve' in body) body.require_password_to_approve = body.require_reauthentication_to_approve;
      // Both names of the one setting: older instances know only require_password_to_approve.
      await io.api.call(approvalSettings.routes.update, { project: owner.path, ...body });
    },
  },
});

const MIRROR_CREDENTIALS = ['auth_user', 'auth_password'];

export const pullMirrorSection = singletonSection(pullMirror, {
  key: 'pull_mirror',
  help: 'Pull mirroring (Premium). Credentials go in auth_user and auth_password (a secret reference), never in the URL. null: no mirroring.',
  fields: specsOf(pullMirror, [], { mirror_branch_regex: { nullable: true } }),
  upsert: true,
  removeBody: { enabled: false },
  // The service answers 400 "The project is not mirrored" when there is none.
  absent: (error) => error.status === 400 && /not mirrored/i.test(error.message),
  // A new URL may need its credentials again: they are sent with it.
  resend: (changed) => (changed.includes('url') ? MIRROR_CREDENTIALS : []),
  // Compared without the (masked) credentials the service shows in the URL.
  values: (record) => ({ ...pick(record, pullMirrorSection.fields), url: typeof record.url === 'string' ? withoutCredentials(record.url) : null }),
  overrides: {
    check(values) {
      if (typeof values.url === 'string' && withoutCredentials(values.url) !== values.url) {
        refuse('url', 'holds credentials, which a desired-state file must not', 'give auth_user, and auth_password as {env: VARIABLE}, {file: PATH} or {command: …}');
      }
      if (values.mirror_branch_regex && values.only_mirror_protected_branches === true) refuse('mirror_branch_regex', 'cannot be combined with only_mirror_protected_branches: true');
      return noEmptyRegex(['mirror_branch_regex'])(values);
    },
  },
});

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

export const badgesSection = collectionSection(badges, {
  key: 'badges',
  help: "The project's own badges, paired by name (its groups' badges are left alone). Badges forgectl creates carry [forgectl] at the end of their name.",
  fields: specsOf(badges),
  keep: (record) => record.kind !== 'group',
  marker: 'name',
  required: ['name', 'link_url', 'image_url'],
});

export const freezePeriodsSection = collectionSection(freezePeriods, {
  key: 'freeze_periods',
  help: 'Deploy freeze periods, paired by their start, end (cron expressions, checked as the flags are) and time zone (default UTC).',
  fields: specsOf(freezePeriods),
  required: ['freeze_start', 'freeze_end'],
});

export const approvalRulesSection = collectionSection(placed(approvalRules, 'project'), {
  key: 'approval_rules',
  help: 'Approval rules (Premium), paired by name; eligible approvers by username and group path (resolved to IDs when applied).',
  fields: {
    ...specsOf(approvalRules, ['eligible_approvers', 'users', 'groups', 'protected_branches']),
    users: { schema: { type: 'array', items: { type: 'string' }, uniqueItems: true }, help: 'usernames of eligible approvers' },
    groups: { schema: { type: 'array', items: { type: 'string' }, uniqueItems: true }, help: 'full paths of eligible groups' },
  },
  values(record) {
    const users = ((record.users as Array<{ username: string }> | undefined) ?? []).map((u) => u.username).sort();
    const groups = ((record.groups as Array<{ full_path: string }> | undefined) ?? []).map((g) => g.full_path).sort();
    return { ...pick(record, approvalRulesSection.fields), users, groups };
  },
  async body(io, desired, names) {
    const body = await bodyOf(io, approvalRulesSection, desired, names.filter((n) => n !== 'users' && n !== 'groups'));
    // An unknown user fails this rule, not the whole run.
    if (names.includes('users') && desired.users) {
      body.user_ids = await userIds(io.api, desired.users as string[]).catch((error: unknown) => {
        throw error instanceof UsageError ? new CliError(error.message, ExitCode.rejected) : error;
      });
    }
    if (names.includes('groups') && desired.groups) body.group_ids = await groupIds(io.api, desired.groups as string[]);
    return body;
  },
  required: ['name', 'approvals_required'],
  overrides: {
    check(values) {
      if (values.rule_type === 'report_approver' && values.report_type === undefined) refuse('rule_type', 'report_approver needs report_type');
      return { ...values, ...(Array.isArray(values.users) ? { users: [...values.users].sort() } : {}), ...(Array.isArray(values.groups) ? { groups: [...values.groups].sort() } : {}) };
    },
  },
});

const EVENT_NAMES = HOOK_EVENT_FLAGS.map((flag) => HOOK_EVENTS[flag].name);

/** Whether a URL carries a user or password itself (`https://{user}:{password}@…` names URL variables instead). */
const credentialsIn = (url: string): boolean => {
  const userinfo = /^[a-z][\w+.-]*:\/\/([^/?#]*)@/i.exec(url)?.[1];
  return userinfo !== undefined && /[^:]/.test(userinfo.replace(/\{[^{}]*\}/g, ''));
};
/** A hook's URL as plans show and save it: a user or password in it masked. */
const shownHookUrl = (url: unknown): unknown => (typeof url === 'string' && credentialsIn(url) ? maskUrlCredentials(url) : url);
const secretMap: FieldSpec = { schema: { type: 'object', additionalProperties: { $ref: '#/definitions/secret' } }, secret: true };
const sortedKeys = (value: unknown): string[] => Object.keys((value as Record<string, unknown>) ?? {}).sort();

export const hooksSection = collectionSection(hooks, {
  key: 'hooks',
  help: 'Webhooks, paired by URL (a new URL is a new hook). events lists what is delivered; token, url_variables and custom_headers values are write-only secret references, sent when the hook is created and when their names change. Hooks forgectl creates carry [forgectl] in their description.',
  fields: {
    url: specOf(hooks.fields.url),
    name: specOf(hooks.fields.name),
    description: specOf(hooks.fields.description, { nullable: true }),
    events: { schema: { type: 'array', items: { enum: EVENT_NAMES }, uniqueItems: true }, help: 'the events delivered; the others are off' },
    push_events_branch_filter: specOf(hooks.fields.push_events_branch_filter, { nullable: true }),
    branch_filter_strategy: specOf(hooks.fields.branch_filter_strategy),
    enable_ssl_verification: specOf(hooks.fields.enable_ssl_verification),
    custom_webhook_template: specOf(hooks.fields.custom_webhook_template, { nullable: true }),
    token: specOf(hooks.fields.token),
    url_variables: { ...secretMap, help: 'values of the {name} parts of the URL, by name' },
    custom_headers: { ...secretMap, help: 'extra request headers, by name' },
  },
  values(record) {
    const keys = (list: unknown) => ((list as Array<{ key: string }> | undefined) ?? []).map((v) => v.key).sort();
    return {
      ...pick(record, hooksSection.fields),
      url: shownHookUrl(record.url),
      events: HOOK_EVENT_FLAGS.filter((flag) => record[flag] === true).map((flag) => HOOK_EVENTS[flag].name),
      url_variables: keys(record.url_variables),
      custom_headers: keys(record.custom_headers),
    };
  },
  async body(io, desired, names) {
    const body = await bodyOf(io, hooksSection, desired, names.filter((n) => n !== 'events'));
    if (names.includes('events')) for (const flag of HOOK_EVENT_FLAGS) body[flag] = (desired.events as string[]).includes(HOOK_EVENTS[flag].name);
    // The service still documents url as required on update.
    body.url = desired.url;
    return body;
  },
  marker: 'description',
  required: ['url'],
  overrides: {
    compareAs: { url_variables: sortedKeys, custom_headers: sortedKeys },
    check(values) {
      if (typeof values.url === 'string' && credentialsIn(values.url)) {
        refuse('url', 'holds credentials, which a desired-state file must not', 'write them as {user} and {password} in the URL (https://{user}:{password}@host/…) and give their values in url_variables as secret references ({env: VARIABLE}, {file: PATH})');
      }
      if (Array.isArray(values.events)) values.events = EVENT_NAMES.filter((name) => (values.events as string[]).includes(name));
      const template = typeof values.url === 'string' ? [...values.url.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]) : [];
      const missing = template.filter((name) => !(name in ((values.url_variables as Record<string, unknown>) ?? {})));
      if (missing.length) refuse('url', `names ${missing.map((m) => `{${m}}`).join(', ')} but url_variables does not give ${missing.length > 1 ? 'them' : 'it'}`);
      return values;
    },
  },
});

/** Uploads a secure file's bytes under its name. */
async function uploadSecureFile(io: SectionIo, owner: Owner, name: string, data: Buffer): Promise<void> {
  const rawBody = multipartBody([
    { name: 'name', value: name },
    { name: 'file', value: data, filename: name, contentType: 'application/octet-stream' },
  ]);
  await io.api.call(secureFiles.routes.upload, { project: owner.path }, { rawBody });
}

/** The bytes of a secure file's local file, refused when they are not what the plan compared. */
function localSecureFile(io: SectionIo, desired: Values): Buffer {
  const data = io.readLocal(String(desired.file));
  if (createHash('sha256').update(data).digest('hex') !== desired.checksum) {
    refuse(`secure file ${String(desired.file)}`, 'changed after the plan was made', 'make the plan again');
  }
  return data;
}

export const secureFilesSection = collectionSection(secureFiles, {
  key: 'secure_files',
  help: 'CI secure files, paired by name: `file` names a local file (relative to this file), compared by its sha256 with the checksum the service keeps, without downloading it. A changed file is deleted and uploaded again (the old one is read first, so that it can be put back should the upload fail).',
  fields: {
    name: specOf(secureFiles.fields.name),
    file: { schema: { type: 'string', minLength: 1 }, help: 'the local file (at most 5 MB), relative to the desired-state file', writeOnly: true },
  },
  values: (record) => ({ name: record.name, checksum: record.checksum }),
  required: ['name', 'file'],
  replaceOnly: true,
  replaceReason: 'the service cannot change the content of a secure file',
  overrides: {
    // The service keeps only a checksum: an export could not say which local file holds the content.
    exported: false,
    check(values, local) {
      const data = local.read(String(values.file));
      if (data.length > SECURE_FILE_LIMITS.maxBytes) refuse('file', `${String(values.file)} is ${data.length.toLocaleString('en-US')} bytes; secure files may be at most 5 MB`);
      return { ...values, checksum: createHash('sha256').update(data).digest('hex') };
    },
    async prepare(io, change) {
      localSecureFile(io, change.desired ?? {});
    },
    async create(io, owner, desired) {
      await uploadSecureFile(io, owner, String(desired.name), localSecureFile(io, desired));
    },
    // The old content, downloaded (into memory only) before the delete, to upload it again should the new upload fail.
    async keepOld(io, owner, live) {
      const old = await (await io.api.open(secureFiles.routes.download, { project: owner.path, ...(live.ref as { secure_file_id: number }) })).buffer();
      return () => uploadSecureFile(io, owner, live.key, old);
    },
  },
});
