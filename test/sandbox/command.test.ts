import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { BIN, BUILT, run, tempDir } from '../helpers/cli.js';

describe('forgectl sandbox', () => {
  it.skipIf(!BUILT)('prints export lines once listening and serves until killed', async () => {
    const child = spawn(process.execPath, [BIN, 'sandbox', '--print-env', '--seed', 'empty'], { env: { PATH: process.env.PATH, FORGECTL_CONFIG_DIR: tempDir() } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const text = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.on('exit', (code) => reject(new Error(`exited ${code}`)));
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('FORGECTL_TOKEN=')) resolve(out);
        });
      });
      const env = Object.fromEntries([...text.matchAll(/^export (\w+)=(\S+)$/gm)].map((m) => [m[1], m[2]]));
      // Read by a pipe (as eval "$(…)" reads it), it says that whoever reads waits, and what returns at once.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(stderr).toBe('the sandbox serves in the foreground until stopped (Ctrl-C), and what reads this waits as long: eval "$(forgectl sandbox --print-env --detach)" returns at once, the sandbox in the background\n');
      expect(env.FORGECTL_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const user = await fetch(`${env.FORGECTL_URL}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': env.FORGECTL_TOKEN } });
      expect(await user.json()).toMatchObject({ username: 'root', is_admin: true });
      const self = (await (await fetch(`${env.FORGECTL_URL}/api/v4/personal_access_tokens/self`, { headers: { 'PRIVATE-TOKEN': env.FORGECTL_TOKEN } })).json()) as { expires_at: string };
      const days = (Date.parse(self.expires_at) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(360);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('at a terminal, --print-env prints the lines without that note', async () => {
    let stop = (_signal: 'SIGINT') => undefined as void;
    const interrupted = new Promise<'SIGINT'>((resolve) => (stop = resolve));
    const running = run(['sandbox', '--print-env', '--seed', 'empty', '--port', '0'], { tty: true, interrupted, env: { FORGECTL_CONFIG_DIR: tempDir() } });
    // In this process the sandbox listens within a moment; then Ctrl-C.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    stop('SIGINT');
    const result = await running;
    expect(result.stdout).toMatch(/^export FORGECTL_URL=/);
    expect(result.stderr).not.toContain('--detach');
  });

  it('loads its state from --state, so tokens and data survive a restart', async () => {
    const stateFile = join(tempDir(), 'state.json');
    const first = await startSandbox({ stateFile, log: () => undefined });
    first.db.save(stateFile); // what the server does after every successful change
    await first.close();
    const second = await startSandbox({ stateFile, log: () => undefined });
    try {
      expect(second.adminToken).toBe(first.adminToken);
      const response = await fetch(`${second.url}/user`, { headers: { 'PRIVATE-TOKEN': first.adminToken } });
      expect(response.status).toBe(200);
    } finally {
      await second.close();
    }
  });
});
