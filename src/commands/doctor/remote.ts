import type { TokenRecord } from '../../resources/access-tokens/values.js';
import { accessTokens } from '../../resources/access-tokens/resource.js';
import { metadata } from '../../resources/metadata/resource.js';
import { users } from '../../resources/users/resource.js';
import { ApiError, ExitCode } from '../../errors.js';
import { daysUntil, EXPIRY_WARNING_DAYS, rotateSelfCommand } from '../auth/status.js';
import { checksOf, fail, pass, skip, warn, type DoctorState, type Outcome } from './check.js';
import { afterRotationHint } from '../tokens/shared.js';

/** Past this a request's round trip is worth a warning (pagination of large lists multiplies it). */
const SLOW_ROUND_TRIP_MS = 2000;
/** Token expiry and cron windows depend on the clock: more than this off is worth a warning. */
export const CLOCK_SKEW_WARNING_SECONDS = 60;
/** A token expiring within this many days fails (a daily rotation cron would not get another chance). */
export const EXPIRY_FAIL_DAYS = 1;

/** Features forgectl uses, and the service release that brought each. */
export const FEATURES: Array<{ since: string; what: string }> = [
  { since: '16.0', what: 'token rotation (tokens rotate)' },
  { since: '16.6', what: 'an expiry for rotated tokens (tokens rotate --expires-at, --expires-in)' },
  { since: '17.1', what: 'require_reauthentication_to_approve (approvals config)' },
  { since: '17.2', what: 'the state filter of group tokens (tokens list)' },
  { since: '17.5', what: 'deploy keys of protected tags (protected-tags)' },
  { since: '17.6', what: 'the pull mirror configuration endpoint (mirror pull)' },
  { since: '17.9', what: 'group integrations (integrations)' },
];

const versionParts = (version: string): number[] => (/^(\d+)\.(\d+)(?:\.(\d+))?/.exec(version) ?? []).slice(1).map((part) => Number(part ?? 0));

