import type { IncomingMessage } from 'node:http';
import { auditBefore, recordAudit } from './audit.js';
import { authenticate, checkScope, recordActivity } from './auth.js';
import { parseBody, parseParams, readBody } from './body.js';
import type { Db } from './db.js';
import { HttpError, type SandboxRequest, type SandboxResponse, type Tier } from './http.js';
import type { SandboxModule } from './module.js';
import type { Router } from './router.js';
import { throttle } from './throttle.js';

/** What every request of one sandbox sees: its state, tier, clock and modules, and its URL once it listens. */
export interface Site {
  db: Db;
  tier: Tier;
  now: () => Date;
  modules: SandboxModule[];
  rootUrl: string;
}

/**
 * Runs the route a request names: reads and parses its body, authenticates it and checks the token's scope as the
 * route asks, calls the handler, and records the audit event of a change that succeeded. 404 for a path no route
 * matches.
 */
export async function dispatch(site: Site, router: Router, req: IncomingMessage, url: URL, method: string, rawPath: string, isApi: boolean): Promise<SandboxResponse> {
  const route = router.match(method, rawPath);
  const raw = await readBody(req);
  if (!route) {
    throw new HttpError(404, isApi ? { error: '404 Not Found' } : 'Not Found');
  }
  const { db, tier, rootUrl, now } = site;
  const query = parseParams(url.searchParams);
  const parsed = parseBody(raw, req.headers['content-type']);
  const request: SandboxRequest = {
    method,
    rawPath,
    params: route.params,
    query,
    input: { ...query, ...parsed.params },
    body: parsed.body,
    files: parsed.files,
    headers: req.headers,
    db,
    tier,
    rootUrl,
    baseUrl: `${rootUrl}/api/v4`,
    now,
    pushed: (event) => {
      for (const module of site.modules) module.onPush?.(event, { db, tier, rootUrl, now });
    },
  };
  const auth = route.options.auth ?? 'required';
  if (auth !== 'none') {
    authenticate(request, { optional: auth === 'optional' });
    checkScope(request, route.options.scope ?? (method === 'GET' || method === 'HEAD' ? 'read' : 'write'));
  }
  const limits = throttle(request, isApi, req.socket.remoteAddress ?? '');
  try {
    // Every change made through the API leaves an audit event (src/sandbox/audit.ts).
    const before = isApi ? await auditBefore(router, request) : undefined;
    const response = await route.handler(request);
    if (response.status < 400) recordActivity(request);
    if (isApi) recordAudit(request, response, before);
    return { ...response, headers: { ...limits, ...response.headers } };
  } catch (error) {
    if (error instanceof HttpError) Object.assign(error.headers, limits, error.headers);
    throw error;
  }
}
