import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobs, pipelines, type StoredEntry } from '../../sandbox/model.js';
import { toZipEntry } from '../../sandbox/pipelines.js';
import { readZip, zipLayout } from '../../sandbox/zip.js';
import { tempDir, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox({ artifactSize: 2 * 1024 * 1024 });
const P = ['--project', 'acme/api'];
const MAIN_BUILD = ['--ref', 'main', '--job-name', 'build'];

/** Adds a successful pipeline on `ref` whose job `name` has these archive entries (the newest of the ref). */
function addJob(ref: string, name: string, archive: StoredEntry[] | null, reports: Array<{ file_type: string; filename: string; size: number; file_format: string }> = []): number {
  const db = sandbox.db;
  const at = new Date(Date.now() + 60_000 * pipelines(db).length).toISOString();
  const template = pipelines(db).find((p) => p.ref === 'main')!;
  const pipeline = { ...template, id: db.nextId('pipelines'), ref, status: 'success' as const, parent_id: null, created_at: at, updated_at: at };
  pipelines(db).push(pipeline);
  const job = { ...jobs(db).find((j) => j.name === 'build')!, id: db.nextId('jobs'), pipeline_id: pipeline.id, name, status: 'success' as const, archive, reports, artifacts_expire_at: null };
  jobs(db).push(job);
  return job.id;
}

describe('artifacts download', () => {
  it('extracts the archive of the latest successful pipeline of a ref into a folder', async () => {
    const out = join(tempDir(), 'out');
    const result = await sandbox.run(['artifacts', 'download', ...P, ...MAIN_BUILD, '--extract', out, '-o', 'json']);
    expect(result.stderr).toContain('extracted');
    expect(result.code).toBe(0);
    expect(readFileSync(join(out, 'dist/VERSION'), 'utf8')).toBe('1.0.1\n');
    expect(statSync(join(out, 'dist/bundle.bin')).size).toBe(2 * 1024 * 1024);
    expect(result.json()).toMatchObject({ extracted_to: out, entries: 5, bytes: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('extracts on a terminal too (the archive goes to a temporary file, never to the terminal)', async () => {
    const out = join(tempDir(), 'out');
    const result = await sandbox.run(['artifacts', 'download', ...P, ...MAIN_BUILD, '--extract', out], { tty: true });
    expect(result.code).toBe(0);
    expect(readFileSync(join(out, 'dist/VERSION'), 'utf8')).toBe('1.0.1\n');
    expect(result.stdout).not.toContain('PK');
  });

  it('--include picks entries; --list shows them without saving anything', async () => {
    const out = join(tempDir(), 'out');
    expect((await sandbox.run(['artifacts', 'download', ...P, ...MAIN_BUILD, '--extract', out, '--include', '*.js', '--include', 'dist/VERSION'])).code).toBe(0);
    expect(readdirSync(join(out, 'dist')).sort()).toEqual(['VERSION', 'app.js']);
    const one = await sandbox.run(['artifacts', 'download', ...P, ...MAIN_BUILD, '--extract', join(tempDir(), 'one'), '--include', 'dist/VERSION']);
    expect(one.stderr).toMatch(/^extracted 1 entry into .*one\n$/);
    const listed = await sandbox.run(['artifacts', 'download', ...P, ...MAIN_BUILD, '--list', '-o', 'json']);
    expect(listed.json().map((e: { name: string }) => e.name)).toEqual(['dist/', 'dist/app.js', 'dist/app.css', 'dist/VERSION', 'dist/bundle.bin']);
    const piped = await sandbox.run(['artifacts', 'download', ...P, ...MAIN_BUILD, '--list', '--include', 'dist/**/*.css']);
    expect(piped.stdout).toBe('dist/app.css\t34\tfile\n');
    expect((await sandbox.run(['artifacts', 'download', ...P, ...MAIN_BUILD, '-O', join(tempDir(), 'a.zip'), '--include', '*.js'])).code).toBe(2);
  });

  it('--list reads only the end of the archive with byte ranges, and downloads it where the service serves none', async () => {
    const names = ['dist/', 'dist/app.js', 'dist/app.css', 'dist/VERSION', 'dist/bundle.bin'];
    const archiveReads = () => sandbox.requests().filter((r) => r.method === 'GET' && r.path.includes('/jobs/artifacts/main/download'));
    sandbox.clearRequests();
    const ranged = await sandbox.run(['artifacts', 'download', ...P, ...MAIN_BUILD, '--list', '-o', 'json']);
    expect(ranged.json().map((e: { name: string }) => e.name)).toEqual(names);
    expect(archiveReads().length).toBeGreaterThan(1);
    expect(archiveReads().every((r) => r.status === 206)).toBe(true);
    // The first answer ignores the range (a whole archive, as a service without ranges sends it): the archive is downloaded.
    sandbox.clearRequests();
    sandbox.fault({ method: 'GET', path: 'jobs/artifacts/main/download', status: 200, body: 'PK not really a zip' });
    const whole = await sandbox.run(['artifacts', 'download', ...P, ...MAIN_BUILD, '--list', '-o', 'json']);
    expect(whole.code).toBe(0);
    expect(whole.json().map((e: { name: string }) => e.name)).toEqual(names);
    expect(archiveReads().map((r) => r.status)).toEqual([200, 200]);
  });

  it('writes -O FILE through FILE.part; --resume after a cut download fetches only the rest', async () => {
    const file = join(tempDir(), 'artifacts.zip');
    sandbox.fault({ method: 'GET', path: 'jobs/artifacts/main/download', drop: 'body' });
    const cut = await sandbox.run(['artifacts', 'download', ...P, ...MAIN_BUILD, '-O', file]);
    expect(cut.code).toBe(8);
    expect(cut.stderr).toContain('--resume');
    expect(existsSync(file)).toBe(false);
    const partial = statSync(`${file}.part`).size;
    expect(partial).toBeGreaterThan(0);
    sandbox.clearRequests();
    const resumed = await sandbox.run(['artifacts', 'download', ...P, ...MAIN_BUILD, '-O', file, '--resume', '-o', 'json']);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`resuming ${file} at ${partial.toLocaleString('en-US')} bytes`);
    expect(sandbox.requests().map((r) => r.status)).toEqual([206]);
    const whole = await fetch(`${sandbox.url}/projects/acme%2Fapi/jobs/artifacts/main/download?job=build`, { headers: { 'PRIVATE-TOKEN': sandbox.adminToken } });
    expect(readFileSync(file).equals(Buffer.from(await whole.arrayBuffer()))).toBe(true);
    expect(existsSync(`${file}.part`)).toBe(false);
  });

  it('a byte changed in transit in a local header (which no CRC covers) is refused: exit 8, the old file kept, nothing else written', async () => {
    // An archive whose middle byte, the one the fault flips, is in the name in the second entry's local header.
    const noise = randomBytes(400);
    const entries = (padding: number): StoredEntry[] => [{ name: 'pad.bin', base64: noise.subarray(0, padding).toString('base64') }, { name: 'dist/VERSION', text: '2.0.0\n' }];
    const padding = Array.from({ length: 400 }, (_, i) => i).find((n) => {
      const archive = Buffer.concat([...readZip(zipLayout(entries(n).map(toZipEntry)))]);
      const secondName = archive.indexOf('PK\x03\x04', 4, 'latin1') + 30;
      return archive.length >> 1 >= secondName && archive.length >> 1 < secondName + 'dist/VERSION'.length;
    })!;
    addJob('flipped', 'build', entries(padding));
    const dir = tempDir();
    const file = join(dir, 'artifacts.zip');
    writeFileSync(file, 'the artifacts of yesterday');
    sandbox.fault({ method: 'GET', path: 'jobs/artifacts/flipped/download', corrupt: true, times: 1 });
    const result = await sandbox.run(['artifacts', 'download', ...P, '--ref', 'flipped', '--job-name', 'build', '-O', file, '--yes']);
    expect(result.stderr).toMatch(/^error: the zip archive is damaged: the local header of "dist\/VERSION" names another file; nothing was written to /m);
    expect(result.code).toBe(8);
    expect(readFileSync(file, 'utf8')).toBe('the artifacts of yesterday');
    expect(readdirSync(dir)).toEqual(['artifacts.zip']);
    // Unharmed, the same archive is saved.
    expect((await sandbox.run(['artifacts', 'download', ...P, '--ref', 'flipped', '--job-name', 'build', '-O', file, '--yes'])).code).toBe(0);
  });

  it('refuses a crafted archive entry that would land outside the folder, and writes nothing outside it', async () => {
    addJob('crafted', 'build', [{ name: 'ok.txt', text: 'fine\n' }, { name: '../../x', text: 'escaped\n' }]);
    const base = tempDir();
    const out = join(base, 'a', 'out');
    const result = await sandbox.run(['artifacts', 'download', ...P, '--ref', 'crafted', '--job-name', 'build', '--extract', out]);
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/refusing to extract/);
    expect(existsSync(join(base, 'x'))).toBe(false);
    expect(existsSync(join(base, 'a', 'x'))).toBe(false);
  });

  it('explains a 404: report artifacts only, no such job, no successful pipeline', async () => {
    const reports = await sandbox.run(['artifacts', 'download', ...P, '--ref', 'main', '--job-name', 'test', '-O', join(tempDir(), 'x.zip')]);
    expect(reports.code).toBe(5);
    expect(reports.stderr).toContain('only report artifacts (junit)');
    const missing = await sandbox.run(['artifacts', 'download', ...P, '--ref', 'main', '--job-name', 'nope', '-O', join(tempDir(), 'x.zip')]);
    expect(missing.stderr).toMatch(/has no job "nope" \(jobs: build, test, deploy\)/);
    const running = await sandbox.run(['artifacts', 'download', ...P, '--ref', 'feature/health', '--job-name', 'build', '-O', join(tempDir(), 'x.zip')]);
    expect(running.stderr).toContain('feature/health has no successful pipeline');
    const noJob = await sandbox.run(['artifacts', 'download', ...P, '--job', '999999', '-O', join(tempDir(), 'x.zip')]);
    expect(noJob.stderr).toContain('has no job 999999');
    expect(noJob.code).toBe(5);
  });

  it('checks its input before sending anything', async () => {
    sandbox.clearRequests();
    for (const args of [[], ['--job', '1', '--ref', 'main'], ['--ref', 'main'], ['--job', 'x'], ['--ref', 'HEAD', '--job-name', 'build'], ['--job', '1', '--list', '--extract', 'x']]) {
      expect((await sandbox.run(['artifacts', 'download', ...P, ...args, '-O', join(tempDir(), 'a.zip')])).code).toBe(2);
    }
    // An empty file name is refused, never taken as stdout (at a terminal without -O the archive goes to ./artifacts.zip: the installed-package tier).
    const empty = await sandbox.run(['artifacts', 'download', ...P, ...MAIN_BUILD, '-O', '']);
    expect(empty).toMatchObject({ code: 2, stderr: expect.stringContaining('--output-file needs a file name') });
    expect(sandbox.requests()).toEqual([]);
  });

  it('uses the CI job token inside a CI job', async () => {
    const token = sandbox.db.table<{ kind: string; token: string }>('tokens').find((t) => t.kind === 'job')!.token;
    const out = join(tempDir(), 'out');
    const result = await sandbox.run(['artifacts', 'download', ...P, '--ref', 'v1.0.0', '--job-name', 'build', '--extract', out], {
      env: { FORGECTL_URL: undefined, FORGECTL_TOKEN: undefined, CI_API_V4_URL: sandbox.url, CI_JOB_TOKEN: token },
    });
    expect(result.stderr).not.toContain('error');
    expect(result.code).toBe(0);
    expect(readFileSync(join(out, 'dist/VERSION'), 'utf8')).toBe('1.0.0\n');
  });
});

describe('artifacts file, keep, delete', () => {
  it('streams one file by ref or job; a path leaving the archive is refused locally', async () => {
    const file = await sandbox.run(['artifacts', 'file', 'dist/VERSION', ...P, ...MAIN_BUILD]);
    expect(file).toMatchObject({ code: 0, stdout: '1.0.1\n' });
    const id = addJob('files', 'build', [{ name: 'reports/nested/deep.txt', text: 'deep\n' }]);
    expect((await sandbox.run(['artifacts', 'file', 'reports/nested/deep.txt', ...P, '--job', String(id)])).stdout).toBe('deep\n');
    sandbox.clearRequests();
    expect((await sandbox.run(['artifacts', 'file', '../etc/passwd', ...P, '--job', String(id)])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
    const missing = await sandbox.run(['artifacts', 'file', 'nope.txt', ...P, '--job', String(id)]);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toBe(
      `error: the file nope.txt in the artifacts of job ${id} not found: job ${id} (build) has artifacts, but no file nope.txt in them\n` +
        `hint: the files in them: forgectl artifacts download --job ${id} --list --project acme/api\n`,
    );
    const byRef = await sandbox.run(['artifacts', 'file', 'nope.txt', ...P, ...MAIN_BUILD]);
    expect(byRef.stderr).toMatch(/^error: .*: job \d+ \(build\) has artifacts, but no file nope.txt in them\n/);
  });

  it('keeps artifacts, deletes one job\'s and all of a project\'s only when confirmed', async () => {
    const id = String(addJob('to-delete', 'build', [{ name: 'a.txt', text: 'a\n' }]));
    const kept = await sandbox.run(['artifacts', 'keep', '--job', id, ...P, '-o', 'json']);
    expect(kept.json()).toMatchObject({ id: Number(id), artifacts_expire_at: null });
    const refused = await sandbox.run(['artifacts', 'delete', '--job', id, ...P]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('job log is kept');
    expect((await sandbox.run(['artifacts', 'delete', '--job', id, ...P, '--yes'])).code).toBe(0);
    expect((await sandbox.run(['artifacts', 'download', ...P, '--job', id, '-O', join(tempDir(), 'a.zip')])).stderr).toContain('has no artifacts');

    sandbox.clearRequests();
    const all = await sandbox.run(['artifacts', 'delete-all', ...P]);
    expect(all.code).toBe(2);
    expect(all.stderr).toMatch(/^error: confirmation needed: Delete the job artifacts of project acme\/api\? Every artifact expires now, those kept with `artifacts keep` too, .*job logs stay\. Kept: the latest successful pipeline of each branch and tag \(.*v1\.0\.0: \d+, main: \d+\) and its child pipelines\.$/m);
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    const accepted = await sandbox.run(['artifacts', 'delete-all', ...P, '--yes']);
    expect(accepted.code).toBe(0);
    expect(accepted.stderr).toContain('removed in the background');
  });
});