/** a < b for versions like 17.5.0-ee. */
export function olderThan(a: string, b: string): boolean {
  const [x, y] = [versionParts(a), versionParts(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  return false;
}

/**
 * GET /version, timed: the round trip of one authenticated request; without one when the token cannot be read (the
 * instance still answers, if only 401).
 */
async function checkRoundTrip(state: DoctorState): Promise<Outcome> {
  if (!state.target) return skip('no instance configured');
  const api = state.connection ? state.ctx.api : state.ctx.apiFor({ ...state.target, token: '', tokenType: 'private', tokenSource: 'profile' });
  const started = performance.now();
  let response;
  try {
    response = await api.callResponse<{ version?: string }>(metadata.routes.get, {}, { retry: 'never', auth: Boolean(state.connection) });
  } catch (error) {
    // A rejected token still proves the round trip; the token checks say what is wrong with it.
    if (error instanceof ApiError && error.status === 401) {
      state.versionUnauthorized = true;
      return pass(`GET /version answered 401 in ${Math.round(performance.now() - started)} ms (${state.connection ? 'see the token checks' : 'sent without the token, which cannot be read'})`);
    }
    throw error;
  }
  const ms = Math.round(performance.now() - started);
  state.version = { version: response.data.version ?? '', header: response.header, ms };
  if (ms > SLOW_ROUND_TRIP_MS) return warn(`GET /version took ${ms} ms`, 'a slow link or proxy: raise --timeout (or the profile\'s timeout) for large lists');
  return pass(`GET /version answered in ${ms} ms`);
}

/** Why the service checks have nothing to look at: the instance answered 401, or did not answer. */
const noVersion = (state: DoctorState, otherwise: string): Outcome => skip(state.versionUnauthorized ? 'GET /version needs a valid token (it answered 401)' : otherwise);

/** Why the token checks have nothing to check: no instance, or an instance but no token for it. */
const noConnection = (state: DoctorState): Outcome => skip(state.target ? 'no token to check (see "profile in use")' : 'no instance configured');

function checkVersion(state: DoctorState): Outcome {
  if (!state.version) return noVersion(state, 'the instance did not tell its version');
  const { version } = state.version;
  if (!version) return warn('GET /version answered without a version', 'check that the URL is the instance\'s, not a proxy\'s page');
  return pass(`version ${version}`);
}

function checkFeatures(state: DoctorState): Outcome {
  if (!state.version?.version) return skip('version unknown');
  const lacking = FEATURES.filter((feature) => olderThan(state.version!.version, feature.since));
  if (!lacking.length) return pass(`every feature forgectl uses is there (the newest needs ${FEATURES[FEATURES.length - 1].since})`);
  return warn(`${state.version.version} lacks: ${lacking.map((feature) => `${feature.what} since ${feature.since}`).join('; ')}`, 'those commands fail on this instance until it is upgraded');
}

function checkRateLimit(state: DoctorState): Outcome {
  if (!state.version) return noVersion(state, 'no answer to read headers from');
  const limit = Number(state.version.header('ratelimit-limit'));
  const remaining = Number(state.version.header('ratelimit-remaining'));
  if (!state.version.header('ratelimit-limit')) return pass('no RateLimit headers: no throttle announced (forgectl still honours Retry-After on 429)');
  const reset = state.version.header('ratelimit-reset');
  const found = `RateLimit headers present: ${remaining} of ${limit} requests left${reset ? `, reset at ${new Date(Number(reset) * 1000).toISOString()}` : ''}`;
  if (Number.isFinite(remaining) && Number.isFinite(limit) && remaining < limit * 0.1) return warn(found, 'wait for the reset, or pace bulk commands with --rate-limit');
  return pass(found);
}

function checkClock(state: DoctorState): Outcome {
  const date = state.version?.header('date');
  if (!state.version) return noVersion(state, 'no answer to read the Date header from');
  if (!date || Number.isNaN(Date.parse(date))) return skip('no Date header in the answer');
  const skew = Math.round((state.ctx.now().getTime() - Date.parse(date)) / 1000);
  const found = skew === 0 ? 'this clock agrees with the instance\'s Date header' : `this clock is ${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the instance's Date header`;
  if (Math.abs(skew) > CLOCK_SKEW_WARNING_SECONDS) return warn(found, 'synchronise the clock (timedatectl set-ntp true, or your NTP client): token expiry and cron windows depend on it');
  return pass(found);
}

async function checkTokenValid(state: DoctorState): Promise<Outcome> {
  if (!state.connection) return noConnection(state);
  try {
    const user = await state.ctx.api.call<{ username: string; id: number; is_admin?: boolean; bot?: boolean }>(users.routes.current);
    state.tokenValid = true;
    state.user = user;
    const kind = user.bot ? 'a bot (group or project token)' : user.is_admin ? 'an administrator' : 'a user';
    return pass(`valid ${state.connection.tokenType} token of ${user.username} (id ${user.id}, ${kind})`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      return fail('the token is rejected (401): revoked, expired or mistyped', `log in with a valid token: forgectl${state.connection.profileName ? ` -p ${state.connection.profileName}` : ''} auth login. ${afterRotationHint()}`, ExitCode.auth);
    }
    if (error instanceof ApiError && error.status === 403) {
      state.tokenValid = true;
      return pass('valid (GET /user is outside its scopes)');
    }
    throw error;
  }
}

/** What the scopes allow, in command groups. */
function allowedBy(scopes: string[]): string {
  if (scopes.includes('api')) return 'every command group';
  const parts: string[] = [];
  if (scopes.includes('read_api')) parts.push('read commands of every group (list, get, audit, plan, export), no changes');
  if (scopes.includes('read_user')) parts.push('users and auth status');
  if (scopes.includes('self_rotate')) parts.push('tokens rotate self');
  if (scopes.some((scope) => scope.endsWith('_repository'))) parts.push('git over HTTP (no API commands)');
  return parts.join('; ') || 'no command group';
}

async function checkScopes(state: DoctorState): Promise<Outcome> {
  const connection = state.connection;
  if (!connection || !state.tokenValid) return skip('no valid token');
  if (connection.tokenType !== 'private') return skip(`a ${connection.tokenType} token has no scopes to read`);
  let record: TokenRecord;
  try {
    record = await state.ctx.api.call<TokenRecord>(accessTokens.parents.personal.routes.get, { token_id: 'self' });
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return skip(`the token cannot read its own record (${error.status})`);
    throw error;
  }
  state.scopes = record.scopes ?? [];
  state.expiresAt = record.expires_at ?? null;
  const found = `"${record.name}": scopes ${state.scopes.join(', ') || 'none'} → ${allowedBy(state.scopes)}`;
  if (state.scopes.includes('api')) return pass(found);
  if (state.scopes.includes('read_api')) return warn(found, 'commands that change anything get 403 insufficient_scope: use a token with scope api where this profile must change things');
  return fail(found, 'create a token with scope api (or read_api for read-only use), then: forgectl auth login', ExitCode.auth);
}

function checkExpiry(state: DoctorState): Outcome {
  const expiresAt = state.expiresAt;
  if (expiresAt === undefined) return skip('expiry unknown');
  if (expiresAt === null) return pass('never expires');
  const days = daysUntil(expiresAt, state.ctx.now());
  // A group or project token rotates through its group's or project's endpoint: --personal would be refused (405).
  const rotate = `rotate it: ${state.user ? rotateSelfCommand(state.user, state.connection) : 'forgectl tokens rotate self --personal'} (or create a new one)`;
  if (days <= EXPIRY_FAIL_DAYS) return fail(days < 0 ? `expired on ${expiresAt}` : `expires ${days === 0 ? 'today' : 'tomorrow'} (${expiresAt})`, rotate, ExitCode.auth);
  if (days <= EXPIRY_WARNING_DAYS) return warn(`expires in ${days} days (${expiresAt})`, rotate);
  return pass(`expires in ${days} days (${expiresAt})`);
}

/** Lines of the user's crontab that rotate a token with forgectl: `crontab -l`, nothing when there is none. */
function rotationCronLines(state: DoctorState): string[] {
  const { execFileSync } = process.getBuiltinModule('node:child_process');
  let text: string;
  try {
    text = execFileSync('crontab', ['-l'], { env: state.ctx.env as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return [];
  }
  return text.split('\n').filter((line) => !line.trim().startsWith('#') && /\bforgectl\b/.test(line) && /\btokens\s+rotate\b/.test(line));
}

/** The profile a cron line uses: -p / --profile / FORGECTL_PROFILE, else the current one. */
function cronProfile(line: string, current: string | undefined): string | undefined {
  return /(?:\s-p|\s--profile)[=\s]+(\S+)/.exec(line)?.[1] ?? /FORGECTL_PROFILE=(\S+)/.exec(line)?.[1] ?? current;
}

function checkSelfRotate(state: DoctorState): Outcome {
  const connection = state.connection;
  if (!connection) return noConnection(state);
  if (!connection.profileName) return skip('no profile in use');
  const lines = rotationCronLines(state).filter((line) => cronProfile(line, state.ctx.readConfig().current) === connection.profileName);
  if (!lines.length) return skip(`no rotation cron line for profile "${connection.profileName}" in crontab -l`);
  if (!state.scopes) return skip('scopes unknown');
  const found = `a cron line rotates profile "${connection.profileName}"'s token: ${lines[0].trim().slice(0, 120)}`;
  if (state.scopes.includes('api') || state.scopes.includes('self_rotate')) return pass(`${found}; its scopes allow self-rotation`);
  return fail(`${found}; but the token has neither api nor self_rotate scope, so the rotation will be refused (403)`, 'create the token with scope self_rotate (or api), then: forgectl auth login', ExitCode.auth);
}

export const remoteChecks = [
  ...checksOf('network', { 'round trip': checkRoundTrip }),
  ...checksOf('service', { version: checkVersion, features: checkFeatures, 'rate limit': checkRateLimit, clock: checkClock }),
  ...checksOf('token', { valid: checkTokenValid, scopes: checkScopes, expiry: checkExpiry, self_rotate: checkSelfRotate }),
];
