/** Commands that make a new secret, in a CI job off a terminal: the job log is not a place for it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();
const CI = { env: { CI: 'true' } };
const writes = () => sandbox.requests().filter((r) => r.method !== 'GET');

describe('a new token in a CI job', () => {
  it('tokens create, deploy-tokens create, runners create and runners reset-token stop before sending unless --print-token or a file is named', async () => {
    const runner = await sandbox.run(['runners', 'create', '--project', 'acme/api', '--description', 'ci-log', '--output-file', join(tempDir(), 'runner'), '-o', 'json']);
    expect(runner.code, runner.stderr).toBe(0);
    const commands = [
      ['tokens', 'create', '--project', 'acme/api', '--name', 'ci-made', '--scopes', 'read_api', '--expires-in', '30d'],
      ['deploy-tokens', 'create', '--project', 'acme/api', '--name', 'ci-pull', '--scopes', 'read_registry'],
      ['runners', 'create', '--project', 'acme/api', '--description', 'ci-made'],
      ['runners', 'reset-token', String(runner.json().id), '--yes'],
    ];
    for (const argv of commands) {
      sandbox.clearRequests();
      const refused = await sandbox.run(argv, CI);
      expect(refused.code, `${argv.join(' ')}: ${refused.stderr}`).toBe(2);
      expect(refused.stderr).toContain('error: this is a CI job (CI is set) and stdout is not a terminal: the new token would be printed into the job log');
      expect(refused.stderr).toContain('hint: write it to a file with --output-file FILE; or, if stdout is captured and the log never sees it, give --print-token');
      expect(writes()).toEqual([]);
      const both = await sandbox.run([...argv, '--print-token', '--output-file', join(tempDir(), 'token')], CI);
      expect(both.code, both.stderr).toBe(2);
      expect(both.stderr).toContain('error: --print-token: the new token is written to the file named and never printed\nhint: leave out --print-token (or the file)');
      expect(writes()).toEqual([]);
      // Captured, as TOKEN=$(… --jq .token) does: printed with --print-token.
      const printed = await sandbox.run([...argv, '--print-token', '--jq', '.token'], CI);
      expect(printed.code, printed.stderr).toBe(0);
      expect(printed.stdout).toMatch(/^\S{16,}\n$/);
      const file = join(tempDir(), 'token');
      const saved = await sandbox.run([...argv, '--output-file', file], CI);
      expect(saved.code, saved.stderr).toBe(0);
      expect(saved.stdout).not.toContain(readFileSync(file, 'utf8').trim());
    }
  });

  it('tokens rotate refuses --print-token beside a save target before sending, in the words of every command that makes a token', async () => {
    sandbox.clearRequests();
    const both = await sandbox.run(['tokens', 'rotate', '1', '--project', 'acme/api', '--yes', '--print-token', '--output-file', join(tempDir(), 'token')], CI);
    expect(both.code, both.stderr).toBe(2);
    expect(both.stderr).toMatch(/^error: --print-token: the new token is saved to .+ and never printed\nhint: leave out --print-token \(or the save target\)\n/m);
    expect(writes()).toEqual([]);
  });

  it("tokens audit's fix for another token keeps the new one in a file: run as suggested in a CI job, it rotates and prints no token", async () => {
    const day = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const created = await sandbox.run(['tokens', 'create', '--group', 'acme', '--name', 'audited-ci', '--scopes', 'read_api', '--expires-at', day, '--output-file', join(tempDir(), 'old'), '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    const id = created.json<{ id: number }>().id;
    const audit = await sandbox.run(['tokens', 'audit', '--group', 'acme', '--expiring-within', '30d', '-o', 'json']);
    const fix = audit.json<Array<{ id: number; fix: string }>>().find((row) => row.id === id)?.fix;
    expect(fix).toBe(`forgectl tokens rotate ${id} --group acme --expires-in 90d --output-file token-${id}.token --yes`);
    const file = join(tempDir(), `token-${id}.token`);
    const argv = fix!.split(' ').slice(1).map((word) => (word === `token-${id}.token` ? file : word));
    const rotated = await sandbox.run(argv, CI);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout + rotated.stderr).not.toContain(readFileSync(file, 'utf8').trim());
  });
});
