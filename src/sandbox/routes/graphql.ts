import { authenticate, presentedToken } from '../auth.js';
import { ok, type SandboxRequest, type SandboxResponse } from '../http.js';
import type { SandboxModule } from '../module.js';

/**
 * The GraphQL API at /api/graphql (outside /api/v4), as the service's GraphQL controller serves it: POST with a JSON
 * body `{query, variables, operationName}` (an array of them: several operations, answered as an array), or GET
 * with the same as query parameters (queries only). Anyone may ask (public data); a token that is presented must
 * be valid (401 `{"errors":[{"message":"Invalid token"}]}`). Mutations need a signed-in user whose token has the
 * api scope. The engine (src/sandbox/graphql/) loads on the first request.
 */

type Operation = Record<string, unknown>;

const refusal = (status: number, message: string): SandboxResponse => ({ status, body: { errors: [{ message }] } });

/** The operations of the request: the body's (one, or an array), or the query string's over GET. */
function operationsOf(req: SandboxRequest): { operations: Operation[]; batch: boolean } {
  if (req.method === 'GET' || req.method === 'HEAD') return { operations: [req.query], batch: false };
  const body = req.body as unknown;
  const batch = Array.isArray(body) ? body : Array.isArray(req.input._json) ? (req.input._json as unknown[]) : undefined;
  if (batch) return { operations: batch.map((item) => (item && typeof item === 'object' ? (item as Operation) : {})), batch: true };
  return { operations: [req.input], batch: false };
}

async function serve(req: SandboxRequest): Promise<SandboxResponse> {
  if (presentedToken(req) !== undefined) {
    try {
      authenticate(req);
    } catch {
      return refusal(401, 'Invalid token');
    }
  }
  const { runOperation, RequestRefused } = await import('../graphql/engine.js');
  const { operations, batch } = operationsOf(req);
  try {
    const results = [];
    for (const operation of operations) results.push(await runOperation(req, operation));
    const answers = results.map((result) => ({ ...(result.errors ? { errors: result.errors.map((error) => error.toJSON()) } : {}), ...('data' in result ? { data: result.data } : {}) }));
    return ok(batch ? answers : answers[0]);
  } catch (error) {
    if (error instanceof RequestRefused) return refusal(error.status, error.message);
    throw error;
  }
}

export const graphqlModule: SandboxModule = {
  routes(_api, web) {
    web.add('POST', '/api/graphql', serve, { auth: 'none' });
    web.add('GET', '/api/graphql', serve, { auth: 'none' });
  },
};
