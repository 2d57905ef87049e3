import { ApiError, UsageError } from '../../errors.js';
import { accessLevelName, parseAccessLevel } from '../../parse.js';

/**
 * Who may push, merge, unprotect (protected branches) or create (protected tags): a role, a user, a group or a
 * deploy key. One grammar for the command line and desired-state files — `maintainer`, `no-access`, `user:alice`,
 * `group:acme/devs`, `deploy-key:3` (users and groups by name or ID) — resolved to the service's entries
 * (`{access_level}`, `{user_id}`, `{group_id}`, `{deploy_key_id}`) before anything is sent (allowedEntries in ./lookups.ts).
 */

/** One entry as the service presents it. */
export interface AccessEntry {
  id: number;
  access_level: number;
  access_level_description: string;
  user_id?: number | null;
  group_id?: number | null;
  deploy_key_id?: number | null;
}

/** One entry as the service takes it in allowed_to_push, allowed_to_merge, allowed_to_unprotect, allowed_to_create. */
export type AllowedEntry = { access_level: number } | { user_id: number } | { group_id: number } | { deploy_key_id: number };

export type Who = { role: number } | { user: string } | { group: string } | { deployKey: number };

/** The administrator level of protected branches. */
export const ADMIN_LEVEL = 60;

/** The lists of a protected branch: who may push, merge and unprotect. */
export type BranchList = 'push' | 'merge' | 'unprotect';
export const BRANCH_LISTS: BranchList[] = ['push', 'merge', 'unprotect'];

/** Roles each list accepts: no access (not for unprotect), Developer, Maintainer, Admin (self-managed). */
export const branchLevels = (list: BranchList): number[] => (list === 'unprotect' ? [30, 40, ADMIN_LEVEL] : [0, 30, 40, ADMIN_LEVEL]);

/** A role in words: maintainer, developer, no-access, admin. */
export const roleWord = (level: number): string => (level === 0 ? 'no-access' : level === ADMIN_LEVEL ? 'admin' : accessLevelName(level));

/** The levels in words for messages: "no-access, developer, maintainer". */
const levelWords = (levels: number[]): string => levels.map(roleWord).join(', ');

/** One `who` from text; `levels` are the roles the place accepts, `kinds` whether users, groups and deploy keys may be named. */
export function parseWho(text: string, label: string, levels: number[], kinds: { deployKeys?: boolean } = {}): Who {
  const item = text.trim();
  const named = /^(user|group|deploy-key|deploy_key):(.+)$/i.exec(item);
  if (named) {
    const kind = named[1].toLowerCase();
    const value = named[2].trim();
    if (kind === 'user' && value) return { user: value.replace(/^@/, '') };
    if (kind === 'group' && value) return { group: value };
    if (kind !== 'user' && kind !== 'group' && kinds.deployKeys && /^\d+$/.test(value)) return { deployKey: Number(value) };
  } else {
    const lower = item.toLowerCase();
    if ((lower === 'admin' || lower === 'administrator') && levels.includes(ADMIN_LEVEL)) return { role: ADMIN_LEVEL };
    try {
      return { role: parseAccessLevel(label, levels)(item) };
    } catch {
      // said below, with the other forms
    }
  }
  const forms = ['user:NAME', 'group:PATH', ...(kinds.deployKeys ? ['deploy-key:ID'] : [])].join(', ');
  throw new UsageError(`${label} takes ${forms} or a role (${levelWords(levels)}); got "${item}"`);
}

/** A comma-separated, repeatable option of `who`s. */
export function parseWhoList(label: string, levels: number[], kinds: { deployKeys?: boolean } = {}): (value: string, previous?: Who[]) => Who[] {
  return (value, previous = []) => [...previous, ...value.split(',').map((item) => item.trim()).filter(Boolean).map((item) => parseWho(item, label, levels, kinds))];
}

/** A `who` as text, the form exports and plans write. */
export function whoText(who: Who): string {
  if ('role' in who) return roleWord(who.role);
  if ('user' in who) return `user:${who.user}`;
  if ('group' in who) return `group:${who.group}`;
  return `deploy-key:${who.deployKey}`;
}


/** An entry's identity: the role, user, group or deploy key it names. */
export function entryKey(entry: Partial<AccessEntry> | AllowedEntry): string {
  const e = entry as Partial<AccessEntry>;
  if (e.user_id != null) return `user:${e.user_id}`;
  if (e.group_id != null) return `group:${e.group_id}`;
  if (e.deploy_key_id != null) return `key:${e.deploy_key_id}`;
  return `role:${e.access_level}`;
}

