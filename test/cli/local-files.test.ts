import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

describe('local files and other bad input are usage errors (exit 2), with nothing sent', () => {
  it('api --input and -F @file name a file that cannot be read', async () => {
    sandbox.clearRequests();
    for (const argv of [
      ['api', '-X', 'POST', '/projects', '--input', '/nonexistent/body.json'],
      ['api', '-X', 'POST', '/projects', '-F', 'description=@/nonexistent/description.txt'],
    ]) {
      const result = await sandbox.run(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^error: cannot read \/nonexistent\/\w+\.(json|txt): no such file\n$/);
    }
    const folder = await sandbox.run(['api', '-X', 'POST', '/projects', '--input', tempDir()]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain('it is a folder');
    expect(sandbox.requests()).toEqual([]);
  });

  it('a write-only value from file:PATH that cannot be read says why in words', async () => {
    sandbox.clearRequests();
    const argv = ['hooks', 'create', '--project', 'acme/api', '--url', 'https://deploy.example.com/hook', '--events', 'push'];
    const missing = await sandbox.run([...argv, '--header', 'X-Api-Key=file:/nonexistent/api.key']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('error: header X-Api-Key: cannot read /nonexistent/api.key: no such file\n');
    const folder = await sandbox.run([...argv, '--header', `X-Api-Key=file:${tempDir()}`]);
    expect(folder.stderr).toMatch(/: it is a folder\n$/);
    expect(sandbox.requests()).toEqual([]);
  });

  it('api -H with an invalid name or a value with a line break', async () => {
    sandbox.clearRequests();
    for (const header of ['X-Evil: a\r\nPRIVATE-TOKEN: x', 'Bad Name: x', 'X-Bell: \u0007']) {
      const result = await sandbox.run(['api', '/version', '-H', header]);
      expect(result.code, header).toBe(2);
      expect(result.stderr).toMatch(/^error: -H /);
    }
    expect(sandbox.requests()).toEqual([]);
  });

  it('--output-file in a folder that does not exist', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['secure-files', 'download', '1', '--project', 'acme/api', '--output-file', '/nonexistent/dir/x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: cannot write /nonexistent/dir/x: no such folder /nonexistent/dir\n');
    expect(sandbox.requests()).toEqual([]);
  });

  it('secure-files download does not replace an existing file unless confirmed', async () => {
    const target = join(tempDir(), 'existing.env');
    writeFileSync(target, 'keep me');
    sandbox.clearRequests();
    const refused = await sandbox.run(['secure-files', 'download', '1', '--project', 'acme/api', '--output-file', target]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/confirmation needed: Overwrite .*existing\.env\?/);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
    expect(sandbox.requests()).toEqual([]);
    const confirmed = await sandbox.run(['secure-files', 'download', '1', '--project', 'acme/api', '--output-file', target, '--yes']);
    expect(confirmed.code).toBe(0);
    expect(readFileSync(target, 'utf8')).not.toBe('keep me');
  });

  it('sandbox --port on a port in use', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', () => resolve()));
    const port = (busy.address() as { port: number }).port;
    try {
      const result = await sandbox.run(['sandbox', '--port', String(port)]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`error: cannot listen on 127.0.0.1:${port}: the port is in use`);
    } finally {
      busy.close();
    }
  });
});
