import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, tempDir, useTestSandbox } from '../helpers/cli.js';

/** A server that answers the way broken instances and the proxies in front of them do. */
let server: ReturnType<typeof createServer>;
let url = '';
const hits: Record<string, number> = {};
const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/api/v4/users/2': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!DOCTYPE html><html><body>Sign in to continue</body></html>');
  },
  '/api/v4/users': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>login</html>');
  },
  '/api/v4/version': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"version": "17.0", ');
  },
  '/api/v4/user': (_req, res) => {
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<html>\n<head><title>502 Bad Gateway</title></head>\n<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body>\n</html>\n');
  },
  // A list whose first page is fine and whose second is what a test sets.
  '/api/v4/groups': (req, res) => {
    const first = !/[?&]page=2(&|$)/.test(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json', 'x-next-page': first ? '2' : '', 'x-per-page': '2' });
    res.end(first ? '[{"id":1,"name":"one","path":"one","full_path":"one"},{"id":2,"name":"two","path":"two","full_path":"two"}]' : secondPage);
  },
  // The first answer breaks off after a few bytes of its body; the next one is whole.
  '/api/v4/projects/1': (req, res) => {
    const body = JSON.stringify({ id: 1, name: 'api', description: 'x'.repeat(2000) });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
    if (hits[`${req.method} ${req.url}`] === 1) {
      res.write(body.slice(0, 10));
      setTimeout(() => res.socket?.destroy(), 20);
    } else {
      res.end(body);
    }
  },
};

/** Page 2 of /groups. */
let secondPage = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const key = `${req.method} ${req.url}`;
    hits[key] = (hits[key] ?? 0) + 1;
    req.resume();
    const route = routes[(req.url ?? '').replace(/\?.*/, '')];
    if (route) return route(req, res);
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"message":"404 Not Found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const cli = (argv: string[]) => run(argv, { env: { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: url, FORGECTL_TOKEN: 'glpat-test' } });

describe('answers that are not what the API promises', () => {
  it('a 200 with an HTML page is a server failure for typed commands (exit 8), nothing printed', async () => {
    const result = await cli(['users', 'get', '2']);
    expect(result.code).toBe(8);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: the server answered 200 with text\/html, not JSON \(GET \/users\/2\)\nhint: a web page answered/);
    const list = await cli(['users', 'list']);
    expect(list.code).toBe(8);
    expect(list.stderr).toContain('the server answered 200 with text/html, not JSON (GET /users)');
  });

  it('malformed JSON is a server failure too; api prints what came, with a warning', async () => {
    expect((await cli(['api', '/users/2'])).stderr).toBe('warning: the server answered 200 with text/html, not JSON (a sign-in page of a proxy?)\n');
    const malformed = await cli(['api', '/version']);
    expect(malformed.code).toBe(0);
    expect(malformed.stdout).toBe('{"version": "17.0", \n');
    expect(malformed.stderr).toBe('warning: the server answered 200 with malformed JSON; printed as text\n');
  });

  it('a 200 where a list is expected that is not a list, or empty, is a server failure (exit 8), after the pages before it', async () => {
    for (const [body, what] of [['{"message":"a list was expected here"}', 'JSON that is not a list'], ['', 'an empty body']]) {
      secondPage = body;
      const result = await cli(['groups', 'list', '--all', '--per-page', '2', '-o', 'ndjson']);
      expect(result.code, result.stderr).toBe(8);
      expect(result.stderr).toContain(`error: the server answered 200 with ${what} where a list was expected (GET /groups)`);
      expect(result.stdout.trim().split('\n').map((line) => JSON.parse(line).id)).toEqual([1, 2]);
    }
  });

  it('a page nested deeper than any record (100,000 levels) is refused (exit 8), nothing of it written', async () => {
    secondPage = `[${'['.repeat(100_000)}${']'.repeat(100_000)}]`;
    for (const format of ['json', 'ndjson']) {
      const result = await cli(['groups', 'list', '--all', '--per-page', '2', '-o', format]);
      expect(result.code, result.stderr).toBe(8);
      expect(result.stderr).toContain('the server answered 200 with JSON nested deeper than 1,000 levels (GET /groups)');
      expect(result.stderr).not.toContain('internal error');
      const ids = format === 'json' ? result.json<Array<{ id: number }>>().map((r) => r.id) : result.stdout.trim().split('\n').map((line) => JSON.parse(line).id);
      expect(ids).toEqual([1, 2]);
    }
    const one = await cli(['api', '/groups?page=2']);
    expect(one.code).toBe(0);
    expect(one.stderr).toBe('warning: the server answered 200 with JSON nested deeper than 1,000 levels; printed as text\n');
  });

  it('an HTML error page becomes its status text, on one line', async () => {
    const result = await cli(['--retries', '0', 'auth', 'status']);
    expect(result.code).toBe(8);
    expect(result.stderr.split('\n')[0]).toBe('error: 502 Bad Gateway (HTML error page) (GET /user → 502)');
  });

  it('a connection lost in the middle of a body is a network failure (exit 8), retried for a GET', async () => {
    const retried = await cli(['api', '/projects/1']);
    expect(retried.code).toBe(0);
    expect(retried.json()).toMatchObject({ id: 1, name: 'api' });
    expect(hits['GET /api/v4/projects/1']).toBe(2);
    hits['GET /api/v4/projects/1'] = 0;
    const once = await cli(['--retries', '0', '-o', 'json', 'api', '-X', 'GET', '/projects/1', '-F', 'x=1']);
    expect(once.code).toBe(8);
    expect(once.stderr).toMatch(/^error: connection/);
    expect(once.stderr).not.toContain('internal error');
  });
});

