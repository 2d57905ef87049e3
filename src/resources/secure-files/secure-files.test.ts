import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../../../test/helpers/cli.js';
import { secureFiles } from './sandbox.js';

const sandbox = useTestSandbox();
const dir = tempDir();

describe('secure-files', () => {
  it('refuses a file over 5 MB before sending anything', async () => {
    const big = join(dir, 'big.bin');
    writeFileSync(big, Buffer.alloc(6 * 1024 * 1024));
    sandbox.clearRequests();
    const result = await sandbox.run(['secure-files', 'upload', '--project', 'acme/api', '--file', big, '--name', 'big.bin']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('at most 5 MB');
    expect(sandbox.requests()).toEqual([]);
  });

  it('says in words why a file cannot be read, as every command does', async () => {
    const result = await sandbox.run(['secure-files', 'upload', '--project', 'acme/api', '--file', join(dir, 'missing.keystore')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: cannot read --file ${join(dir, 'missing.keystore')}: no such file\n`);
  });

  it('uploads a 4 KB file as multipart and downloads the same bytes, checksum verified', async () => {
    const bytes = randomBytes(4096);
    const source = join(dir, 'small.bin');
    writeFileSync(source, bytes);
    const uploaded = await sandbox.run(['secure-files', 'upload', '--project', 'acme/api', '--file', source, '--name', 'small.bin', '-o', 'json']);
    expect(uploaded.code).toBe(0);
    const record = uploaded.json();
    expect(record).toMatchObject({ name: 'small.bin', checksum_algorithm: 'sha256', metadata: null });

    const target = join(dir, 'back.bin');
    const downloaded = await sandbox.run(['secure-files', 'download', String(record.id), '--project', 'acme/api', '--output-file', target]);
    expect(downloaded.code).toBe(0);
    expect(readFileSync(target).equals(bytes)).toBe(true);

    const piped = await sandbox.run(['secure-files', 'list', '--project', 'acme/api']);
    expect(piped.stdout).toContain(`${record.id}\tsmall.bin\t${record.checksum}\t`);
  });

  it('refuses a taken name and a full project with exit 6 before uploading', async () => {
    const source = join(dir, 'dup.txt');
    writeFileSync(source, 'x');
    sandbox.clearRequests();
    const dup = await sandbox.run(['secure-files', 'upload', '--project', 'acme/api', '--file', source, '--name', 'deploy.env']);
    expect(dup.code).toBe(6);
    expect(sandbox.requests().map((r) => r.method)).toEqual(['GET']);

    for (let i = 0; i < 100; i++) {
      secureFiles.table(sandbox.db).push({ id: 10_000 + i, project_id: 2, name: `f${i}`, checksum: '', created_at: '2026-01-01T00:00:00Z', expires_at: null, data: '' });
    }
    sandbox.clearRequests();
    const full = await sandbox.run(['secure-files', 'upload', '--project', 'acme/web', '--file', source]);
    expect(full.code).toBe(6);
    expect(full.stderr).toContain('100 secure files');
    expect(sandbox.requests().map((r) => r.method)).toEqual(['GET']);
  });

  it('writes nothing when the checksum does not match', async () => {
    const file = secureFiles.table(sandbox.db).find((f) => f.name === 'deploy.env')!;
    const saved = file.checksum;
    file.checksum = '0'.repeat(64);
    const target = join(dir, 'tampered.env');
    const result = await sandbox.run(['secure-files', 'download', String(file.id), '--project', 'acme/api', '--output-file', target]);
    file.checksum = saved;
    expect(result.code).toBe(8);
    expect(result.stderr).toContain('checksum mismatch');
    expect(existsSync(target)).toBe(false);
  });

  it('refuses to write the file to a terminal, and deletes with confirmation', async () => {
    sandbox.clearRequests();
    expect((await sandbox.run(['secure-files', 'download', '1', '--project', 'acme/api'], { tty: true })).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
    const id = String(secureFiles.table(sandbox.db).find((f) => f.name === 'small.bin')!.id);
    expect((await sandbox.run(['secure-files', 'delete', id, '--project', 'acme/api'])).code).toBe(2);
    expect((await sandbox.run(['secure-files', 'delete', id, '--project', 'acme/api', '--yes'])).code).toBe(0);
    expect((await sandbox.run(['secure-files', 'get', id, '--project', 'acme/api'])).code).toBe(5);
  });

  it('prints the upload under --dry-run without sending it', async () => {
    const source = join(dir, 'dry.txt');
    writeFileSync(source, 'dry');
    sandbox.clearRequests();
    const result = await sandbox.run(['--dry-run', 'secure-files', 'upload', '--project', 'acme/api', '--file', source]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^POST .*\/projects\/acme%2Fapi\/secure_files\n\(multipart\/form-data; boundary=/);
    expect(sandbox.requests().map((r) => r.method)).toEqual(['GET']);
  });
});
