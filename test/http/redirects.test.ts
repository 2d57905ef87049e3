/**
 * A redirect is followed only for GET and HEAD, at most 5 times. A redirect answered to a write, or a loop, is an
 * error that names the Location (exit 8), never a success with nothing done.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();
const P = ['--project', 'acme/api'];
const ELSEWHERE = 'https://elsewhere.example/moved';

describe('redirects', () => {
  it.each([
    ['POST', 'badges', ['badges', 'create', ...P, '--link-url', 'https://x.example', '--image-url', 'https://x.example/b.svg'], 307],
    ['POST', 'hooks', ['hooks', 'create', ...P, '--url', 'https://ci.example.com/hook', '--events', 'push'], 301],
    ['PUT', 'projects/', ['api', '-X', 'PUT', '/projects/acme%2Fapi', '-f', 'description=moved'], 308],
    ['POST', 'access_tokens', ['tokens', 'create', ...P, '--name', 'ci', '--scopes', 'api', '--access-level', 'developer', '--expires-in', '30d'], 307],
    ['DELETE', 'badges', ['api', '-X', 'DELETE', '/projects/acme%2Fapi/badges/1', '--yes'], 302],
  ])('%s answered with a redirect is an error naming the Location (%s)', async (method, path, argv, status) => {
    sandbox.clearRequests();
    sandbox.fault({ method, path, status, headers: { Location: `${ELSEWHERE}?token=secret` } });
    const result = await sandbox.run(argv);
    expect(result.code).toBe(8);
    expect(result.stderr).toContain(`the server answered a redirect (${status}) to https://elsewhere.example/moved?token=*****, which is not followed for ${method}`);
    expect(result.stderr).not.toContain('secret');
    expect(result.stdout).toBe('');
    // Sent once, never again to the Location.
    expect(sandbox.requests().filter((r) => r.method === method)).toHaveLength(1);
  });

  it('a write redirected changes nothing: apply exits 8 and plan still finds the drift', async () => {
    const dir = tempDir();
    const file = join(dir, 'desired.yaml');
    writeFileSync(file, 'target: acme/api\nprojects:\n  acme/api:\n    badges:\n      - {name: redirected, link_url: "https://x.example", image_url: "https://x.example/b.svg"}\n');
    expect((await sandbox.run(['plan', '-f', file])).code).toBe(9);
    sandbox.fault({ method: 'POST', path: 'badges', status: 301, headers: { Location: ELSEWHERE }, times: 5 });
    const applied = await sandbox.run(['apply', '-f', file, '--yes']);
    expect(applied.code).not.toBe(0);
    expect(applied.stdout + applied.stderr).toContain(ELSEWHERE);
    expect((await sandbox.run(['plan', '-f', file])).code).toBe(9);
  });

  it('a GET redirect loop is an error after 5 hops: nothing printed, nothing written under the final name', async () => {
    sandbox.fault({ method: 'GET', path: '^/users$', status: 302, headers: { Location: '/api/v4/users' }, times: 6 });
    const users = await sandbox.run(['users', 'list']);
    expect(users).toMatchObject({ code: 8, stdout: '' });
    expect(users.stderr).toMatch(/more than 5 redirects \(the last to http:\/\/127\.0\.0\.1:\d+\/api\/v4\/users\)/);

    const dir = tempDir();
    sandbox.fault({ method: 'GET', path: 'files/README.md/raw', status: 307, headers: { Location: '/api/v4/projects/acme%2Fapi/repository/files/README.md/raw?ref=main' }, times: 6 });
    const raw = await sandbox.run(['files', 'raw', 'README.md', ...P, '-O', join(dir, 'README.md')]);
    expect(raw.code).toBe(8);
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(join(dir, 'README.md'))).toBe(false);
  });

  it('a redirect is still followed for a GET (5 hops at most)', async () => {
    sandbox.fault({ method: 'GET', path: '^/users$', status: 302, headers: { Location: '/api/v4/users' }, times: 5 });
    expect((await sandbox.run(['users', 'list', '--per-page', '1'])).code).toBe(0);
  });
});

describe('a page from another origin', () => {
  /** Another origin (127.0.0.2) that answers any GET with a list of one user, counting what it is asked. */
  let other: Server;
  let otherUrl = '';
  const asked: Array<{ url?: string; token?: string | string[] }> = [];
  beforeAll(async () => {
    other = createServer((req, res) => {
      asked.push({ url: req.url, token: req.headers['private-token'] });
      // Object storage, as a download's redirect reaches it.
      if (req.url?.startsWith('/storage/')) return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end('stored bytes');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[{"id":999999,"username":"not-from-the-instance"}]');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.2', resolve));
    otherUrl = `http://127.0.0.2:${(other.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => other.close(() => resolve())));
  const pageQuery = (page: number) => `(^|&)page=${page}(&|$)`;

  it.each([302, 307])('a redirect (%i) of page 2 to another origin ends the list (exit 8), in every format, nothing of that origin printed', async (status) => {
    for (const format of ['json', 'ndjson', 'csv']) {
      asked.length = 0;
      sandbox.fault({ method: 'GET', path: '^/users$', query: pageQuery(2), status, headers: { Location: `${otherUrl}/api/v4/users?page=2&per_page=2` } });
      const result = await sandbox.run(['users', 'list', '--all', '--per-page', '2', '-o', format]);
      sandbox.faults.clear();
      expect(result.code, result.stderr).toBe(8);
      expect(result.stderr).toContain(`the server answered a redirect (${status}) to another origin, ${otherUrl}/api/v4/users?page=2&per_page=2: what it answers is not this instance's data (GET /users → ${status})`);
      // Page 1's two records, and nothing of the other origin.
      const records = format === 'json' ? result.json<unknown[]>() : result.stdout.trim().split('\n').slice(format === 'csv' ? 1 : 0);
      expect(records).toHaveLength(2);
      expect(result.stdout).not.toContain('not-from-the-instance');
      expect(asked).toEqual([]);
    }
  });

  it('a Link to the next page on another origin ends the list (exit 8) before it is asked', async () => {
    asked.length = 0;
    const first = (await sandbox.call('GET', '/users?per_page=2&page=1')).body as unknown[];
    sandbox.fault({ method: 'GET', path: '^/users$', status: 200, body: first, headers: { Link: `<${otherUrl}/api/v4/users?page=2>; rel="next"` } });
    const result = await sandbox.run(['users', 'list', '--limit', '4', '--per-page', '2', '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(8);
    expect(result.stderr).toContain(`error: the server's link to the next page points to another origin, ${otherUrl}/api/v4/users?page=2: what it answers is not this instance's data, and the list ends here (GET /users)`);
    expect(result.stdout.trim().split('\n').map((line) => JSON.parse(line))).toEqual(first);
    expect(asked).toEqual([]);
  });

  it('api: JSON from another origin after a redirect is refused (exit 8), nothing printed; a download there is taken, without the token', async () => {
    asked.length = 0;
    sandbox.fault({ method: 'GET', path: '^/user$', status: 302, headers: { Location: `${otherUrl}/api/v4/user` } });
    const json = await sandbox.run(['api', '/user']);
    expect(json).toMatchObject({ code: 8, stdout: '' });
    expect(json.stderr).toContain(`error: the server answered a redirect (302) to another origin, ${otherUrl}/api/v4/user: what it answers is not this instance's data (GET /user → 302)`);
    sandbox.fault({ method: 'GET', path: 'artifacts', status: 302, headers: { Location: `${otherUrl}/storage/artifacts.zip` } });
    const download = await sandbox.run(['api', '/projects/acme%2Fapi/jobs/1/artifacts']);
    expect(download, download.stderr).toMatchObject({ code: 0, stdout: 'stored bytes' });
    expect(asked).toEqual([{ url: '/api/v4/user', token: undefined }, { url: '/storage/artifacts.zip', token: undefined }]);
  });

  it('a redirect on the same origin is still followed for a list page', async () => {
    sandbox.fault({ method: 'GET', path: '^/users$', query: pageQuery(2), status: 302, headers: { Location: `${sandbox.url}/users?page=2&per_page=2` } });
    const result = await sandbox.run(['users', 'list', '--limit', '4', '--per-page', '2', '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(4);
  });
});
