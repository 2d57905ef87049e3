import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

/**
 * A real forward proxy on loopback (CONNECT tunnels and absolute-URI requests) that records what it carried.
 * `hosts` resolves names only the proxy knows (`forge.test` → 127.0.0.1), as a corporate proxy would.
 */
export async function startProxy(options: { hosts?: Record<string, string> } = {}): Promise<{ url: string; seen: string[]; close: () => Promise<void> }> {
  const resolve = (host: string) => options.hosts?.[host] ?? host;
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    // Plain-HTTP forwarding of absolute-URI requests.
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '');
    const upstream = connect(Number(target.port || 80), resolve(target.hostname), () => {
      upstream.write(`${req.method} ${target.pathname}${target.search} HTTP/1.1\r\n`);
      for (let i = 0; i < req.rawHeaders.length; i += 2) upstream.write(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`);
      upstream.write('connection: close\r\n\r\n');
      req.pipe(upstream);
      upstream.pipe(res.socket!);
    });
  });
  server.on('connect', (req, client: Socket, head) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), resolve(host), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    sockets.add(client).add(upstream);
  });
  server.on('connection', (socket: Socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
