import diagnostics from 'node:diagnostics_channel';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { routeRequest } from '../../api/client.js';
import type { Context } from '../../cli/command.js';
import { ApiError, CliError, ExitCode, NetworkError } from '../../errors.js';
import type { TokenRecord } from '../../resources/access-tokens/values.js';
import type { NewToken, RecoveryDraft, RecoveryFile } from './rotation.js';
import type { TokenTarget } from './shared.js';

/**
 * The one rotate request and its answer. The answer holds the only copy of the new token, so the token is taken
 * from the first bytes that carry it and written to the recovery file before anything else happens.
 */

/** The one rotate request: never retried once it may have reached the server (a 429 it did not act on is waited out). */
export function sendRotate(ctx: Context, target: TokenTarget, id: number | 'self', expiresAt: string | undefined, recovery: RecoveryFile) {
  return sendForNewToken(ctx, target.route('rotate'), { ...target.params(id), expires_at: expiresAt }, recovery, (cause) =>
    recovery.holdsToken ? brokeAfterToken(`${target.describe(id)} was rotated`, cause, recovery.path, 'Do not rotate again: the old token is revoked') : unknownOutcome(ctx, target, id, cause));
}

/**
 * An answer that broke after the new token's bytes arrived (its framing, its end): the service acted, and the token
 * is in the recovery file, not lost.
 */
function brokeAfterToken(done: string, cause: unknown, path: string, then: string): CliError {
  return new CliError(
    `${done}, but its answer broke after the new token arrived: ${(cause as Error).message ?? String(cause)}`,
    ExitCode.server,
    `the new token is in the recovery file ${path} (mode 0600), saved nowhere else yet: forgectl tokens recover ${path} saves it where asked. ${then}`,
  );
}

/**
 * The one create request of a rotation with an overlap: the successor, with the name, scopes and access level of the
 * token it replaces. Sent once like a rotation; a lost answer leaves the old token working.
 */
export function sendSuccessor(ctx: Context, target: TokenTarget, current: TokenRecord, expiresAt: string | undefined, recovery: RecoveryFile) {
  const body = {
    ...target.createParams(),
    name: current.name,
    scopes: current.scopes,
    ...(current.access_level === undefined ? {} : { access_level: current.access_level }),
    ...(current.description ? { description: current.description } : {}),
    ...(expiresAt ? { expires_at: expiresAt } : {}),
  };
  return sendForNewToken(ctx, target.route('create'), body, recovery, (cause) =>
    recovery.holdsToken ? brokeAfterToken(`the successor of ${target.describe(current.id)} was created`, cause, recovery.path, 'The token in use keeps working for the overlap') : unknownSuccessor(target, current, cause));
}

/**
 * A POST of a declared route whose answer holds the only copy of a new secret (a rotated access token, a runner's
 * reset token): sent once, never retried once it may have reached the server, the secret handed to `recovery` the
 * moment its bytes are here. Sent through the lower door (api.send) because its answer is read as it arrives, not
 * whole. An answer that may have been processed but did not arrive is `unknown(cause)`.
 */
export async function sendForNewToken(ctx: Context, route: string, params: Record<string, unknown>, recovery: Pick<RecoveryFile, 'write'>, unknown: (cause: unknown) => CliError) {
  const request = { ...routeRequest(route, params), retry: 'never' as const };
  const early = tapAnswer(new URL(ctx.api.url(request.path)).pathname, (token) => recovery.write(token));
  let body: Readable;
  try {
    body = (await ctx.api.send(request)).body;
  } catch (error) {
    early.dispose();
    if (error instanceof NetworkError && !error.maybeProcessed) {
      throw new CliError(`the request could not be sent: ${error.message}`, ExitCode.server, 'nothing changed on the server; it is safe to run the command again');
    }
    if (error instanceof ApiError && error.status < 500) throw error;
    throw unknown(error);
  }
  try {
    return await captureToken(body, (token) => recovery.write(token));
  } catch (error) {
    throw unknown(error);
  } finally {
    early.dispose();
  }
}

/** A lost answer to the create of a successor: nothing is locked out, but a token nobody holds may exist. */
function unknownSuccessor(target: TokenTarget, current: TokenRecord, cause: unknown): CliError {
  return new CliError(
    `the outcome of creating the successor of ${target.describe(current.id)} is unknown: ${(cause as Error).message ?? String(cause)}. The request was sent once and was NOT retried`,
    ExitCode.server,
    `the token in use still works (it is not revoked with --overlap), so nothing is locked out. A token named "${current.name}" may have been created that nobody holds:`
      + ` forgectl tokens list ${target.flags} --search "${current.name}" --state active shows it (newer than token ${current.id}); a later run revokes it once the overlap of a newer token has ended, or revoke it now with forgectl tokens revoke ID ${target.flags} --yes`,
  );
}

/**
 * The earliest moment the new token can be had is when its bytes leave the kernel. undici names the socket of the
 * rotate request on a diagnostics channel as it sends the request; this taps what that socket reads (its `push`,
 * which Node calls right after the read) and looks for the token there, before undici parses the response and
 * before any promise or stream hands it to us: the recovery file's write follows the socket read directly.
 * captureToken (below) reads the same answer through the body stream and writes the file if this did not.
 */
