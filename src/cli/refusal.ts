import type { Api } from '../api/client.js';
import { isAdminPath, NOT_ADMIN_HINT } from '../api/errors.js';
import { isAdministrator } from '../api/lookups.js';
import { ApiError } from '../errors.js';
import { plural } from '../parse.js';

/** What a command's help says it needs: its "Needs Premium and the Maintainer role." sentence, without "Needs". */
export function helpNeeds(description: string | undefined): string | undefined {
  return /(?:^|[.!?]\s+)Needs ([^.]+)\./.exec(description ?? '')?.[1];
}

/** The license tier a "Needs …" sentence names, as the help writes it. */
const tierOf = (needs: string | undefined): string | undefined => (needs ? /\b(Premium|Ultimate)\b/.exec(needs)?.[1] : undefined);

/**
 * A 403 the service answered with no reason ("403 Forbidden"), given a hint from what the command's help says it
 * needs: the role, and the license tier where it needs one. Where the refusal cannot be the role's (an
 * administrator's token) the hint names the tier alone; on a path only administrators use, it says the token is not
 * an administrator's only when that is so. Whether it is, one GET /user after the failure tells, asked only where
 * the answer changes the hint. Any other error, or a 403 already explained (a scope, a job token), is left as it is.
 */
export async function explainRefusal(error: unknown, command: { path: string; description?: string }, api: () => Api): Promise<unknown> {
  if (!(error instanceof ApiError) || error.status !== 403) return error;
  const adminPath = isAdminPath(error.path);
  if (error.hint !== undefined && error.hint !== NOT_ADMIN_HINT) return error;
  const needs = helpNeeds(command.description);
  const tier = tierOf(needs);
  const needed = needs && `${command.path} needs ${needs}`;
  if (!adminPath && !tier) return needed ? error.explained(error.message, needed) : error;
  const admin = await isAdministrator(api());
  if (admin === true) return error.explained(error.message, tier && `the token is an administrator's, so what is missing is the license tier: ${command.path} needs ${tier}`);
  if (!adminPath) return error.explained(error.message, needed);
  if (admin === false) return error.explained(error.message, NOT_ADMIN_HINT);
  return error.explained(error.message, `this is for administrators of the instance${tier ? ` and needs ${tier}` : ''}`);
}

/** A command as its 403's hint reads it: its path and its help (whose "Needs …" sentence names the role and tier). */
export interface RefusedCommand {
  path: string;
  description?: string;
}

/**
 * The hint of the 403s of a run over many items (a fleet command's projects, apply's changes), said once however
 * many there are: "2 projects were refused (403 Forbidden): push-rule set needs Premium and the Maintainer role",
 * what the command of the first refused item (`commandOf` its index) says of one. Undefined when none was refused.
 */
export async function refusalsHint(errors: unknown[], noun: string, commandOf: (index: number) => RefusedCommand | Promise<RefusedCommand>, api: () => Api): Promise<string | undefined> {
  const refused = (error: unknown) => error instanceof ApiError && error.status === 403;
  const count = errors.filter(refused).length;
  if (!count) return undefined;
  const first = errors.findIndex(refused);
  const explained = (await explainRefusal(errors[first], await commandOf(first), api)) as ApiError;
  return `hint: ${plural(count, noun)} ${count === 1 ? 'was' : 'were'} refused (403 Forbidden)${explained.hint ? `: ${explained.hint}` : ''}`;
}
