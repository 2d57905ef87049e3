import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

describe('--verbose request numbers', () => {
  it('are unique across the clients of one run: tokens rotate self checks the new token with a client of its own', async () => {
    const expires = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
    const created = await sandbox.run(['tokens', 'create', '--group', 'acme', '--name', 'verbose-bot', '--scopes', 'api', '--access-level', 'maintainer', '--expires-at', expires, '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    const { token } = created.json<{ token: string }>();
    const result = await sandbox.run(['-v', 'tokens', 'rotate', 'self', '--group', 'acme', '--yes', '--print-token', '-o', 'json'], { env: { FORGECTL_TOKEN: token } });
    expect(result.code, result.stderr).toBe(0);
    const sent = result.stderr.split('\n').filter((line) => /^\[\d+\] > [A-Z]+ /.test(line));
    const numbers = sent.map((line) => Number(/^\[(\d+)\]/.exec(line)![1]));
    // Each request once (a retry would repeat its number), numbered in the order sent, one client's and the other's alike.
    expect(numbers).toEqual(numbers.map((_, index) => index + 1));
    const rotated = result.json<{ token?: string }>();
    expect(result.stderr).not.toContain(token);
    if (rotated.token) expect(result.stderr).not.toContain(rotated.token);
  });
});