function tapAnswer(pathname: string, keep: (token: NewToken) => void): { dispose(): void } {
  interface SendHeaders { request: { method?: string; path?: string }; socket?: { push: (chunk: unknown, encoding?: BufferEncoding) => boolean } }
  let restore: (() => void) | undefined;
  const onSend = (message: unknown): void => {
    const { request, socket } = message as SendHeaders;
    if (!socket || request.method !== 'POST' || !request.path?.split('?')[0].endsWith(pathname)) return;
    // Sent again after a 429 (a refusal): the new answer is the one to look in, on whichever socket it comes.
    restore?.();
    const push = socket.push;
    let seen: string | undefined = '';
    socket.push = function tapped(this: unknown, chunk: unknown, encoding?: BufferEncoding): boolean {
      if (seen !== undefined && Buffer.isBuffer(chunk)) {
        seen += chunk.toString('latin1');
        const found = tokenInResponse(seen);
        if (found !== undefined) seen = undefined; // found, or not a success: stop looking
        if (found) keep(found);
      }
      return push.call(this, chunk, encoding);
    };
    restore = () => (socket.push = push);
  };
  diagnostics.subscribe('undici:client:sendHeaders', onSend);
  return {
    dispose() {
      diagnostics.unsubscribe('undici:client:sendHeaders', onSend);
      restore?.();
    },
  };
}

/**
 * The new token in the first bytes of an HTTP/1.1 answer; null when the answer is not a success (or not HTTP/1).
 * The headers may end in bare line feeds: undici refuses such an answer, but the service has rotated all the same,
 * and its token must reach the recovery file.
 */
export function tokenInResponse(raw: string): NewToken | null | undefined {
  const headEnd = /\r?\n\r?\n/.exec(raw);
  if (!headEnd) return raw.length > 12 && !/^HTTP\/1\.[01] 2\d\d/.test(raw) ? null : undefined;
  if (!/^HTTP\/1\.[01] 2\d\d[ \r\n]/.test(raw)) return null;
  return tokenIn(raw.slice(headEnd.index + headEnd[0].length));
}

/**
 * Runs the code between the answer and the recovery file once before the request is sent, so that none of it is
 * compiled while the only copy of the new token is in memory (this shortens that window several times over).
 */
export function warmUp(recovery: Pick<RecoveryFile<RecoveryDraft>, 'serialize'>): void {
  const sample = tokenInResponse('HTTP/1.1 200 OK\r\ncontent-length: 43\r\n\r\n{"id":1,"name":"warm-up","token":"warm-up"}');
  if (sample) recovery.serialize(sample);
  tokenIn('{"id":1,"token":"warm-up"');
}

/**
 * Reads the rotate answer and hands the new token to `keep` the moment its bytes are here: before the rest of the
 * body, before anything else is parsed or logged. An answer cut off after the token still delivers the token.
 */
function captureToken(body: Readable, keep: (token: NewToken) => void): Promise<{ token: NewToken; cutShort: boolean }> {
  return new Promise((resolve, reject) => {
    const decoder = new StringDecoder('utf8');
    let text = '';
    let kept: NewToken | undefined;
    body.on('data', (chunk: Buffer) => {
      text += decoder.write(chunk);
      if (kept) return;
      kept = tokenIn(text);
      if (kept) keep(kept);
    });
    body.on('end', () => {
      const whole = tokenIn(text + decoder.end());
      if (whole) resolve({ token: whole, cutShort: false });
      else reject(new Error('the answer holds no token'));
    });
    body.on('error', (error) => (kept ? resolve({ token: kept, cutShort: true }) : reject(error)));
  });
}

/** The new token in (the first part of) a rotate answer: the whole record once it is complete, else the value alone. */
export function tokenIn(text: string): NewToken | undefined {
  const value = /"token"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(text)?.[1];
  if (value === undefined) return undefined;
  try {
    const record = JSON.parse(text) as NewToken;
    if (typeof record?.token === 'string') return record;
  } catch {
    // Not all of the answer is here yet.
  }
  try {
    return { token: JSON.parse(`"${value}"`) as string };
  } catch {
    return undefined;
  }
}

export function unknownOutcome(ctx: Context, target: TokenTarget, id: number | 'self', cause: unknown): CliError {
  const flags = target.flags;
  const connection = ctx.connection();
  const forgectl = (connection.tokenSource === 'profile' || connection.tokenSource === 'keyring') && connection.profileName ? `forgectl -p ${connection.profileName}` : 'forgectl';
  const check = id === 'self'
    ? `Check with the old token: ${forgectl} tokens get self ${flags}. If it still works, nothing happened and you may rotate again; if it gets 401, the rotation happened and the new value is lost:`
    : `Check the token: ${forgectl} tokens get ${id} ${flags}. If it is active, nothing happened and you may rotate again; if it is revoked, the rotation happened and the new value is lost:`;
  return new CliError(
    `the outcome of rotating ${target.describe(id)} is unknown: ${(cause as Error).message ?? String(cause)}. The request was sent once and was NOT retried`,
    ExitCode.server,
    [
      'do not run the rotation again yet: if the service did rotate, the old token is revoked and presenting it again revokes every token of its family.',
      check,
      `with an owner's credential run forgectl tokens list ${flags} --state active, revoke the newest token of that name, and create a new one (forgectl tokens create).`,
      'No recovery file holds the new token (its answer never arrived), so forgectl tokens recover cannot bring it back.',
    ].join(' '),
  );
}
