import { ADMIN_LEVEL, BRANCH_LISTS, branchLevels, describeEntries, parseWhoList, type BranchList, type Who } from '../../api/protected-access.js';
import type { ProtectedBranch } from '../../api/resources/protected-branches.js';
import type { OptionDef } from '../../cli/command.js';
import { parseAccessLevel, withChoices } from '../../parse.js';

/** Options and request bodies shared by `protected-branches protect` and `update`. */

export type Kind = BranchList;
export const KINDS = BRANCH_LISTS;
export const levelsOf = branchLevels;

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
      { flags: `--${kind}-access-level <role>`, description: `least role allowed to ${kind}: ${roles}`, parse: withChoices((text: string) => (/^admin(istrator)?$/i.test(text.trim()) ? ADMIN_LEVEL : level(text)), [...level.choices, 'admin']) },
      { flags: `--allow-${kind} <who>`, description: whoHelp(kind), parse: parseWhoList(`--allow-${kind}`, levelsOf(kind), { deployKeys: kind === 'push' }) },
    ];
  });
}

export const levelOption = (opts: AccessOptions, kind: Kind): number | undefined => opts[`${kind}AccessLevel` as const];
export const allowOption = (opts: AccessOptions, kind: Kind): Who[] | undefined => ({ push: opts.allowPush, merge: opts.allowMerge, unprotect: opts.allowUnprotect })[kind];

/** Who may push, merge and unprotect, in words, for the table. */
export function withWho(rule: ProtectedBranch): ProtectedBranch & { push: string; merge: string; unprotect: string } {
  return { ...rule, push: describeEntries(rule.push_access_levels), merge: describeEntries(rule.merge_access_levels), unprotect: describeEntries(rule.unprotect_access_levels) };
}
