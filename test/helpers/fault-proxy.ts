import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A loopback reverse proxy in front of the sandbox that damages downloads the way networks and caches do, for the
 * fault tier: the body cut short with a clean end (no Content-Length, or a Content-Length that says the short
 * size), a flipped byte with the headers unchanged, and an If-Range dropped (a cache serving a 206 of an object that
 * changed meanwhile). Every other request passes through untouched.
 */
export type Damage = 'truncate' | 'short-length' | 'flip' | 'ignore-if-range';

export interface FaultProxy {
  url: string;
  /** Damages the next `times` answers to GET requests whose path matches (and clears when given undefined). */
  damage(rule: { damage: Damage; path: RegExp; times?: number } | undefined): void;
  close(): Promise<void>;
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  let rule: { damage: Damage; path: RegExp; times: number } | undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const hit = rule && req.method === 'GET' && rule.path.test(decodeURIComponent(req.url ?? '')) ? rule.damage : undefined;
    if (hit && rule && --rule.times <= 0) rule = undefined;
    const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
    if (hit === 'ignore-if-range') delete headers['if-range'];
    const upstreamRequest = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      // Read whole (test objects are a few MB), then sent in one write; a broken upstream answer breaks this one.
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('aborted', () => res.destroy());
      answer.on('error', () => res.destroy());
      answer.on('end', () => {
        if (!answer.complete) return void res.destroy();
        let body = Buffer.concat(chunks);
        const out = { ...answer.headers };
        delete out['transfer-encoding'];
        if (!hit || hit === 'ignore-if-range') {
          res.writeHead(answer.statusCode ?? 502, out);
          return void res.end(body);
        }
        if (hit === 'flip' && body.length) {
          body = Buffer.from(body);
          body[body.length >> 1] ^= 0x01;
        } else if (hit === 'truncate') {
          body = body.subarray(0, body.length >> 1);
          delete out['content-length'];
        } else if (hit === 'short-length') {
          body = body.subarray(0, body.length >> 1);
          out['content-length'] = String(body.length);
        }
        res.writeHead(answer.statusCode ?? 502, out);
        res.end(body);
      });
    });
    upstreamRequest.on('error', () => res.destroy());
    req.pipe(upstreamRequest);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    damage: (next) => (rule = next ? { ...next, times: next.times ?? 1 } : undefined),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
