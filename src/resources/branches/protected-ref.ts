import { callerLevel } from '../../api/lookups.js';
import type { Context } from '../../cli/command.js';
import { ApiError, CliError, ExitCode } from '../../errors.js';
import { shellQuote } from '../../parse.js';
import { branches } from './resource.js';

/**
 * Before deleting one protected branch or tag: the service lets only Maintainers and Owners delete them (it answers
 * a Developer 400 after the question was asked); say so first and send nothing. In a run over several projects (a
 * bulk deletion) a protected one is left alone, whoever asks: it goes only when named in its project alone, where the
 * question says it is protected. Returns the words for the question.
 */
export async function checkProtectedDeletion(ctx: Context, project: string, kind: 'branch' | 'tag', name: string): Promise<string> {
  const command = kind === 'branch' ? 'branches' : 'tags';
  if (ctx.inFleet) {
    // A fleet's line of one project says its error only: the way out is in it.
    throw new CliError(`${kind} ${name} of project ${project} is protected: a deletion over several projects leaves protected ${command} alone, nothing was sent (to delete it, name it in that project alone, where the question says it is protected: forgectl ${command} delete ${shellQuote(name)} --project ${shellQuote(project)})`, ExitCode.attention);
  }
  if ((await callerLevel(ctx.api, project)) < 40) {
    const unprotect = kind === 'branch' ? 'protected-branches' : 'protected-tags';
    throw new CliError(`${kind} ${name} of project ${project} is protected: only Maintainers and Owners may delete it; nothing was sent`, ExitCode.auth, `ask a Maintainer of ${project}, or to lift the rule that covers it (forgectl ${unprotect} list --project ${project})`);
  }
  return 'protected';
}

/**
 * Before committing to a branch: the service refuses (403) a push its protection does not allow the caller. The
 * branch record says whether it allows this caller (can_push weighs every rule that covers the branch, access levels
 * and allowed-to users, groups and deploy keys alike), so refuse only when it says no; say so first and send nothing.
 * A branch that does not exist yet (a commit that creates it) is left to the service.
 */
export async function checkPushAllowed(ctx: Context, project: string, branch: string): Promise<void> {
  const record = await ctx.api.call<{ protected?: boolean; can_push?: boolean }>(branches.routes.get, { project, branch }).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  });
  if (!record?.protected || record.can_push !== false) return;
  throw new CliError(`branch ${branch} of project ${project} is protected and its protection does not let you push to it; nothing was sent`, ExitCode.auth, `ask a Maintainer of ${project} to commit it or to allow you to push (forgectl protected-branches list --project ${project} shows who may), or commit to a new branch (--branch NEW --start-branch ${branch}) and open a merge request`);
}
