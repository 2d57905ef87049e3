import { groupIds, userIds } from '../../api/lookups.js';
import { placed } from '../../api/resource.js';
import { bodyOf, collectionSection } from '../../desired/sections/generic.js';
import { pick, refuse, specsOf } from '../../desired/section.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { approvalRules } from './resource.js';

/** A project's approval rules in a desired-state file (`approval_rules`). */

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
    lostWithDelete: () => 'merge requests no longer need the approvals it asks for',
    check(values) {
      if (values.rule_type === 'report_approver' && values.report_type === undefined) refuse('rule_type', 'report_approver needs report_type');
      return { ...values, ...(Array.isArray(values.users) ? { users: [...values.users].sort() } : {}), ...(Array.isArray(values.groups) ? { groups: [...values.groups].sort() } : {}) };
    },
  },
});
