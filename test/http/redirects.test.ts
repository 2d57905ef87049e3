/**
 * A redirect is followed only for GET and HEAD, at most 5 times. A redirect answered to a write, or a loop, is an
 * error that names the Location (exit 8), never a success with nothing done.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
    ['DELETE', 'badges', ['api', '-X', 'DELETE', '/projects/acme%2Fapi/badges/1'], 302],
  ])('%s answered with a redirect is an error naming the Location (%s)', async (method, path, argv, status) => {
    sandbox.clearRequests();
    sandbox.fault({ method, path, status, headers: { Location: `${ELSEWHERE}?token=secret` } });
    const result = await sandbox.run(argv);
    expect(result.code).toBe(8);
    expect(result.stderr).toContain(`the server answered a redirect (${status}) to https://elsewhere.example/moved?token=%5BREDACTED%5D, which is not followed for ${method}`);
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
