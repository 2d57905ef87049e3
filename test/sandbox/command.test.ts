import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { BIN, BUILT, tempDir } from '../helpers/cli.js';

describe('forgectl sandbox', () => {
  it.skipIf(!BUILT)('prints export lines once listening and serves until killed', async () => {
    const child = spawn(process.execPath, [BIN, 'sandbox', '--print-env', '--seed', 'empty'], { env: { PATH: process.env.PATH, FORGECTL_CONFIG_DIR: tempDir() } });
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
