import { ADMIN_LEVEL, describeEntries, parseWhoList, type AccessEntry, type AllowedEntry, type Who } from '../../api/protected-access.js';
import type { ProtectedBranch } from '../../api/resources/protected-branches.js';
import type { OptionDef } from '../../cli/command.js';
import { parseAccessLevel } from '../../parse.js';

/** Options and request bodies shared by `protected-branches protect` and `update`. */

export type Kind = 'push' | 'merge' | 'unprotect';
export const KINDS: Kind[] = ['push', 'merge', 'unprotect'];

/** Roles each list accepts: no access (not for unprotect), Developer, Maintainer, Admin (60, self-managed). */
export const levelsOf = (kind: Kind): number[] => (kind === 'unprotect' ? [30, 40, ADMIN_LEVEL] : [0, 30, 40, ADMIN_LEVEL]);

export interface AccessOptions {
  pushAccessLevel?: number;
  mergeAccessLevel?: number;
  unprotectAccessLevel?: number;
  allowPush?: Who[];
  allowMerge?: Who[];
  allowUnprotect?: Who[];
  allowForcePush?: boolean;
  codeOwnerApproval?: boolean;
}

const whoHelp = (kind: Kind): string => `also allowed to ${kind}: user:NAME, group:PATH${kind === 'push' ? ', deploy-key:ID' : ''} or a role, comma-separated, repeatable (Premium)`;

/** --push-access-level … and --allow-push … for each of push, merge and unprotect. */
export function accessOptions(): OptionDef[] {
  return KINDS.flatMap((kind): OptionDef[] => {
    const roles = kind === 'unprotect' ? 'developer, maintainer, admin or 30/40/60' : 'no-access, developer, maintainer, admin or 0/30/40/60';
    const level = parseAccessLevel(`--${kind}-access-level`, levelsOf(kind));
    return [
      { flags: `--${kind}-access-level <role>`, description: `least role allowed to ${kind}: ${roles}`, parse: (text: string) => (/^admin(istrator)?$/i.test(text.trim()) ? ADMIN_LEVEL : level(text)) },
      { flags: `--allow-${kind} <who>`, description: whoHelp(kind), parse: parseWhoList(`--allow-${kind}`, levelsOf(kind), { deployKeys: kind === 'push' }) },
    ];
  });
}

export const levelOption = (opts: AccessOptions, kind: Kind): number | undefined => opts[`${kind}AccessLevel` as const];
export const allowOption = (opts: AccessOptions, kind: Kind): Who[] | undefined => ({ push: opts.allowPush, merge: opts.allowMerge, unprotect: opts.allowUnprotect })[kind];

/** An entry's identity: the role, user, group or deploy key it names. */
export function entryKey(entry: Partial<AccessEntry> | AllowedEntry): string {
  const e = entry as Partial<AccessEntry>;
  if (e.user_id != null) return `user:${e.user_id}`;
  if (e.group_id != null) return `group:${e.group_id}`;
  if (e.deploy_key_id != null) return `key:${e.deploy_key_id}`;
  return `role:${e.access_level}`;
}

const isRole = (entry: Partial<AccessEntry> | AllowedEntry): boolean => entryKey(entry).startsWith('role:');

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

/** Who may push, merge and unprotect, in words, for the table. */
export function withWho(rule: ProtectedBranch): ProtectedBranch & { push: string; merge: string; unprotect: string } {
  return { ...rule, push: describeEntries(rule.push_access_levels), merge: describeEntries(rule.merge_access_levels), unprotect: describeEntries(rule.unprotect_access_levels) };
}