describe('TLS trouble', () => {
  const tls = useTestSandbox({ tls: true });

  it('an untrusted certificate gets a hint about --ca-file and NODE_EXTRA_CA_CERTS', async () => {
    const result = await tls.run(['--retries', '0', 'api', '/user']);
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/^error: TLS error talking to 127\.0\.0\.1:\d+: .*\n/);
    expect(result.stderr).toContain('hint: the server\'s certificate is not signed by a CA this machine trusts: add the CA with --ca-file PATH');
    expect(result.stderr).toContain('NODE_EXTRA_CA_CERTS');
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('with NODE_EXTRA_CA_CERTS set, the hint says what became of its file instead of suggesting the variable', async () => {
    const missing = join(tempDir(), 'missing-ca.pem');
    const gone = await tls.run(['--retries', '0', 'api', '/user'], { env: { NODE_EXTRA_CA_CERTS: missing } });
    expect(gone.code).toBe(8);
    expect(gone.stderr).toContain(`NODE_EXTRA_CA_CERTS is set to ${missing}, which cannot be read (no such file), so Node loaded no extra CA from it: correct the path, or add the CA with --ca-file PATH`);
    const text = join(tempDir(), 'not-a-ca.pem');
    writeFileSync(text, 'not a certificate\n');
    const empty = await tls.run(['--retries', '0', 'api', '/user'], { env: { NODE_EXTRA_CA_CERTS: text } });
    expect(empty.stderr).toContain(`NODE_EXTRA_CA_CERTS is set to ${text}, which holds no PEM certificate`);
  });

  it('a CA file that holds no certificate is a configuration error naming the file', async () => {
    const garbage = join(tempDir(), 'ca.pem');
    writeFileSync(garbage, 'this is not a certificate\n');
    const result = await tls.run(['--ca-file', garbage, 'api', '/user']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`error: cannot use the CA file ${garbage}: no PEM certificate in it`);
    const damaged = join(tempDir(), 'damaged.pem');
    writeFileSync(damaged, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    const broken = await tls.run(['--ca-file', damaged, 'api', '/user']);
    expect(broken.code).toBe(3);
    expect(broken.stderr).toContain('a certificate in it is damaged');
  });
});
