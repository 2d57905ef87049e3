import { protectedBranches as protectedBranchDeclaration } from '../resources/protected-branches/resource.js';
import { ADMIN_LEVEL, entryKey } from '../resources/protected-branches/values.js';
import { memberRoleInGroup, projectRole, Role } from './auth.js';
import type { Db } from './db.js';
import { groupById, groupChain, projectGroup } from './hierarchy.js';
import { presentRecord } from './records.js';
import type { Tier } from './http.js';
import { protectedBranches, protectedTagTable, sshKeyTable, users, type CreateAccess, type Project, type ProtectedBranch, type SshKey, type User } from './model.js';

/**
 * Branch protection as the repository modules need it: which rules cover a branch (exact names and wildcards, the
 * project's own and its groups'), who may push to and merge into it, how a rule is presented, and the protection of
 * a project's default branch (Maintainers push and merge), which the service adds when the default branch gets its
 * first commit: a project created with a README, the seeded ones, and the first push to an empty repository.
 */

/** Deploy keys enabled on a project (protected branches and tags may allow them to push and create tags). */
export function deployKeysOf(db: Db, projectId: number): SshKey[] {
  return sshKeyTable(db).filter((key) => key.deploy_keys_projects?.some((link) => link.project_id === projectId));
}

const BRANCH_LEVEL_DESCRIPTIONS: Record<number, string> = { 0: 'No one', 30: 'Developers + Maintainers', 40: 'Maintainers', [ADMIN_LEVEL]: 'Admins' };

