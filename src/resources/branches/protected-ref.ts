import { callerLevel } from '../../api/lookups.js';
import type { Context } from '../../cli/command.js';
import { CliError, ExitCode } from '../../errors.js';

/**
 * Before deleting one protected branch or tag: the service lets only Maintainers and Owners delete them (it answers
 * a Developer 400 after the question was asked); say so first and send nothing. Returns the words for the question.
 */
export async function checkProtectedDeletion(ctx: Context, project: string, kind: 'branch' | 'tag', name: string): Promise<string> {
  if ((await callerLevel(ctx.api, project)) < 40) {
    const unprotect = kind === 'branch' ? 'protected-branches' : 'protected-tags';
    throw new CliError(`${kind} ${name} of project ${project} is protected: only Maintainers and Owners may delete it; nothing was sent`, ExitCode.auth, `ask a Maintainer of ${project}, or to lift the rule that covers it (forgectl ${unprotect} list --project ${project})`);
  }
  return 'protected';
}
