import type { Context, OptionDef } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { parseChoice, parseInteger, parseList } from '../../parse.js';
import { groupIds, userIds } from '../../api/lookups.js';
import { MAX_RULE_NAME_CHARS } from '../../api/resources/approval-rules.js';

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

/** The request body of a create or update: users resolved to IDs, group paths looked up as IDs. */
export async function ruleBody(opts: RuleOptions, ctx: Context): Promise<Record<string, unknown>> {
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
  };
  if (opts.users !== undefined) body.user_ids = await userIds(ctx.api, opts.users);
  if (opts.groups !== undefined) {
    body.group_ids = await groupIds(ctx.api, opts.groups);
  }
  return body;
}
