/**
 * Answers held to HTTP/1.1's framing as Node's own parser holds them: a raw socket server answers crafted bytes, and
 * forgectl's HTTP client and node:http each ask for them; both must give the same verdict (the same body, or a
 * refusal). Then the hostile ones through the command line: exit 8, nothing of that answer printed.
 */
import { request } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { run, tempDir } from '../helpers/cli.js';

const HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n';
const BODY = '[{"id":1}]';
const PAGE = '<html><h1>503</h1>\u001b[2J</html>';
/**
 * Each answer as bytes; `stall` keeps the connection open after them, `reset` resets it (else it is closed once
 * they are sent).
 */
const ANSWERS: Record<string, { bytes: string; stall?: boolean; reset?: boolean }> = {
  'Content-Length': { bytes: `${HEAD}Content-Length: ${BODY.length}\r\n\r\n${BODY}` },
  chunked: { bytes: `${HEAD}Transfer-Encoding: chunked\r\n\r\n${BODY.length.toString(16)}\r\n${BODY}\r\n0\r\n\r\n` },
  'a chunk extension and a trailer': { bytes: `${HEAD}Transfer-Encoding: chunked\r\n\r\n${BODY.length.toString(16)};x=y\r\n${BODY}\r\n0\r\nX-Trailer: 1\r\n\r\n` },
  'HTTP/1.0 framed by the end of the connection': { bytes: `HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n${BODY}` },
  '103 Early Hints before the answer': { bytes: `HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n${HEAD}Content-Length: ${BODY.length}\r\n\r\n${BODY}` },
  '100 Continue that was not asked for': { bytes: `HTTP/1.1 100 Continue\r\n\r\n${HEAD}Content-Length: ${BODY.length}\r\n\r\n${BODY}` },
  'two different Content-Length values': { bytes: `${HEAD}Content-Length: ${BODY.length}\r\nContent-Length: 5\r\n\r\n${BODY}` },
  'the wrong Content-Length first': { bytes: `${HEAD}Content-Length: 5\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}` },
  'the same Content-Length twice': { bytes: `${HEAD}Content-Length: ${BODY.length}\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}` },
  'Content-Length and Transfer-Encoding': { bytes: `${HEAD}Content-Length: ${BODY.length}\r\nTransfer-Encoding: chunked\r\n\r\n${BODY.length.toString(16)}\r\n${BODY}\r\n0\r\n\r\n` },
  'a NUL in a header value': { bytes: `${HEAD}X-Note: a\0b\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}` },
  'bare LF line ends': { bytes: `HTTP/1.1 200 OK\nContent-Type: application/json\nContent-Length: ${BODY.length}\n\n${BODY}` },
  'a space before a header colon': { bytes: `${HEAD}Content-Length : ${BODY.length}\r\n\r\n${BODY}` },
  'a folded header line': { bytes: `${HEAD}X-Note: a\r\n b\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}` },
  'headers past 16 KiB': { bytes: `${HEAD}X-Big: ${'a'.repeat(20_000)}\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}` },
  'a chunk size that is not hex': { bytes: `${HEAD}Transfer-Encoding: chunked\r\n\r\nzz\r\n${BODY}\r\n0\r\n\r\n` },
  'a chunk without its CRLF': { bytes: `${HEAD}Transfer-Encoding: chunked\r\n\r\n${BODY.length.toString(16)}\r\n${BODY}0\r\n\r\n` },
  'a body shorter than its Content-Length': { bytes: `${HEAD}Content-Length: ${BODY.length + 5}\r\n\r\n${BODY}` },
  'Content-Length 2,000,000,000, then the end of the connection': { bytes: `${HEAD}Content-Length: 2000000000\r\n\r\n${BODY}` },
  'Content-Length 2,000,000,000, then silence': { bytes: `${HEAD}Content-Length: 2000000000\r\n\r\n${BODY}`, stall: true },
  'a status line that is not HTTP': { bytes: `HTTX/1.1 200 OK\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}` },
  'one header of 1 MiB': { bytes: `${HEAD}X-Huge: ${'a'.repeat(1 << 20)}\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}` },
  'Content-Encoding gzip over bytes that are not gzip': { bytes: `${HEAD}Content-Encoding: gzip\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}` },
  'headers, then silence': { bytes: `${HEAD}Content-Length: ${BODY.length}\r\n\r\n`, stall: true },
  'a reset in the middle of the body': { bytes: `${HEAD}Content-Length: ${BODY.length}\r\n\r\n${BODY.slice(0, 4)}`, reset: true },
  'a 302 without Location': { bytes: 'HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n' },
  'an empty 200': { bytes: `${HEAD}Content-Length: 0\r\n\r\n` },
  'a 503 HTML page': { bytes: `HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/html\r\nContent-Length: ${PAGE.length}\r\n\r\n${PAGE}` },
  'a body nested 100,000 deep': { bytes: `${HEAD}Content-Length: 200000\r\n\r\n${'['.repeat(100_000)}${']'.repeat(100_000)}` },
};

