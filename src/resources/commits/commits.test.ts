import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();
const P = ['--project', 'acme/api'];
const commitsPath = '/projects/acme%2Fapi/repository/commits';

describe('commit diff, revert, comments and statuses in the sandbox', () => {
  it('answers a commit\'s diff as the service shapes it', async () => {
    const diff = await sandbox.call('GET', `${commitsPath}/v1.1.0/diff`);
    expect(diff.status).toBe(200);
    expect(diff.body).toHaveLength(1);
    expect(Object.keys(diff.body[0])).toEqual(expect.arrayContaining(['diff', 'new_path', 'old_path', 'a_mode', 'b_mode', 'new_file', 'renamed_file', 'deleted_file']));
    expect(diff.body[0]).toMatchObject({ old_path: 'README.md', new_path: 'README.md', new_file: false });
    expect((await sandbox.call('GET', `${commitsPath}/nope/diff`)).body).toEqual({ message: '404 Commit Not Found' });
  });

  it('reverts with the cherry-pick\'s dry run and refusals: a clean revert, then "empty" once it is reverted', async () => {
    await sandbox.call('POST', '/projects/acme%2Fapi/repository/branches', { branch: 'revert-here', ref: 'main' });
    expect(await sandbox.call('POST', `${commitsPath}/v1.1.0/revert`, { branch: 'revert-here', dry_run: true })).toEqual({ status: 200, body: { dry_run: 'success' } });
    const reverted = await sandbox.call('POST', `${commitsPath}/v1.1.0/revert`, { branch: 'revert-here' });
    expect(reverted.status).toBe(201);
    expect(reverted.body.title).toBe('Revert "Describe the configuration"');
    expect(reverted.body.message).toContain(`This reverts commit ${(await sandbox.call('GET', `${commitsPath}/v1.1.0`)).body.id}`);
    const again = await sandbox.call('POST', `${commitsPath}/v1.1.0/revert`, { branch: 'revert-here', dry_run: true });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      message: 'Sorry, we cannot revert this commit automatically. This commit may already have been reverted, or a more recent commit may have updated some of its content.',
      error_code: 'empty', dry_run: 'error',
    });
    // feature changed README.md after v1.1.0, so reverting v1.1.0's README change there conflicts.
    const conflict = await sandbox.call('POST', `${commitsPath}/v1.1.0/revert`, { branch: 'feature' });
    expect(conflict.body.error_code).toBe('conflict');
  });

  it('adds and lists comments on a commit, on a line or on the whole commit', async () => {
    const line = await sandbox.call('POST', `${commitsPath}/main/comments`, { note: 'why 8080?', path: 'src/config.yml', line: 1, line_type: 'new' });
    expect(line.status).toBe(201);
    expect(line.body).toMatchObject({ note: 'why 8080?', path: 'src/config.yml', line: 1, line_type: 'new', author: { username: 'root' } });
    await sandbox.call('POST', `${commitsPath}/main/comments`, { note: 'LGTM' });
    const list = await sandbox.call('GET', `${commitsPath}/main/comments`);
    expect(list.body.map((c: { note: string; path: string | null }) => [c.note, c.path])).toEqual([['why 8080?', 'src/config.yml'], ['LGTM', null]]);
    expect(await sandbox.call('POST', `${commitsPath}/main/comments`, {})).toEqual({ status: 400, body: { error: 'note is missing' } });
  });

  it('sets statuses (pending → running → success) on one record per name, and lists the newest of each', async () => {
    const sha = (await sandbox.call('GET', `${commitsPath}/main`)).body.id;
    const pending = await sandbox.call('POST', `/projects/acme%2Fapi/statuses/${sha}`, { state: 'pending', name: 'ci/build' });
    expect(pending.status).toBe(201);
    expect(Object.keys(pending.body)).toEqual(['id', 'sha', 'ref', 'status', 'name', 'target_url', 'description', 'created_at', 'started_at', 'finished_at', 'allow_failure', 'coverage', 'pipeline_id', 'author']);
    expect(pending.body).toMatchObject({ sha, ref: 'main', status: 'pending', name: 'ci/build', target_url: null });
    const running = await sandbox.call('POST', `/projects/acme%2Fapi/statuses/${sha}`, { state: 'running', name: 'ci/build', target_url: 'https://ci.example.com/1' });
    expect(running.body).toMatchObject({ id: pending.body.id, status: 'running', target_url: 'https://ci.example.com/1' });
    expect(running.body.started_at).not.toBeNull();
    const done = await sandbox.call('POST', `/projects/acme%2Fapi/statuses/${sha}`, { state: 'success', name: 'ci/build' });
    expect(done.body).toMatchObject({ id: pending.body.id, status: 'success' });
    expect(done.body.finished_at).not.toBeNull();
    // A finished status is followed by a new one.
    const rerun = await sandbox.call('POST', `/projects/acme%2Fapi/statuses/${sha}`, { state: 'failed', name: 'ci/build' });
    expect(rerun.body.id).not.toBe(pending.body.id);
    expect(await sandbox.call('POST', `/projects/acme%2Fapi/statuses/${sha}`, { state: 'done' })).toEqual({ status: 400, body: { error: 'state does not have a valid value' } });
    const newest = await sandbox.call('GET', `${commitsPath}/${sha}/statuses`);
    expect(newest.body.map((s: { status: string }) => s.status)).toEqual(['failed']);
    expect((await sandbox.call('GET', `${commitsPath}/${sha}/statuses?all=true`)).body).toHaveLength(2);
    const reporter = sandbox.tokenWithRole('reporter');
    expect((await sandbox.call('POST', `/projects/acme%2Fapi/statuses/${sha}`, { state: 'pending' }, reporter)).status).toBe(403);
  });
});

