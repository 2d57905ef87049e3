import type { OptionDef } from '../../../cli/command.js';
import { defineCommand } from '../../../cli/command.js';
import { UsageError } from '../../../errors.js';
import { projectOption } from '../../../cli/options.js';
import { parseInteger } from '../../../parse.js';
import { approvalSettings } from '../../approval-settings/resource.js';

/** The boolean settings of the project approval configuration: flag name → what --flag turns on. */
const SETTINGS = {
  resetApprovalsOnPush: ['reset-approvals-on-push', 'clear approvals when new commits are pushed'],
  selectiveCodeOwnerRemovals: ['selective-code-owner-removals', "on a push, clear only Code Owners' approvals of changed files (needs --no-reset-approvals-on-push)"],
  disableOverridingApproversPerMergeRequest: ['disable-overriding-approvers-per-merge-request', 'forbid changing approval rules in a merge request'],
  mergeRequestsAuthorApproval: ['merge-requests-author-approval', 'let authors approve their own merge requests'],
  mergeRequestsDisableCommittersApproval: ['merge-requests-disable-committers-approval', 'forbid committers to approve merge requests they added commits to'],
  requireReauthenticationToApprove: ['require-reauthentication-to-approve', 'approvers must give their password (approve --password-stdin)'],
} as const;

type SettingKey = keyof typeof SETTINGS;
type Options = { project?: string; approvalsBeforeMerge?: number; requirePasswordToApprove?: boolean } & Partial<Record<SettingKey, boolean>>;

const snake = (flag: string): string => flag.replace(/-/g, '_');

const booleanOptions: OptionDef[] = Object.values(SETTINGS).flatMap(([flag, description]) => [
  { flags: `--${flag}`, description },
  { flags: `--no-${flag}`, description: `turn ${flag} off` },
]);

export default defineCommand<Options>({
  effect: 'write',
  description: 'Changes only the settings given. selective_code_owner_removals needs reset_approvals_on_push off: that is checked before sending, against the current configuration when --reset-approvals-on-push is not given. Needs Premium and the Maintainer role.',
  examples: [
    'forgectl approvals config set --project acme/api --no-merge-requests-author-approval --merge-requests-disable-committers-approval',
    'forgectl approvals config set --project acme/api --no-reset-approvals-on-push --selective-code-owner-removals',
  ],
  options: [
    projectOption,
    ...booleanOptions,
    { flags: '--require-password-to-approve', description: 'deprecated name of --require-reauthentication-to-approve' },
    { flags: '--no-require-password-to-approve', description: 'deprecated name of --no-require-reauthentication-to-approve' },
    { flags: '--approvals-before-merge <n>', description: 'approvals required before merging (deprecated: use approval rules)', parse: parseInteger('--approvals-before-merge', 0) },
  ],
  async run(opts, ctx) {
    const body: Record<string, boolean | number> = {};
    for (const [key, [flag]] of Object.entries(SETTINGS)) {
      const value = opts[key as SettingKey];
      if (value !== undefined) body[snake(flag)] = value;
    }
    const reauth = opts.requireReauthenticationToApprove ?? opts.requirePasswordToApprove;
    if (opts.requireReauthenticationToApprove !== undefined && opts.requirePasswordToApprove !== undefined && opts.requireReauthenticationToApprove !== opts.requirePasswordToApprove) {
      throw new UsageError('--require-password-to-approve and --require-reauthentication-to-approve are one setting; give one of them');
    }
    // Both names of the one setting: older instances know only require_password_to_approve.
    if (reauth !== undefined) Object.assign(body, { require_reauthentication_to_approve: reauth, require_password_to_approve: reauth });
    if (opts.approvalsBeforeMerge !== undefined) body.approvals_before_merge = opts.approvalsBeforeMerge;
    if (!Object.keys(body).length) throw new UsageError('nothing to change', 'give at least one setting, for example --no-merge-requests-author-approval');

    const project = ctx.project(opts.project);
    if (body.selective_code_owner_removals === true) {
      const resetOnPush = body.reset_approvals_on_push ?? (await ctx.api.call<{ reset_approvals_on_push?: boolean }>(approvalSettings.routes.get, { project })).reset_approvals_on_push;
      if (resetOnPush) {
        throw new UsageError('selective_code_owner_removals can only be enabled when reset_approvals_on_push is disabled', 'add --no-reset-approvals-on-push');
      }
    }
    return ctx.api.call(approvalSettings.routes.update, { project, ...body });
  },
});
