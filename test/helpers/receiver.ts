import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json(): any;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The status the receiver answers with from now on. */
  answer(status: number, body?: string): void;
  /** Resolves once `count` requests have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1:0 that records every request and answers with a settable status. */
export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let status = 200;
  let reply = '{"ok":true}';
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json: () => JSON.parse(body) });
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(reply);
      waiters.splice(0).forEach((wake) => wake());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer(next, body = next < 300 ? '{"ok":true}' : `{"error":"status ${next}"}`) {
      status = next;
      reply = body;
    },
    async waitFor(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A clock tests move by hand, shared by the sandbox and the CLI (now, sleep). */
export function fakeClock(start = Date.now()): { now: () => Date; sleep: (ms: number) => Promise<void>; advance(ms: number): void; slept: number[] } {
  let at = start;
  const slept: number[] = [];
  return {
    now: () => new Date(at),
    sleep: async (ms: number) => {
      slept.push(ms);
      at += ms;
    },
    advance: (ms: number) => void (at += ms),
    slept,
  };
}
