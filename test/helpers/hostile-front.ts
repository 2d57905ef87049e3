import { request } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A loopback front for the sandbox on raw sockets, so that it can answer what no HTTP library would send: every
 * request goes on to the sandbox, and the answer to one that a rule matches is sent back damaged (its framing, its
 * headers, or cut off), built from the sandbox's real answer. The sandbox has acted on the request either way, as a
 * service behind a broken proxy has.
 */
export type Hostility =
  | 'bare LF line ends'
  | 'two different Content-Length values'
  | 'a NUL in a header value'
  | 'an empty body'
  | 'headers, then silence'
  | 'a reset in the middle of the body'
  | 'a 302 without Location'
  | 'Content-Encoding gzip over bytes that are not gzip'
  | 'a 1 MiB header'
  | '20 KiB of headers'
  | '2 MiB of headers'
  | 'a 503 HTML page with terminal controls';

export interface HostileFront {
  url: string;
  /** Damages the answers to the next `times` requests of this method whose path (below /api/v4) matches. */
  damage(rule: { method: string; path: RegExp; hostility: Hostility; times?: number } | undefined): void;
  close(): Promise<void>;
}

/** Bytes a terminal would act on: a title change, a screen clear, a colour. */
export const TERMINAL_CONTROLS = '\u001b]0;owned\u0007\u001b[2J\u001b[31mred';

interface Answer {
  status: number;
  headers: Array<[string, string]>;
  body: Buffer;
}

function head(status: number, headers: Array<[string, string | number]>, eol = '\r\n'): string {
  return `HTTP/1.1 ${status} X${eol}${headers.map(([name, value]) => `${name}: ${value}${eol}`).join('')}${eol}`;
}

/** About `bytes` of ordinary headers, 1 KiB each (what a chain of proxies adding trace headers sends). */
function manyHeaders(bytes: number): Array<[string, string]> {
  return Array.from({ length: bytes >> 10 }, (_, i) => [`X-Trace-${i}`, 'a'.repeat(1000)]);
}

/** The damaged answer's bytes, and what follows them. */
function damaged(hostility: Hostility, answer: Answer): { bytes: Buffer; then: 'end' | 'stall' | 'reset' } {
  const { status, body } = answer;
  const kept = answer.headers.filter(([name]) => !/^(content-length|transfer-encoding|connection|keep-alive)$/i.test(name));
  const framed = (headers: Array<[string, string | number]>, data: Buffer = body, eol = '\r\n', then: 'end' | 'stall' | 'reset' = 'end') => ({ bytes: Buffer.concat([Buffer.from(head(status, headers, eol), 'latin1'), data]), then });
  switch (hostility) {
    case 'bare LF line ends': return framed([...kept, ['Content-Length', body.length]], body, '\n');
    case 'two different Content-Length values': return framed([...kept, ['Content-Length', body.length], ['Content-Length', 5]]);
    case 'a NUL in a header value': return framed([...kept, ['X-Note', 'a\0b'], ['Content-Length', body.length]]);
    case 'an empty body': return framed([...kept, ['Content-Length', 0]], Buffer.alloc(0));
    case 'headers, then silence': return framed([...kept, ['Content-Length', body.length]], Buffer.alloc(0), '\r\n', 'stall');
    case 'a reset in the middle of the body': return framed([...kept, ['Content-Length', body.length]], body.subarray(0, body.length >> 1), '\r\n', 'reset');
    case 'a 302 without Location': return { bytes: Buffer.from(head(302, [['Content-Length', 0]]), 'latin1'), then: 'end' };
    case 'Content-Encoding gzip over bytes that are not gzip': return framed([...kept, ['Content-Encoding', 'gzip'], ['Content-Length', body.length]]);
    case 'a 1 MiB header': return framed([...kept, ['X-Huge', 'a'.repeat(1 << 20)], ['Content-Length', body.length]]);
    case '20 KiB of headers': return framed([...kept, ...manyHeaders(20 << 10), ['Content-Length', body.length]]);
    case '2 MiB of headers': return framed([...kept, ...manyHeaders(2 << 20), ['Content-Length', body.length]]);
    case 'a 503 HTML page with terminal controls': {
      const page = Buffer.from(`<html><title>503</title><body>${TERMINAL_CONTROLS}</body></html>`);
      return { bytes: Buffer.concat([Buffer.from(head(503, [['Content-Type', 'text/html'], ['Content-Length', page.length]]), 'latin1'), page]), then: 'end' };
    }
  }
}

export async function startHostileFront(upstream: string): Promise<HostileFront> {
  const target = new URL(upstream);
  let rule: { method: string; path: RegExp; hostility: Hostility; times: number } | undefined;
  const sockets = new Set<Socket>();
  let self = '';

  const forward = (method: string, path: string, headers: Record<string, string>, body: Buffer) =>
    new Promise<Answer>((resolve, reject) => {
      const sent = request({ host: target.hostname, port: target.port, method, path, headers: { ...headers, host: target.host } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const pairs: Array<[string, string]> = [];
          // Links and Locations name the sandbox: they are to name this front.
          for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i], res.rawHeaders[i + 1].split(target.origin).join(self)]);
          resolve({ status: res.statusCode ?? 502, headers: pairs, body: Buffer.concat(chunks) });
        });
      });
      sent.on('error', reject);
      sent.end(body);
    });

  const answer = async (socket: Socket, method: string, path: string, headers: Record<string, string>, body: Buffer) => {
    const real = await forward(method, path, headers, body);
    const hit = rule && rule.method === method && rule.path.test(path.replace(/\?.*/, '').replace(/^\/api\/v4/, '')) ? rule.hostility : undefined;
    if (hit && rule && --rule.times <= 0) rule = undefined;
    if (!hit) {
      const kept = real.headers.filter(([name]) => !/^(content-length|transfer-encoding|connection|keep-alive)$/i.test(name));
      socket.end(Buffer.concat([Buffer.from(head(real.status, [...kept, ['Content-Length', real.body.length], ['Connection', 'close']]), 'latin1'), real.body]));
      return;
    }
    const { bytes, then } = damaged(hit, real);
    socket.write(bytes);
    if (then === 'end') socket.end();
    else if (then === 'reset') setTimeout(() => socket.resetAndDestroy(), 20);
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let received = Buffer.alloc(0);
    const onData = (data: Buffer) => {
      received = Buffer.concat([received, data]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = received.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) headers[line.slice(0, line.indexOf(':')).trim().toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      const length = Number(headers['content-length'] ?? 0);
      if (received.length < end + 4 + length) return;
      socket.off('data', onData);
      const [method, path] = lines[0].split(' ');
      delete headers.connection;
      answer(socket, method, path, headers, received.subarray(end + 4, end + 4 + length)).catch(() => socket.destroy());
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: self,
    damage: (next) => (rule = next ? { ...next, times: next.times ?? 1 } : undefined),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