describe('commits revert, statuses and set-status', () => {
  it('revert --check commits nothing; revert commits; a second revert is refused with exit 6', async () => {
    await sandbox.call('POST', '/projects/acme%2Fapi/repository/branches', { branch: 'undo', ref: 'main' });
    const check = await sandbox.run(['commits', 'revert', 'v1.1.0', '--branch', 'undo', '--check', ...P]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stderr).toContain('applies cleanly');
    const done = await sandbox.run(['commits', 'revert', 'v1.1.0', '--branch', 'undo', ...P, '-o', 'json']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toBe(`Reverted v1.1.0 on undo as ${done.json().short_id}\n`);
    const again = await sandbox.run(['commits', 'revert', 'v1.1.0', '--branch', 'undo', ...P]);
    expect(again.code).toBe(6);
    expect(again.stderr).toContain('changes nothing: the commit is probably already reverted');
  });

  it('set-status reports a check, statuses lists it; a bad state or URL exits 2 sending nothing', async () => {
    const set = await sandbox.run(['commits', 'set-status', 'feature', '--state', 'success', '--name', 'ci/lint', '--ref', 'feature', '--target-url', 'https://ci.example.com/2', ...P, '-o', 'json']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.json()).toMatchObject({ status: 'success', name: 'ci/lint', ref: 'feature' });
    const list = await sandbox.run(['commits', 'statuses', 'feature', ...P, '--fields', 'name,status,target_url']);
    expect(list.stdout).toBe('ci/lint\tsuccess\thttps://ci.example.com/2\n');
    sandbox.clearRequests();
    expect((await sandbox.run(['commits', 'set-status', 'feature', '--state', 'green', ...P])).code).toBe(2);
    expect((await sandbox.run(['commits', 'set-status', 'feature', '--state', 'success', '--target-url', 'ftp://x', ...P])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });
});

describe('commits create --dry-run', () => {
  it('shows a large file by its path, action, size and encoding, not its content; a small one whole; sends nothing', async () => {
    const dir = tempDir();
    const big = Buffer.alloc(4 * 1024 * 1024, 0);
    big[1] = 0xff; // binary: sent as base64
    writeFileSync(join(dir, 'big.bin'), big);
    writeFileSync(join(dir, 'small.txt'), 'hello\n');
    for (const format of [[], ['-o', 'json'], ['-o', 'yaml']]) {
      sandbox.clearRequests();
      const dry = await sandbox.run(['commits', 'create', '--branch', 'main', '-m', 'big', '--add', `${join(dir, 'big.bin')}:big.bin`, '--add', `${join(dir, 'small.txt')}:small.txt`, ...P, '--dry-run', ...format]);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain('"file_path": "big.bin",\n      "content": "<4,194,304 bytes, base64>",\n      "encoding": "base64"');
      expect(dry.stdout).toContain('"content": "hello\\n"');
      expect(dry.stdout.length).toBeLessThan(2000);
      expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    }
  });
});
