import type { Context } from '../../cli/command.js';
import { defineCommand } from '../../cli/command.js';
import { readSecret } from '../../cli/secrets.js';
import { ApiError } from '../../errors.js';
import { projectOption } from '../../cli/options.js';
import { mrOption, parseFullSha } from '../merge-requests/review-options.js';
import { approvalsOf, routes, type ApprovalState } from './shared.js';

interface Options {
  project?: string;
  mr: number;
  sha?: string;
  passwordStdin?: boolean;
}

/** The service answers every refusal to approve with a bare 401; the approval state tells which one it was. */
async function explainRefusal(ctx: Context, project: string, mr: number, passwordGiven: boolean, error: ApiError): Promise<never> {
  let state: ApprovalState;
  try {
    state = await ctx.api.call<ApprovalState>(routes.get, approvalsOf(project, mr));
  } catch {
    throw error;
  }
  const why = state.user_has_approved
    ? ['you have already approved this merge request', 'to withdraw it: forgectl approvals unapprove']
    : state.require_password_to_approve && !passwordGiven
      ? ['the project requires re-authentication to approve', 'pass --password-stdin and give your password on stdin']
      : state.require_password_to_approve
        ? ['the password was not accepted', undefined]
        : ['you are not allowed to approve this merge request', "authors and committers may be excluded by the project's approval settings (forgectl approvals config get)"];
  throw error.explained(why[0] as string, why[1]);
}

export default defineCommand<Options>({
  effect: 'write',
  description: [
    'With --sha the approval applies only to that HEAD commit: when the merge request has moved on, the service',
    'refuses with 409 (exit 6) and names the current HEAD. When the project requires re-authentication, give your',
    'password with --password-stdin (never as an argument): piped, or typed at a hidden prompt on a terminal.',
  ].join(' '),
  examples: [
    'forgectl approvals approve --project acme/api --mr 1',
    'forgectl approvals approve --project acme/api --mr 1 --sha "$(git rev-parse HEAD)"',
    'pass show forge/password | forgectl approvals approve --project acme/api --mr 1 --password-stdin',
  ],
  options: [
    projectOption,
    mrOption,
    { flags: '--sha <sha>', description: 'approve only if this is the HEAD commit of the merge request', parse: parseFullSha('--sha') },
    { flags: '--password-stdin', description: 'read your password from stdin, for projects that require re-authentication', localFile: true },
  ],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    const password = opts.passwordStdin ? await readSecret(ctx, 'your password', { stdin: true }) : undefined;
    try {
      return await ctx.api.call(routes.approve, { ...approvalsOf(project, opts.mr), sha: opts.sha, approval_password: password });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return explainRefusal(ctx, project, opts.mr, password !== undefined, error);
      throw error;
    }
  },
});
