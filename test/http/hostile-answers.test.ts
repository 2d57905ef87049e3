/**
 * Hostile answers beyond list pages: a raw-socket front in front of the sandbox damages the answer to one request
 * (single GETs, writes, the rotate request, downloads) after the sandbox has acted on it. Each must end in the
 * contract's exit code with one clear line, nothing half written, no terminal control from the server on stderr, and
 * a rotated token in the recovery file whenever its bytes arrived.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileFront, type HostileFront, type Hostility } from '../helpers/hostile-front.js';
import { tempDir, useTestSandbox, type RunResult } from '../helpers/cli.js';

const sandbox = useTestSandbox();
let front: HostileFront;
beforeAll(async () => {
  front = await startHostileFront(sandbox.url.replace(/\/api\/v4$/, ''));
});
afterAll(() => front.close());

const viaFront = (argv: string[], env: Record<string, string> = {}) => sandbox.run(['--timeout', '1', '--retries', '0', ...argv], { env: { FORGECTL_URL: front.url, ...env } });
const errorLines = (result: RunResult) => result.stderr.split('\n').filter((line) => line.startsWith('error:'));

describe('a single GET', () => {
  it.each<[Hostility, RegExp]>([
    ['an empty body', /^error: the server answered 200 with an empty body where JSON was expected \(GET \/projects\/acme%2Fapi\)$/],
    ['headers, then silence', /^error: no response from 127\.0\.0\.1:\d+ within 1s \(the answer stopped part-way\)$/],
    ['a reset in the middle of the body', /^error: connection to 127\.0\.0\.1:\d+ failed: .*ECONNRESET/],
    ['a 302 without Location', /^error: the server answered 302 without a Location/],
    ['a 1 MiB header', /^error: connection to 127\.0\.0\.1:\d+ failed: the answer's headers are too large to read/],
    ['20 KiB of headers', /^error: connection to 127\.0\.0\.1:\d+ failed: the answer's headers are too large to read \(over Node's limit, 16 KiB/],
    ['two different Content-Length values', /^error: connection to 127\.0\.0\.1:\d+ failed: the answer broke HTTP\/1\.1 framing: its body does not match its Content-Length/],
    ['a 503 HTML page with terminal controls', /^error: 503 Service Unavailable \(HTML error page\)/],
  ])('%s: exit 8, one line saying so, nothing printed', async (hostility, message) => {
    front.damage({ method: 'GET', path: /^\/projects\/acme%2Fapi$/, hostility, times: 5 });
    const result = await viaFront(['projects', 'get', 'acme/api', '-o', 'json']);
    front.damage(undefined);
    expect(result.code, result.stderr).toBe(8);
    expect(result.stdout).toBe('');
    expect(errorLines(result)).toHaveLength(1);
    expect(errorLines(result)[0]).toMatch(message);
    expect([...result.stderr].filter((char) => char !== '\n' && char.charCodeAt(0) < 0x20)).toEqual([]);
  });

  it('Content-Encoding gzip over plain bytes: the bytes are what they are (no encoding was asked for)', async () => {
    front.damage({ method: 'GET', path: /^\/projects\/acme%2Fapi$/, hostility: 'Content-Encoding gzip over bytes that are not gzip' });
    const result = await viaFront(['projects', 'get', 'acme/api', '-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json()).toMatchObject({ path_with_namespace: 'acme/api' });
  });
});

describe('a write', () => {
  it('variables set answered 201 with an empty body: exit 8 saying it was probably made, not an internal error', async () => {
    front.damage({ method: 'POST', path: /\/variables$/, hostility: 'an empty body' });
    const result = await viaFront(['variables', 'set', 'HOSTILE_EMPTY', '--project', 'acme/api', '--value', 'v1']);
    expect(result.code, result.stderr).toBe(8);
    expect(errorLines(result)).toEqual(['error: the server answered without the variable: HOSTILE_EMPTY (scope *) of project acme/api was probably created']);
    expect((await sandbox.call('GET', '/projects/acme%2Fapi/variables/HOSTILE_EMPTY')).body).toMatchObject({ value: 'v1' });
  });

  it('tokens create answered with an empty body: exit 8 saying a token was probably made that nobody holds, not exit 0 with nothing', async () => {
    front.damage({ method: 'POST', path: /\/access_tokens$/, hostility: 'an empty body' });
    const result = await viaFront(['tokens', 'create', '--project', 'acme/api', '--name', 'hostile-empty', '--scopes', 'api', '--access-level', 'developer', '--expires-in', '30d']);
    expect(result.code, result.stderr).toBe(8);
    expect(result.stdout).toBe('');
    expect(errorLines(result)).toEqual(['error: the server answered without the new token: a token named "hostile-empty" was probably created, and its value is lost']);
    expect(result.stderr).toContain('hint: forgectl tokens list --project acme/api --search "hostile-empty" --state active shows it');
  });

  it('tokens create answered with bare LF line ends: exit 8, saying a token may have been made that nobody holds', async () => {
    front.damage({ method: 'POST', path: /\/access_tokens$/, hostility: 'bare LF line ends' });
    const result = await viaFront(['tokens', 'create', '--project', 'acme/api', '--name', 'hostile-bare-lf', '--scopes', 'api', '--access-level', 'developer', '--expires-in', '30d']);
    expect(result.code, result.stderr).toBe(8);
    expect(result.stdout).toBe('');
    expect(errorLines(result)[0]).toMatch(/; a token named "hostile-bare-lf" may have been created, and its value is lost$/);
    expect(result.stderr).toContain('hint: forgectl tokens list --project acme/api --search "hostile-bare-lf" --state active shows it');
  });

  it.each<Hostility>(['bare LF line ends', 'two different Content-Length values', 'a NUL in a header value'])(
    'tokens rotate self answered with %s: exit 8, and the new token is in the recovery file, working',
    async (hostility) => {
      const made = await sandbox.call('POST', '/users/1/personal_access_tokens', { name: 'hostile-rotation', scopes: ['api'], expires_at: new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10) });
      expect(made.status, made.text).toBe(201);
      const config = tempDir();
      front.damage({ method: 'POST', path: /\/rotate$/, hostility });
      const result = await viaFront(['tokens', 'rotate', 'self', '--personal', '--no-save-to-profile', '--output-file', join(config, 'new.token'), '--yes'], { FORGECTL_CONFIG_DIR: config, FORGECTL_TOKEN: made.body.token });
      expect(result.code, result.stderr).toBe(8);
      expect(result.stdout + result.stderr).not.toContain('glpat-');
      // The service acted and the token arrived: said so, with where it is, not that its value is lost.
      expect(errorLines(result)).toEqual([expect.stringMatching(/^error: personal token in use was rotated, but its answer broke after the new token arrived: /)]);
      expect(result.stderr).toMatch(/\nhint: the new token is in the recovery file \S+\.json \(mode 0600\), saved nowhere else yet: forgectl tokens recover \S+\.json saves it where asked\. Do not rotate again: the old token is revoked\n/);
      const files = existsSync(join(config, 'recovery')) ? readdirSync(join(config, 'recovery')) : [];
      const kept = files.map((file) => readFileSync(join(config, 'recovery', file), 'utf8')).join('\n').match(/glpat-[\w-]+/)?.[0];
      expect(kept, `recovery files: ${files.join(', ')}`).toBeDefined();
      expect(kept).not.toBe(made.body.token);
      expect((await sandbox.call('GET', '/user', undefined, kept)).status).toBe(200);
      expect((await sandbox.call('GET', '/user', undefined, made.body.token)).status).toBe(401);
      // What the hint says to run saves it where the rotation was to.
      const recovered = await viaFront(['tokens', 'recover', join(config, 'recovery', files[0])], { FORGECTL_CONFIG_DIR: config, FORGECTL_TOKEN: kept! });
      expect(recovered.code, recovered.stderr).toBe(0);
      expect(readFileSync(join(config, 'new.token'), 'utf8').trim()).toBe(kept);
    },
  );
});

describe('a rotation answered with a large header block', () => {
  const rotations = {
    'self, personal': async () => {
      const made = await sandbox.call('POST', '/users/1/personal_access_tokens', { name: 'large-headers', scopes: ['api'], expires_at: new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10) });
      return { old: made.body.token as string, argv: ['self', '--personal'], env: { FORGECTL_TOKEN: made.body.token as string } };
    },
    'a project token by id': async () => {
      const made = await sandbox.call('POST', '/projects/acme%2Fapi/access_tokens', { name: 'large-headers', scopes: ['api'], access_level: 30, expires_at: new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10) });
      return { old: made.body.token as string, argv: [String(made.body.id), '--project', 'acme/api'], env: {} };
    },
  };

  it.each(Object.keys(rotations) as Array<keyof typeof rotations>)('20 KiB of headers (%s): read, the new token saved and working, no recovery file left', async (kind) => {
    const { old, argv, env } = await rotations[kind]();
    const config = tempDir();
    front.damage({ method: 'POST', path: /\/rotate$/, hostility: '20 KiB of headers' });
    const result = await viaFront(['tokens', 'rotate', ...argv, '--no-save-to-profile', '--output-file', join(config, 'new.token'), '--yes'], { FORGECTL_CONFIG_DIR: config, ...env });
    expect(result.code, result.stderr).toBe(0);
    const saved = readFileSync(join(config, 'new.token'), 'utf8').trim();
    expect(saved).toMatch(/^glpat-/);
    expect((await sandbox.call('GET', '/user', undefined, saved)).status).toBe(200);
    expect((await sandbox.call('GET', '/user', undefined, old)).status).toBe(401);
    expect(existsSync(join(config, 'recovery')) ? readdirSync(join(config, 'recovery')) : []).toEqual([]);
  });

  it('2 MiB of headers: exit 8, saying the token may have been rotated and how to find out, never to rotate again yet', async () => {
    const { argv, env } = await rotations['self, personal']();
    const config = tempDir();
    front.damage({ method: 'POST', path: /\/rotate$/, hostility: '2 MiB of headers' });
    const result = await viaFront(['tokens', 'rotate', ...argv, '--no-save-to-profile', '--output-file', join(config, 'new.token'), '--yes'], { FORGECTL_CONFIG_DIR: config, ...env });
    expect(result.code, result.stderr).toBe(8);
    expect(errorLines(result)).toEqual([expect.stringMatching(/^error: the outcome of rotating personal token in use is unknown: connection to 127\.0\.0\.1:\d+ failed: the answer's headers are too large to read \(over 1024 KiB, the bound for an answer that is sent once\).*The request was sent once and was NOT retried$/)]);
    expect(result.stderr).toContain('hint: do not run the rotation again yet: if the service did rotate, the old token is revoked');
    expect(result.stderr).toContain('forgectl tokens get self --personal');
  });
});

describe('a download', () => {
  it.each<Hostility>(['a reset in the middle of the body', 'bare LF line ends', 'two different Content-Length values', 'headers, then silence'])(
    'files raw -O answered with %s: exit 8, nothing under the final name',
    async (hostility) => {
      const dir = tempDir();
      front.damage({ method: 'GET', path: /\/files\/README%2Emd\/raw$/, hostility, times: 5 });
      const result = await viaFront(['files', 'raw', 'README.md', '--project', 'acme/api', '-O', join(dir, 'README.md')]);
      front.damage(undefined);
      expect(result.code, result.stderr).toBe(8);
      expect(errorLines(result)).toHaveLength(1);
      expect(existsSync(join(dir, 'README.md'))).toBe(false);
    },
  );
});
