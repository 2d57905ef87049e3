import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxLicenseKey } from '../../src/resources/licenses/sandbox.js';
import { isoDate } from '../../src/sandbox/seed.js';
import { run, tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

describe('exit codes (contract §5)', () => {
  it('0 for success', async () => {
    const result = await sandbox.run(['api', '/user']);
    expect(result.code).toBe(0);
    expect(result.json().username).toBe('root');
  });

  it('2 for an unknown command or flag', async () => {
    expect((await sandbox.run(['bogus'])).code).toBe(2);
    expect((await sandbox.run(['api', '/user', '--bogus'])).code).toBe(2);
  });

  it('2 for a number out of range, saying the range in words', async () => {
    const env = { FORGECTL_CONFIG_DIR: tempDir() };
    const page = await run(['projects', 'list', '--page', '0'], { env });
    expect(page.code).toBe(2);
    expect(page.stderr).toBe('error: --page must be at least 1, got 0\n');
    expect((await run(['projects', 'list', '--per-page', '101'], { env })).stderr).toBe('error: --per-page must be between 1 and 100, got 101\n');
  });

  it('5 for 404, with the request in the error line', async () => {
    const result = await sandbox.run(['api', '/users/987654321']);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/^error: 404 User Not Found \(GET \/users\/987654321 → 404\)$/m);
  });

  it('4 for a bad token, with the login hint', async () => {
    const result = await sandbox.run(['api', '/user'], { env: { FORGECTL_TOKEN: 'glpat-not-a-real-token' } });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('forgectl auth login');
  });

  it('3 when nothing is configured', async () => {
    const result = await run(['api', '/user'], { env: { FORGECTL_CONFIG_DIR: tempDir() } });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('no instance configured');
  });

  it('8 for a refused connection with --retries 0', async () => {
    const result = await run(['--retries', '0', 'api', '/user'], { env: { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: 'http://127.0.0.1:1', FORGECTL_TOKEN: 'x' } });
    expect(result.code).toBe(8);
    expect(result.stderr).toContain('connection refused');
  });

  it('writes the error as JSON too with -o json', async () => {
    const result = await sandbox.run(['-o', 'json', 'api', '/users/987654321']);
    const line = result.stderr.split('\n').find((l) => l.startsWith('{'));
    expect(JSON.parse(line!)).toMatchObject({ error: { status: 404, method: 'GET', path: '/users/987654321' } });
  });

  it('escapes C1 controls from the server in the JSON error on stderr, and in NDJSON written from the service\'s bytes to a terminal', async () => {
    sandbox.fault({ method: 'GET', path: '^/version$', status: 400, body: JSON.stringify({ message: 'bad \u009b31mred' }), headers: { 'content-type': 'application/json' } });
    const failed = await sandbox.run(['-o', 'json', 'api', '/version']);
    expect(failed.stderr).not.toMatch(/[\u007f-\u009f]/);
    expect(JSON.parse(failed.stderr.split('\n').find((l) => l.startsWith('{'))!).error.message).toContain('\u009b31mred');
    await sandbox.call('PUT', '/users/2', { name: 'Alice \u009b31mred' });
    const listed = await sandbox.run(['users', 'list', '-o', 'ndjson'], { tty: true });
    expect(listed.stdout).not.toMatch(/[\u007f-\u009f]/);
    expect(listed.stdout.trim().split('\n').map((l) => JSON.parse(l).name)).toContain('Alice \u009b31mred');
  });

  it('shows server text in notes, warnings and confirmation prompts with its control characters visible', async () => {
    const evil = 'Evil\u001b]0;owned\u0007\u009b31m\rX';
    const file = join(tempDir(), 'evil.key');
    writeFileSync(file, sandboxLicenseKey({ plan: 'premium', licensee: { Name: 'n', Email: 'e@example.com', Company: evil }, starts_at: isoDate(new Date(), -400), expires_at: isoDate(new Date(), 10), user_limit: 1 }));
    const added = await sandbox.run(['license', 'add', '--file', file]); // a note
    const current = await sandbox.run(['license', 'get']); // warnings: it expires soon, more users than licensed
    const rule = await sandbox.call('POST', '/projects/1/approval_rules', { name: evil, approvals_required: 1 });
    const asked = await sandbox.run(['approval-rules', 'delete', String(rule.body.id), '--project', 'acme/api'], { tty: true, input: 'n\n' });
    expect(asked.code).toBe(2);
    for (const { stderr } of [added, current, asked]) {
      expect(stderr).toContain('Evil\\x1b]0;owned\\x07\\x9b31m');
      // eslint-disable-next-line no-control-regex
      expect(stderr).not.toMatch(/\u001b\]|\u0007|\u009b|\rX/);
    }
    expect(current.stderr).toMatch(/^warning: .*Evil.*expires/m);
  });

  it('never prints a stack trace without FORGECTL_DEBUG', async () => {
    const result = await sandbox.run(['api', '/users/987654321']);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('version and help', () => {
  it('prints the version through the command tree too (the bin answers --version itself)', async () => {
    const result = await run(['--version'], { env: { FORGECTL_CONFIG_DIR: tempDir() } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^forgectl \d+\.\d+\.\d+\n$/);
  });

  it('lists every command group in the root help, and a group\'s commands in its help', async () => {
    const root = await run(['--help'], { env: { FORGECTL_CONFIG_DIR: tempDir() } });
    expect(root.code).toBe(0);
    for (const group of ['auth', 'tokens', 'settings', 'storage-move', 'mirror']) expect(root.stdout).toContain(`  ${group} `);
    const tokens = await run(['tokens', '--help'], { env: { FORGECTL_CONFIG_DIR: tempDir() } });
    expect(tokens.stdout).toContain('rotate');
    const rotate = await run(['tokens', 'rotate', '--help'], { env: { FORGECTL_CONFIG_DIR: tempDir() } });
    expect(rotate.stdout).toContain('--save-to-profile');
    expect(rotate.stdout).toContain('Examples:');
  });
});