/** Whether a rule's list is exactly the entries asked: the same role and the same users, groups and deploy keys. */
export function sameEntries(asked: AllowedEntry[], have: Array<Partial<AccessEntry>>): boolean {
  const wanted = new Set(asked.map(entryKey));
  const present = new Set(have.map(entryKey));
  return wanted.size === present.size && [...wanted].every((key) => present.has(key));
}

/**
 * The service's refusal to protect a name protected already, and for nothing else: 409 "Protected branch 'main' already
 * exists" (branches), 422 "Name has already been taken" (tags; with another complaint beside it, that one is shown).
 */
export const protectedAlready = (error: unknown): error is ApiError =>
  error instanceof ApiError && (error.status === 409 || error.status === 422) && /^(name has already been taken|protected branch '.*' already exists)$/i.test(error.message.trim());

const isRole = (entry: Partial<AccessEntry> | AllowedEntry): boolean => entryKey(entry).startsWith('role:');

/**
 * An option's users, groups and deploy keys ("--allow-push user:alice,user:bob") when the answer lists fewer than
 * were sent: an edition without them (Free) takes the rule and drops them without a word, which can leave a rule that
 * nobody it names may use. Undefined when the answer has them all.
 */
export function leftOut(option: string, whos: Who[] | undefined, sent: AllowedEntry[] | undefined, answer: Array<Partial<AccessEntry>> | undefined): string | undefined {
  const kept = new Set((answer ?? []).map(entryKey));
  if (!(sent ?? []).some((entry) => !isRole(entry) && !kept.has(entryKey(entry)))) return undefined;
  return `${option} ${(whos ?? []).filter((who) => !('role' in who)).map(whoText).join(',')}`;
}

/** The role an option asked for ("--push-access-level no-access") when the answer's roles do not include it. */
export function levelLeftOut(option: string, level: number | undefined, answer: Array<Partial<AccessEntry>>): string | undefined {
  if (level === undefined || answer.some((entry) => isRole(entry) && entry.access_level === level)) return undefined;
  return `${option} ${roleWord(level)}`;
}

/** The entries an option took away ("--disallow-push user:bob") when the answer still lists some of them. */
export function stillListed(option: string, whos: Who[] | undefined, removed: AllowedEntry[], answer: Array<Partial<AccessEntry>>): string | undefined {
  const present = new Set(answer.map(entryKey));
  return removed.some((entry) => present.has(entryKey(entry))) ? `${option} ${(whos ?? []).map(whoText).join(',')}` : undefined;
}

/** What to say when the instance left out part of a rule: the rule stands as its answer shows, exit 9. */
export const leftOutMessage = (parts: string[]): string =>
  `attention: the instance left out ${parts.join(' and ')} (they need Premium); the rule stands as shown`;

/**
 * The PATCH list of one kind that turns the current entries into what was asked, touching nothing else: a new role
 * replaces the current role entries; allowed users, groups and keys are added when missing; removed ones are
 * destroyed by their entry id.
 */
export function patchEntries(current: AccessEntry[], options: { level?: number; allow?: AllowedEntry[]; disallow?: AllowedEntry[] }): Array<Record<string, unknown>> {
  const patch: Array<Record<string, unknown>> = [];
  const have = new Map(current.map((entry) => [entryKey(entry), entry]));
  const destroy = (entry: AccessEntry): void => void patch.push({ id: entry.id, _destroy: true });
  if (options.level !== undefined) {
    for (const entry of current) if (isRole(entry) && entry.access_level !== options.level) destroy(entry);
    if (!have.has(`role:${options.level}`)) patch.push({ access_level: options.level });
  }
  for (const entry of options.allow ?? []) {
    if (!have.has(entryKey(entry)) && !patch.some((p) => entryKey(p as AllowedEntry) === entryKey(entry) && !p._destroy)) patch.push({ ...entry });
  }
  for (const entry of options.disallow ?? []) {
    const found = have.get(entryKey(entry));
    if (found && !patch.some((p) => p.id === found.id)) destroy(found);
  }
  return patch;
}

/** The PATCH list of one kind that makes the current entries exactly the desired ones (desired state). */
export function replaceEntries(current: AccessEntry[], desired: AllowedEntry[]): Array<Record<string, unknown>> {
  const wanted = new Set(desired.map(entryKey));
  const have = new Set(current.map(entryKey));
  return [
    ...current.filter((entry) => !wanted.has(entryKey(entry))).map((entry) => ({ id: entry.id, _destroy: true })),
    ...desired.filter((entry) => !have.has(entryKey(entry))).map((entry) => ({ ...entry })),
  ];
}
