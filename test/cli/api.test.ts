import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assignField, typedValue } from '../../src/json-fields.js';
import { tempDir, useTestSandbox } from '../helpers/cli.js';
import { users as usersTable } from '../../src/sandbox/model.js';

const sandbox = useTestSandbox({ users: 45 });

describe('forgectl api', () => {
  it('prints the JSON body of a GET', async () => {
    const result = await sandbox.run(['api', 'version']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ version: expect.any(String) });
  });

  it('sends -f fields as query parameters on GET (POST is the default with fields, as in gh)', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['api', '-X', 'GET', '/users', '-f', 'username=alice']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject([{ username: 'alice' }]);
    expect(sandbox.requests()[0].path).toBe('/api/v4/users?username=alice');
  });

  it('types -F values: numbers, booleans, null, @file, arrays and nesting', async () => {
    const file = join(tempDir(), 'body.txt');
    writeFileSync(file, 'from a file');
    expect(await typedValue('42', async () => '')).toBe(42);
    expect(await typedValue('true', async () => '')).toBe(true);
    expect(await typedValue('null', async () => '')).toBeNull();
    expect(await typedValue('4x', async () => '')).toBe('4x');
    expect(await typedValue(`@${file}`, async () => '')).toBe('from a file');
    expect(await typedValue('@-', async () => 'stdin text')).toBe('stdin text');
    const target: Record<string, any> = {};
    assignField(target, 'scopes[]', 'api');
    assignField(target, 'scopes[]', 'read_api');
    assignField(target, 'range[start]', 1);
    expect(target).toEqual({ scopes: ['api', 'read_api'], range: { start: 1 } });
  });

  it('prints instead of sending with --dry-run, redacting secrets', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['--dry-run', 'api', '-X', 'PUT', '/application/settings', '-F', 'signup_enabled=false', '-f', 'external_pipeline_validation_service_token=s3cret']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`PUT ${sandbox.rootUrl}/api/v4/application/settings`);
    expect(result.stdout).toContain('"signup_enabled": false');
    expect(result.stdout).toContain('[REDACTED]');
    expect(result.stdout).not.toContain('s3cret');
    expect(sandbox.requests()).toEqual([]);
  });

  it('sends --input from stdin as the body and -H headers', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['api', '-X', 'POST', '/version', '--input', '-', '-H', 'X-Test: yes'], { input: '{"a":1}' });
    expect(result.code).toBe(5); // no POST route: the service's 404 is reported, not hidden
    expect(sandbox.requests()).toHaveLength(1);
  });

  it('shows the status line and headers with -i', async () => {
    const result = await sandbox.run(['api', '-i', '-X', 'GET', '/users', '-f', 'per_page=2']);
    expect(result.stdout).toMatch(/^HTTP 200\n/);
    expect(result.stdout).toMatch(/x-next-page: 2/i);
  });

  it('--paginate gives one JSON array of every page, or NDJSON', async () => {
    sandbox.clearRequests();
    const all = await sandbox.run(['api', '/users', '--paginate', '-f', 'per_page=10']);
    expect(all.code).toBe(0);
    const users = all.json<Array<{ id: number }>>();
    const everyone = usersTable(sandbox.db).length; // root, alice, bob, 45 seeded users and the token bots
    expect(everyone).toBeGreaterThanOrEqual(48);
    expect(users).toHaveLength(everyone);
    expect(new Set(users.map((u) => u.id)).size).toBe(everyone);
    const ndjson = await sandbox.run(['-o', 'ndjson', 'api', '/users', '--paginate']);
    expect(ndjson.stdout.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(users.map((u) => u.id));
  });

  it('reports error bodies as one line with the exit code', async () => {
    const result = await sandbox.run(['api', '/projects/acme%2Fnope']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('error: 404 Project Not Found (GET /projects/acme%2Fnope → 404)');
  });

  it('refuses a method the API does not answer before sending anything (exit 2); a lower-case one is taken', async () => {
    sandbox.clearRequests();
    const typo = await sandbox.run(['api', '-X', 'FROB', '/projects']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^error: --method must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS; got "FROB"$/m);
    expect(sandbox.requests()).toEqual([]);
    const lower = await sandbox.run(['api', '-X', 'get', '/version']);
    expect(lower.code, lower.stderr).toBe(0);
  });
});