let server: Server;
let base = '';
const sockets = new Set<Socket>();
beforeAll(async () => {
  server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let head = '';
    socket.on('data', (data) => {
      head += data.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      // The case is the path's last segment (list pages ask for /api/v4/users?...: every page gets the same answer).
      const name = decodeURIComponent(head.split(' ')[1].split('?')[0].split('/').pop() ?? '');
      const answer = ANSWERS[name] ?? ANSWERS[process.env.FRAMING_CASE ?? ''] ?? ANSWERS[current];
      head = '';
      socket.write(Buffer.from(answer.bytes, 'latin1'));
      if (answer.reset) setTimeout(() => socket.resetAndDestroy(), 20);
      else if (!answer.stall) socket.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});
/** The answer /api/v4/users gets (the command-line cases). */
let current = 'Content-Length';

/** What node:http makes of an answer: its body, or 'refused'. */
function viaNode(name: string): Promise<string> {
  return new Promise((resolve) => {
    const req = request(`${base}/${encodeURIComponent(name)}`, { agent: false, timeout: 1000 }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')));
      res.on('end', () => resolve(res.complete ? `${res.statusCode} ${body}` : 'refused'));
      res.on('error', () => resolve('refused'));
      res.on('aborted', () => resolve('refused'));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', () => resolve('refused'));
    req.end();
  });
}

/** What forgectl's HTTP client makes of it, read whole as JSON answers and list pages are. */
async function viaForgectl(name: string): Promise<string> {
  const http = new HttpClient({ timeoutMs: 1000, retries: 0, env: {}, userAgent: 'forgectl/test' });
  try {
    const response = await http.send({ method: 'GET', url: `${base}/${encodeURIComponent(name)}`, read: true });
    return `${response.status} ${(await response.buffer()).toString('latin1')}`;
  } catch {
    return 'refused';
  } finally {
    await http.close();
  }
}

/**
 * Where the verdicts differ, and why. undici refuses a 100 Continue when the request did not ask for one (forgectl
 * never sends Expect: 100-continue); Node skips it.
 */
const DIFFERENT: Record<string, { node: string; ours: string }> = {
  '100 Continue that was not asked for': { node: `200 ${BODY}`, ours: 'refused' },
};

describe('the same verdict as node:http on every answer', () => {
  it.each(Object.keys(ANSWERS))('%s', async (name) => {
    const [node, ours] = await Promise.all([viaNode(name), viaForgectl(name)]);
    if (DIFFERENT[name]) expect({ node, ours }).toEqual(DIFFERENT[name]);
    else expect(ours).toBe(node);
  });

  it('takes a sound answer and refuses the hostile ones (so the comparison above compares something)', async () => {
    expect(await viaForgectl('Content-Length')).toBe(`200 ${BODY}`);
    expect(await viaForgectl('chunked')).toBe(`200 ${BODY}`);
    for (const name of ['two different Content-Length values', 'a NUL in a header value', 'bare LF line ends', 'Content-Length 2,000,000,000, then silence', 'one header of 1 MiB', 'headers, then silence', 'a reset in the middle of the body']) {
      expect(await viaForgectl(name), name).toBe('refused');
    }
  });
});

describe('a hostile answer through the command line', () => {
  const cli = (argv: string[]) => run(['--timeout', '1', '--retries', '0', ...argv], { env: { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: base, FORGECTL_TOKEN: 'glpat-test' } });

  it.each(['two different Content-Length values', 'a NUL in a header value', 'bare LF line ends', 'Content-Length 2,000,000,000, then the end of the connection', 'Content-Length 2,000,000,000, then silence'])(
    '%s: exit 8, nothing printed, in every format',
    async (name) => {
      current = name;
      for (const format of ['json', 'ndjson', 'table']) {
        const result = await cli(['users', 'list', '--all', '-o', format]);
        expect(result.code, result.stderr).toBe(8);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(/^error: (connection to|no response from) 127\.0\.0\.1:\d+/);
      }
      current = 'Content-Length';
    },
  );
});
