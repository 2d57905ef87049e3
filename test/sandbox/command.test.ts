import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { get } from 'node:https';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { BIN, BUILT, run, runBin, tempDir } from '../helpers/cli.js';

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

  it.skipIf(!BUILT)('--print-env --detach passes on the background sandbox\'s own notes, never the foreground one, run after run', async () => {
    for (let i = 0; i < 5; i++) {
      const caFile = join(tempDir(), 'ca.pem');
      const result = await runBin(['sandbox', '--print-env', '--detach', '--seed', 'empty', '--port', '0', '--tls', '--ca-out', caFile], { env: { FORGECTL_CONFIG_DIR: tempDir() } });
      const pid = /^export FORGECTL_SANDBOX_PID=(\d+)$/m.exec(result.stdout)?.[1];
      if (pid) process.kill(Number(pid), 'SIGTERM');
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^export FORGECTL_URL=https:\/\/127\.0\.0\.1:\d+\nexport FORGECTL_TOKEN=\S+\n(export \w+=\S+\n)*export FORGECTL_SANDBOX_PID=\d+\n$/);
      expect(result.stderr).toBe(`# certificate for --ca-file: ${caFile}\nforgectl sandbox runs in the background (process ${pid}); stop it with: kill ${pid}\n`);
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

  it('--tls --host 0.0.0.0 prints a URL a client can reach, and its certificate holds the machine\'s addresses and name', async () => {
    let stop = (_signal: 'SIGINT') => undefined as void;
    const interrupted = new Promise<'SIGINT'>((resolve) => (stop = resolve));
    const running = run(['sandbox', '--tls', '--host', '0.0.0.0', '--seed', 'empty', '--port', '0'], { interrupted, env: { FORGECTL_CONFIG_DIR: tempDir() } });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    stop('SIGINT');
    const result = await running;
    expect(result.stdout).toMatch(/^forgectl sandbox listening on https:\/\/127\.0\.0\.1:\d+ /);
    expect(result.stderr).toContain('it listens on all interfaces (--host 0.0.0.0)');

    const caFile = join(tempDir(), 'ca.pem');
    const sandbox = await startSandbox({ host: '0.0.0.0', port: 0, tls: true, caFile, seed: 'empty' });
    try {
      const ca = readFileSync(caFile);
      const sans = new X509Certificate(ca).subjectAltName ?? '';
      expect(sans).toContain(`DNS:${hostname()}`);
      expect(sans).toContain('IP Address:127.0.0.1');
      // Reached through another interface's address, the certificate checks out (no ERR_TLS_CERT_ALTNAME_INVALID).
      const outside = Object.values(networkInterfaces()).flat().find((address) => address?.family === 'IPv4' && !address.internal);
      if (outside) {
        expect(sans).toContain(`IP Address:${outside.address}`);
        const port = new URL(sandbox.rootUrl).port;
        const status = await new Promise<number | undefined>((resolve, reject) => get(`https://${outside.address}:${port}/api/v4/version`, { ca }, (res) => resolve(res.resume().statusCode)).on('error', reject));
        expect(status).toBe(401);
      }
    } finally {
      await sandbox.close();
    }
  });

  it('with --state, the file is written at start and again at a clean stop, even when nothing changed; the next run loads it', async () => {
    const stateFile = join(tempDir(), 'state.json');
    let stop = (_signal: 'SIGTERM') => undefined as void;
    const interrupted = new Promise<'SIGTERM'>((resolve) => (stop = resolve));
    const running = run(['sandbox', '--seed', 'empty', '--port', '0', '--state', stateFile], { interrupted, env: { FORGECTL_CONFIG_DIR: tempDir() } });
    for (let waited = 0; !existsSync(stateFile) && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    // What is written when it stops, not only what was written at start.
    unlinkSync(stateFile);
    stop('SIGTERM');
    const result = await running;
    expect(result.code).toBe(143);
    expect(result.stderr).toContain(`the sandbox stopped (its state is saved in ${stateFile})`);
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    const token = /administrator token \(root\): (\S+)/.exec(result.stdout)?.[1];
    expect(JSON.parse(readFileSync(stateFile, 'utf8'))).toBeTypeOf('object');
    const next = await startSandbox({ stateFile, log: () => undefined });
    try {
      expect(next.adminToken).toBe(token);
    } finally {
      await next.close();
    }
  });

  it('a --state file that cannot be written is said before it serves (exit 2)', async () => {
    const result = await run(['sandbox', '--seed', 'empty', '--port', '0', '--state', join(tempDir(), 'no-such-folder', 'state.json')], { env: { FORGECTL_CONFIG_DIR: tempDir() } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: cannot write \S+no-such-folder\/state\.json: no such folder \S+no-such-folder$/m);
    expect(result.stdout).toBe('');
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