/** Whether a rule's name covers a branch: the same name, or a wildcard where `*` stands for any text (slashes too). */
export function coversBranch(rule: string, branch: string): boolean {
  if (!rule.includes('*')) return rule === branch;
  const pattern = rule.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${pattern}$`, 's').test(branch);
}

/** The rules that cover a branch of a project: the project's own and those of its groups. */
export function rulesFor(db: Db, project: Project, branch: string): ProtectedBranch[] {
  const groupIds = new Set(groupChain(db, projectGroup(db, project)?.id ?? null).map((group) => group.id));
  return protectedBranches(db).filter((rule) => (rule.project_id === project.id || (rule.group_id !== undefined && groupIds.has(rule.group_id))) && coversBranch(rule.name, branch));
}

/** Whether a protected-tag rule of the project (exact name or wildcard) covers the tag. */
export function tagProtected(db: Db, project: Project, tag: string): boolean {
  return protectedTagTable(db).some((rule) => rule.project_id === project.id && coversBranch(rule.name, tag));
}

function allows(db: Db, user: User, project: Project, entry: CreateAccess): boolean {
  if (entry.user_id !== undefined) return entry.user_id === user.id && projectRole(db, user, project) >= Role.developer;
  if (entry.group_id !== undefined) {
    const group = groupById(db, entry.group_id);
    return group !== undefined && memberRoleInGroup(db, user, group) >= Role.developer;
  }
  if (entry.deploy_key_id !== undefined || entry.access_level === 0) return false;
  if (entry.access_level === ADMIN_LEVEL) return Boolean(user.is_admin);
  return projectRole(db, user, project) >= entry.access_level;
}

/** Whether the user may push to the branch: Developers where no rule covers it; else what the most permissive rule allows. */
export const mayPush = (db: Db, user: User | undefined, project: Project, branch: string): boolean => mayUseBranch(db, user, project, branch, 'push_access_levels');

/** Whether the user may merge into the branch (as mayPush, with the merge entries). */
export const mayMerge = (db: Db, user: User | undefined, project: Project, branch: string): boolean => mayUseBranch(db, user, project, branch, 'merge_access_levels');

function mayUseBranch(db: Db, user: User | undefined, project: Project, branch: string, entries: 'push_access_levels' | 'merge_access_levels'): boolean {
  if (!user || projectRole(db, user, project) < Role.developer) return false;
  const rules = rulesFor(db, project, branch);
  return !rules.length || rules.some((rule) => rule[entries].some((entry) => allows(db, user, project, entry)));
}

/** Whether the user may unprotect a rule of the project: Maintainers, or those its unprotect entries name when it has some. */
export function mayUnprotect(db: Db, user: User | undefined, project: Project, rule: ProtectedBranch): boolean {
  if (!user || projectRole(db, user, project) < Role.maintainer) return false;
  return !rule.unprotect_access_levels.length || rule.unprotect_access_levels.some((entry) => allows(db, user, project, entry));
}

/** Protects a project's default branch as the service does when it gets its first commit: Maintainers push and merge. */
export function protectDefaultBranch(db: Db, project: Project): void {
  if (protectedBranches(db).some((rule) => rule.project_id === project.id && rule.name === project.default_branch)) return;
  const maintainers = (): CreateAccess[] => [{ id: db.nextId('protected_branch_access'), access_level: Role.maintainer }];
  protectedBranches(db).push({
    id: db.nextId('protected_branches'),
    project_id: project.id,
    name: project.default_branch,
    push_access_levels: maintainers(),
    merge_access_levels: maintainers(),
    unprotect_access_levels: [],
    allow_force_push: false,
    code_owner_approval_required: false,
  });
}

/** The words of a rule's access entries: its roles, and what a deploy key gone since is called. */
interface EntryWords {
  levels: Record<number, string>;
  deployKey: string;
}

const BRANCH_WORDS: EntryWords = { levels: BRANCH_LEVEL_DESCRIPTIONS, deployKey: 'Deploy key' };

/** Protected tags take no Admins level, and name a deploy key gone since by nothing. */
export const TAG_WORDS: EntryWords = { levels: { 0: 'No one', 30: 'Developers + Maintainers', 40: 'Maintainers' }, deployKey: '' };

function describe(db: Db, entry: CreateAccess, words: EntryWords): string {
  if (entry.user_id !== undefined) return users(db).find((u) => u.id === entry.user_id)?.name ?? '';
  if (entry.group_id !== undefined) return groupById(db, entry.group_id)?.name ?? '';
  if (entry.deploy_key_id !== undefined) return sshKeyTable(db).find((k) => k.id === entry.deploy_key_id)?.title ?? words.deployKey;
  return words.levels[entry.access_level] ?? String(entry.access_level);
}

/** One access entry as the service presents it: the enterprise edition names the user and group of every entry. */
export function presentEntry(db: Db, entry: CreateAccess, tier: Tier, words = BRANCH_WORDS): Record<string, unknown> {
  return {
    id: entry.id,
    access_level: entry.access_level,
    access_level_description: describe(db, entry, words),
    ...(tier === 'free' ? {} : { user_id: entry.user_id ?? null, group_id: entry.group_id ?? null }),
    ...(entry.deploy_key_id !== undefined ? { deploy_key_id: entry.deploy_key_id } : {}),
  };
}

/** Each role, user, group and deploy key once, as the service stores them. */
export function uniqueEntries<T extends Omit<CreateAccess, 'id'>>(entries: T[]): T[] {
  const seen = new Set<string>();
  return entries.filter((entry) => (seen.has(entryKey(entry)) ? false : (seen.add(entryKey(entry)), true)));
}

/**
 * What a rule's answer computes beside its stored fields: the entries with their words, and (Premium; the free edition
 * answers without it) whether a project shows its group's rule.
 */
export const protectionComputed = (db: Db, rule: ProtectedBranch, tier: Tier, inherited: boolean): Record<string, unknown> => ({
  push_access_levels: rule.push_access_levels.map((entry) => presentEntry(db, entry, tier)),
  merge_access_levels: rule.merge_access_levels.map((entry) => presentEntry(db, entry, tier)),
  unprotect_access_levels: rule.unprotect_access_levels.map((entry) => presentEntry(db, entry, tier)),
  inherited: tier === 'free' ? undefined : inherited,
});

/** A rule as the service presents it (in approval rules, which name the branches they protect). */
export const presentProtectedBranch = (db: Db, rule: ProtectedBranch, tier: Tier = 'premium'): Record<string, unknown> =>
  presentRecord(protectedBranchDeclaration, rule, protectionComputed(db, rule, tier, false));
