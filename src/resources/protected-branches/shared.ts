import type { Api } from '../../api/client.js';
import { EntryNames } from '../../api/lookups.js';
import { ADMIN_LEVEL, BRANCH_LISTS, branchLevels, parseWhoList, sameEntries, type AccessEntry, type AllowedEntry, type BranchList, type Who } from './values.js';
import type { ProtectedBranch } from './resource.js';
import type { Context, OptionDef } from '../../cli/command.js';
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

export type RuleWithWho = ProtectedBranch & { push: string; merge: string; unprotect: string };

/** One reader of user and group names per client (per run, per fleet project). */
const readers = new WeakMap<Api, EntryNames>();

/**
 * Who may push, merge and unprotect, in the words the options take ("maintainer, user:alice"): the records' computed
 * columns, in every output and for --fields.
 */
export async function withWho(rules: ProtectedBranch[], ctx: Context): Promise<RuleWithWho[]> {
  let names = readers.get(ctx.api);
  if (!names) readers.set(ctx.api, (names = new EntryNames(ctx.api)));
  const reader = names;
  return Promise.all(rules.map(async (rule) => {
    const [push, merge, unprotect] = await reader.describe([rule.push_access_levels, rule.merge_access_levels, unprotectList(rule)]);
    return { ...rule, push, merge, unprotect };
  }));
}

/** The service leaves unprotecting to Maintainers when the list is empty: said so, not left blank. */
const unprotectList = (rule: ProtectedBranch) => (rule.unprotect_access_levels?.length ? rule.unprotect_access_levels : [{ access_level: 40 }]);

/**
 * One rule for output: its words; in a table (without --fields) without the entry lists they come from, which would
 * print as wrapped JSON there (-o json and --fields still have them).
 */
export async function ruleForOutput(rule: ProtectedBranch, ctx: Context): Promise<Partial<RuleWithWho>> {
  const [withWords] = await withWho([rule], ctx);
  if (ctx.format !== 'table' || ctx.globals.fields) return withWords;
  const { push_access_levels: _push, merge_access_levels: _merge, unprotect_access_levels: _unprotect, ...shown } = withWords;
  return shown;
}

/** One list of a rule that protect asked for, beside the one the rule has. */
export interface AskedList {
  label: string;
  asked: AllowedEntry[];
  have: Array<Partial<AccessEntry>>;
}

/**
 * For a protect of a name protected already: the lists of the rule that differ from what was asked, in the words the
 * options take ("push: maintainer, user:alice there, developer asked"); none when the rule is as asked.
 */
export async function ruleDifferences(api: Api, lists: AskedList[]): Promise<string[]> {
  const names = new EntryNames(api);
  return Promise.all(lists.filter((list) => !sameEntries(list.asked, list.have)).map(async ({ label, asked, have }) => {
    const [there, wanted] = await names.describe([have, asked]);
    return `${label}: ${there || 'nobody'} there, ${wanted || 'nobody'} asked`;
  }));
}
