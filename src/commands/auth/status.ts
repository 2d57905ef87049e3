import type { TokenRecord } from '../../resources/access-tokens/values.js';
import { accessTokens } from '../../resources/access-tokens/resource.js';
import { users } from '../../resources/users/resource.js';
import { defineCommand } from '../../cli/command.js';
import { ApiError } from '../../errors.js';
import { plural } from '../../parse.js';
import type { Connection } from '../../config/resolve.js';

interface User {
  id: number;
  username: string;
  name: string;
  is_admin?: boolean;
  bot?: boolean;
}

/** Days from now until an expiry date (YYYY-MM-DD, end of that day UTC counts as the expiry). */
export function daysUntil(date: string, now: Date): number {
  const end = Date.parse(`${date.slice(0, 10)}T00:00:00Z`);
  return Math.floor((end - Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())) / 86_400_000);
}

export const EXPIRY_WARNING_DAYS = 14;

/** The rotate flag of the token in use: bot users of group and project tokens are named `group_<id>_bot_…`. */
export function rotateTarget(user: Pick<User, 'username' | 'bot'>): string {
  const bot = user.bot ? /^(group|project)_(\d+)_bot/.exec(user.username) : null;
  return bot ? `--${bot[1]} ${bot[2]}` : '--personal';
}

/**
 * The command that rotates the token in use and saves it where the profile keeps it (`-p NAME` when the token is the
 * profile's). A token from FORGECTL_TOKEN or a CI job is not the profile's: `-p NAME` would use the profile's own
 * token instead (or find none), so the command names no profile.
 */
export function rotateSelfCommand(user: Pick<User, 'username' | 'bot'>, connection: Pick<Connection, 'profileName' | 'tokenSource'> | undefined, extra = ''): string {
  const profile = connection?.profileName && connection.tokenSource !== 'environment' && connection.tokenSource !== 'ci_job' ? connection.profileName : undefined;
  return `forgectl${profile ? ` -p ${profile}` : ''} tokens rotate self ${rotateTarget(user)}${extra}`;
}

export default defineCommand({
  description: 'Shows the instance, the user the token belongs to and, for personal, group and project tokens, the token\'s name, scopes and expiry. Warns when the token expires within 14 days.',
  examples: ['forgectl auth status', 'forgectl -p bot auth status -o json'],
  async run(_opts, ctx) {
    const connection = ctx.connection();
    const user = await ctx.api.call<User>(users.routes.current);
    let token: TokenRecord | undefined;
    if (connection.tokenType === 'private') {
      try {
        token = await ctx.api.call<TokenRecord>(accessTokens.parents.personal.routes.get, { token_id: 'self' });
      } catch (error) {
        // Job and OAuth tokens, and older instances, have no self endpoint: the rest is still worth showing.
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
      }
    }
    const daysLeft = token?.expires_at ? daysUntil(token.expires_at, ctx.now()) : undefined;
    if (daysLeft !== undefined && daysLeft <= EXPIRY_WARNING_DAYS) {
      ctx.io.warn(
        daysLeft < 0
          ? `the token expired on ${token!.expires_at}`
          : `the token expires in ${plural(daysLeft, 'day')} (${token!.expires_at}); rotate it: forgectl tokens rotate self ${rotateTarget(user)} --save-to-profile`,
      );
    }
    return {
      url: connection.rootUrl,
      profile: connection.profileName ?? null,
      token_source: connection.tokenSource,
      // Where the token lives: the OS keyring, the config file, or elsewhere (environment, token_command, CI job).
      token_storage: connection.tokenSource === 'keyring' ? 'keyring' : connection.tokenSource === 'profile' ? 'file' : connection.tokenSource,
      user: user.username,
      name: user.name,
      user_id: user.id,
      admin: Boolean(user.is_admin),
      bot: Boolean(user.bot),
      token_name: token?.name ?? null,
      scopes: token?.scopes ?? null,
      expires_at: token?.expires_at ?? null,
      days_left: daysLeft ?? null,
    };
  },
});
