import type { Context, OptionDef } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { parseChoice, parseInteger, parseList } from '../../parse.js';
import { groupIds, userIds } from '../../api/lookups.js';
import { approvalRules, MAX_RULE_NAME_CHARS } from './resource.js';
import type { ResourceDef } from '../../api/resource.js';
import { placementFor } from '../../cli/resource-commands.js';

function parseRuleName(value: string): string {
  if (!value.trim()) throw new UsageError('--name must not be empty');
  if (value.length > MAX_RULE_NAME_CHARS) throw new UsageError(`--name has ${value.length} characters; the service accepts at most ${MAX_RULE_NAME_CHARS}`);
  return value;
}

function parseIdList(flag: string) {
  const parse = parseInteger(`${flag} entries`, 1);
  return (value: string, previous?: number[]): number[] => [...(previous ?? []), ...parseList(value).map(parse)];
}

export const ruleOptions = (creating: boolean): OptionDef[] => [
  { flags: '--mr <iid>', description: "a rule of this merge request (its IID) instead of the project's", parse: parseInteger('--mr', 1) },
  ...(creating ? [{ flags: '--from-rule <id>', description: 'with --mr: a copy of this project rule (its eligible approvers), with the approvals given', parse: parseInteger('--from-rule', 1) }] : []),
  { flags: '--name <name>', description: `rule name, unique in the project (at most ${MAX_RULE_NAME_CHARS} characters)`, parse: parseRuleName, required: creating },
  { flags: '--approvals-required <n>', description: 'approvals this rule needs', parse: parseInteger('--approvals-required', 0), required: creating },
  {
    flags: '--rule-type <type>',
    description: 'regular (default), any_approver (one per project, usually 0 approvals) or report_approver',
    parse: parseChoice('--rule-type', ['regular', 'any_approver', 'report_approver']),
  },
  {
    flags: '--report-type <type>',
    description: 'for report_approver rules: code_coverage, or license_scanning (deprecated)',
    parse: parseChoice('--report-type', ['code_coverage', 'license_scanning']),
  },
  { flags: '--users <list>', description: 'eligible approvers: usernames or user IDs, comma-separated or repeated; replaces the list ("" empties it)', parse: parseList },
  { flags: '--groups <list>', description: 'eligible groups: IDs or full paths, comma-separated or repeated; replaces the list', parse: parseList },
  { flags: '--protected-branches <ids>', description: 'protected branch IDs the rule applies to, comma-separated or repeated', parse: parseIdList('--protected-branches') },
  { flags: '--all-protected-branches', description: 'apply to every protected branch (then --protected-branches is ignored)' },
  ...(creating ? [] : [
    { flags: '--no-all-protected-branches', description: 'apply only to the branches of --protected-branches' },
    { flags: '--remove-hidden-groups', description: 'also remove groups you cannot see from the rule' },
  ]),
];

export interface RuleOptions {
  project?: string;
  mr?: number;
  fromRule?: number;
  name?: string;
  approvalsRequired?: number;
  ruleType?: string;
  reportType?: string;
  users?: string[];
  groups?: string[];
  protectedBranches?: number[];
  allProtectedBranches?: boolean;
  removeHiddenGroups?: boolean;
}

/** Warns about users (as given: names or IDs) the service left out of the rule it returned: not project members. */
export function warnLeftOut(ctx: Context, asked: string[] | undefined, rule: { users?: Array<{ id: number; username: string }> }): void {
  if (!asked || !rule.users) return;
  const kept = new Set(rule.users.flatMap((u) => [String(u.id), u.username.toLowerCase()]));
  const left = asked.filter((user) => !kept.has(user.toLowerCase()));
  if (left.length) ctx.io.warn(`the service left ${left.join(', ')} out of the rule (not ${left.length > 1 ? 'members' : 'a member'} of the project?)`);
}

/** Where the rule lives: the project's rules, or those of the merge request --mr names. */
export function rulePlacement(opts: RuleOptions, ctx: Context): { resource: ResourceDef; params: Record<string, unknown>; mr: boolean } {
  const { key, resource, params } = placementFor(approvalRules, opts, ctx);
  return { resource, params, mr: key === 'mr' };
}

/** Options a merge request's rule does not take (the service ignores them there): refused rather than dropped. */
const PROJECT_ONLY: Array<[keyof RuleOptions, string]> = [
  ['ruleType', '--rule-type'], ['reportType', '--report-type'], ['protectedBranches', '--protected-branches'],
  ['allProtectedBranches', '--all-protected-branches'], ['removeHiddenGroups', '--remove-hidden-groups'],
];

/** The request body of a create or update: users resolved to IDs, group paths looked up as IDs. */
export async function ruleBody(opts: RuleOptions, ctx: Context): Promise<Record<string, unknown>> {
  if (opts.mr !== undefined) {
    const given = PROJECT_ONLY.filter(([key]) => opts[key] !== undefined).map(([, flag]) => flag);
    if (given.length) throw new UsageError(`${given.join(', ')} ${given.length > 1 ? 'apply' : 'applies'} only to project rules, not to a merge request's (--mr)`);
  } else if (opts.fromRule !== undefined) throw new UsageError('--from-rule copies a project rule into a merge request: give --mr too');
  if (opts.ruleType === 'report_approver' && opts.reportType === undefined) throw new UsageError('--rule-type report_approver needs --report-type');
  if (opts.reportType !== undefined && opts.ruleType !== undefined && opts.ruleType !== 'report_approver') {
    throw new UsageError('--report-type applies only to --rule-type report_approver');
  }
  if (opts.reportType === 'license_scanning') ctx.io.warn('report type license_scanning is deprecated by the service');
  const body: Record<string, unknown> = {
    name: opts.name,
    approvals_required: opts.approvalsRequired,
    rule_type: opts.ruleType,
    report_type: opts.reportType,
    protected_branch_ids: opts.protectedBranches,
    applies_to_all_protected_branches: opts.allProtectedBranches,
    remove_hidden_groups: opts.removeHiddenGroups,
    approval_project_rule_id: opts.fromRule,
  };
  if (opts.users !== undefined) body.user_ids = await userIds(ctx.api, opts.users);
  if (opts.groups !== undefined) {
    body.group_ids = await groupIds(ctx.api, opts.groups);
  }
  return body;
}
