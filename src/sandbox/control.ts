import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from './body.js';
import type { Db } from './db.js';
import { InvalidFault, type Faults } from './faults.js';
import { send } from './send.js';
import { deliveriesSettled } from './webhooks.js';

/** The control endpoints under /-/sandbox/: faults to inject, the request log, and settling webhook deliveries. */
export async function control(req: IncomingMessage, res: ServerResponse, url: URL, method: string, faults: Faults, db: Db): Promise<void> {
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
  send(res, { status: 404, body: { error: 'unknown sandbox control endpoint; see /-/sandbox/faults, /-/sandbox/requests and /-/sandbox/deliveries' } });
}
