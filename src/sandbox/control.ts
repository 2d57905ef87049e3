import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from './body.js';
import type { Db } from './db.js';
import { InvalidFault, type Faults } from './faults.js';
import { send } from './send.js';
import { deliveriesSettled } from './webhooks.js';

/** What /-/sandbox/instance simulates (doctor's failures): an older version, and a clock (the Date header) that is off. */
export interface Simulated {
  version?: string;
  clock_skew_seconds: number;
}

/** The Date header of a simulated clock that is off (none when it is right: Node adds the true one). */
export function simulatedDate(simulated: Simulated): Record<string, string> {
  return simulated.clock_skew_seconds ? { Date: new Date(Date.now() + simulated.clock_skew_seconds * 1000).toUTCString() } : {};
}

/**
 * The control endpoints under /-/sandbox/: faults to inject, the request log, settling webhook deliveries, and the
 * instance's simulated version and clock.
 */
export async function control(req: IncomingMessage, res: ServerResponse, url: URL, method: string, faults: Faults, db: Db, simulated: Simulated): Promise<void> {
  const raw = (await readBody(req)).toString('utf8');
  const path = url.pathname.slice('/-/sandbox'.length);
  if (path === '/faults' && method === 'POST') {
    // JSON whatever the content type: `curl -d '{…}'` sends it as a form.
    try {
      return send(res, { status: 201, body: faults.add(JSON.parse(raw)) });
    } catch (error) {
      const message = error instanceof SyntaxError ? `the body is not JSON: ${error.message}` : (error as Error).message;
      if (error instanceof SyntaxError || error instanceof InvalidFault) return send(res, { status: 400, body: { error: message } });
      throw error;
    }
  }
  if (path === '/faults' && method === 'GET') return send(res, { status: 200, body: faults.list() });
  if (path === '/faults' && method === 'DELETE') {
    faults.clear();
    return send(res, { status: 204 });
  }
  if (path === '/requests' && method === 'GET') return send(res, { status: 200, body: faults.log });
  if (path === '/deliveries' && method === 'GET') {
    await deliveriesSettled(db);
    return send(res, { status: 200, body: { running: 0 } });
  }
  if (path === '/requests' && method === 'DELETE') {
    faults.log.length = 0;
    return send(res, { status: 204 });
  }
  if (path === '/instance' && method === 'GET') return send(res, { status: 200, body: simulated });
  if (path === '/instance' && method === 'POST') {
    let change: Record<string, unknown>;
    try {
      change = JSON.parse(raw || '{}') as Record<string, unknown>;
    } catch (error) {
      return send(res, { status: 400, body: { error: `the body is not JSON: ${(error as Error).message}` } });
    }
    const unknown = Object.keys(change).filter((key) => key !== 'version' && key !== 'clock_skew_seconds');
    if (unknown.length) return send(res, { status: 400, body: { error: `unknown key ${unknown.join(', ')}; known: version, clock_skew_seconds` } });
    if (change.version !== undefined && (typeof change.version !== 'string' || !/^\d+\.\d+\.\d+/.test(change.version))) return send(res, { status: 400, body: { error: 'version must be like "16.5.0-ee"' } });
    if (change.clock_skew_seconds !== undefined && !Number.isInteger(change.clock_skew_seconds)) return send(res, { status: 400, body: { error: 'clock_skew_seconds must be whole seconds (negative: behind)' } });
    Object.assign(simulated, change);
    return send(res, { status: 200, body: simulated });
  }
  send(res, { status: 404, body: { error: 'unknown sandbox control endpoint; see /-/sandbox/faults, /-/sandbox/requests, /-/sandbox/deliveries and /-/sandbox/instance' } });
}
