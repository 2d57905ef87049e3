import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeSegment, p } from '../../src/api/path.js';
import { HttpClient } from '../../src/http/client.js';
import { useTestSandbox } from '../helpers/cli.js';

/** Strings that stress path encoding: dots, slashes, percent signs, query and fragment marks, unicode. */
const segment = fc.oneof(
  fc.constantFrom('.', '..', '...', '%2e', '%2E%2E', './', '/..', 'a/../b', '?', '#', '%', ' ', 'acme/api'),
  fc.string({ unit: fc.constantFrom('.', '/', '%', '?', '#', 'a', 'Z', '2', 'e', ' ', '+', 'é', '\\', ';') }),
  fc.string({ unit: 'grapheme' }),
);

describe('path parameters', () => {
  it('each value is exactly one segment that decodes back to it and is never a dot segment', () => {
    fc.assert(
      fc.property(segment, (value) => {
        const parts = p`/projects/${value}/badges`.split('/');
        expect(parts.length).toBe(4);
        expect(decodeURIComponent(parts[2])).toBe(value);
        // A URL parser resolves ".", "..", "%2e" and "%2e%2e" segments; the encoded form never is one.
        expect(/^(\.|%2e){1,2}$/i.test(parts[2]) && /\./.test(parts[2])).toBe(false);
      }),
    );
    expect(encodeSegment('..')).toBe('%2E%2E');
    expect(encodeSegment('.')).toBe('%2E');
  });

  describe('on the wire', () => {
    let server: ReturnType<typeof createServer>;
    let origin = '';
    const seen: string[] = [];
    beforeAll(async () => {
      server = createServer((req, res) => {
        seen.push(req.url ?? '');
        res.end('{}');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('the HTTP client sends the path exactly as built (no resolving of encoded dot segments)', async () => {
      const http = new HttpClient({ timeoutMs: 5000, retries: 0, env: {}, userAgent: 'test' });
      try {
        await fc.assert(
          fc.asyncProperty(segment, async (value) => {
            const path = p`/api/v4/projects/${value}/badges`;
            seen.length = 0;
            const response = await http.send({ method: 'GET', url: `${origin}${path}?per_page=1` });
            await response.text();
            expect(seen).toEqual([`${path}?per_page=1`]);
          }),
          { numRuns: 60 },
        );
      } finally {
        await http.close();
      }
    });
  });
});

describe('--project . and ..', () => {
  const sandbox = useTestSandbox();

  it('are sent encoded as one segment, so the service answers for that project (404), not for another route', async () => {
    for (const [project, encoded] of [['..', '%2E%2E'], ['.', '%2E']]) {
      sandbox.clearRequests();
      const result = await sandbox.run(['badges', 'list', '--project', project]);
      expect(sandbox.requests().map((r) => r.path.replace(/\?.*/, ''))).toEqual([`/api/v4/projects/${encoded}/badges`]);
      expect(result.code).toBe(5);
      expect(result.stderr).toContain(`/projects/${encoded}/badges → 404`);
    }
  });
});
