import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Addresses that listen on every interface: not one a client can connect to. */
export const ALL_INTERFACES = new Set(['0.0.0.0', '::', '']);

/**
 * Serves the handler over HTTP, or HTTPS with a generated self-signed certificate (written to caFile), on host and
 * port (0: a free one). close() ends open connections too. Listening on every interface, the URL is loopback's, which
a client here can reach (allInterfaces says so).
 */
export async function listen(options: { port?: number; host?: string; tls?: boolean; caFile?: string }, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ rootUrl: string; allInterfaces: boolean; caFile?: string; close(): Promise<void> }> {
  let caFile: string | undefined;
  let server: Server;
  if (options.tls) {
    const { generateCertificate } = await import('./tls.js');
    const host = options.host ?? '127.0.0.1';
    const pems = await generateCertificate(host, ALL_INTERFACES.has(host));
    caFile = options.caFile ?? join(tmpdir(), `forgectl-sandbox-ca-${process.pid}-${randomUUID().slice(0, 8)}.pem`);
    writeFileSync(caFile, pems.cert, { mode: 0o644 });
    server = createHttpsServer({ key: pems.private, cert: pems.cert }, handler);
  } else {
    server = createHttpServer(handler);
  }
  server.keepAliveTimeout = 5000;
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const allInterfaces = ALL_INTERFACES.has(address.address);
  const hostForUrl = allInterfaces ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    rootUrl: `${options.tls ? 'https' : 'http'}://${hostForUrl}:${address.port}`,
    allInterfaces,
    caFile,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
