import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();
const P = ['--project', 'acme/api'];

function files(contents: Record<string, string | Buffer>): string {
  const dir = tempDir();
  for (const [path, content] of Object.entries(contents)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

const remoteFiles = async (id: number) => (await sandbox.call('GET', `/projects/acme%2Fapi/snippets/${id}`)).body.files.map((f: { path: string }) => f.path).sort();
const rawFile = async (id: number, path: string) => (await sandbox.run(['snippets', 'raw', String(id), ...P, '--file', path])).stdout;

describe('snippets create', () => {
  it('makes one snippet of two files in one request', async () => {
    const dir = files({ 'a.txt': 'A\n', 'b.txt': 'B\n' });
    sandbox.clearRequests();
    const created = await sandbox.run(['snippets', 'create', ...P, '--title', 't', join(dir, 'a.txt'), join(dir, 'b.txt'), '-o', 'json']);
    expect(created.code).toBe(0);
    expect(sandbox.requests().map((r) => r.method)).toEqual(['POST']);
    const { id } = created.json();
    expect(await remoteFiles(id)).toEqual(['a.txt', 'b.txt']);
    expect(await rawFile(id, 'b.txt')).toBe('B\n');
    const raw = await sandbox.run(['snippets', 'raw', String(id), ...P]);
    expect(raw.stdout).toBe('A\n');
  });

  it('takes stdin with --filename and renames with --name; refuses binary files and clashing names, sending nothing', async () => {
    const dir = files({ 'x/notes.md': 'n\n', 'y/notes.md': 'm\n', 'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]) });
    const piped = await sandbox.run(['snippets', 'create', ...P, '--title', 'from stdin', '--filename', 'pods.yaml', '-', '-o', 'json'], { input: 'kind: Pod\n' });
    expect(piped.code).toBe(0);
    expect(await rawFile(piped.json().id, 'pods.yaml')).toBe('kind: Pod\n');
    const renamed = await sandbox.run(['snippets', 'create', ...P, '--title', 'r', '--name', `${join(dir, 'y/notes.md')}=docs/y.md`, join(dir, 'x/notes.md'), join(dir, 'y/notes.md'), '-o', 'json']);
    expect(await remoteFiles(renamed.json().id)).toEqual(['docs/y.md', 'notes.md']);

    sandbox.clearRequests();
    const binary = await sandbox.run(['snippets', 'create', ...P, '--title', 'b', join(dir, 'logo.png')]);
    expect(binary.code).toBe(2);
    expect(binary.stderr).toContain('looks binary');
    expect((await sandbox.run(['snippets', 'create', ...P, '--title', 'c', join(dir, 'x/notes.md'), join(dir, 'y/notes.md')])).stderr).toContain('two files would be named notes.md');
    expect((await sandbox.run(['snippets', 'create', ...P, '--title', 'd', '-'], { input: 'x' })).code).toBe(2);
    expect((await sandbox.run(['snippets', 'create', ...P, join(dir, 'x/notes.md')])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });
});

describe('snippets update', () => {
  it('--sync sends create, update, delete and move actions in one request', async () => {
    const dir = files({ 'keep.md': 'same\n', 'change.md': 'old\n', 'gone.md': 'bye\n', 'rename-me.md': 'moving\n' });
    const { id } = (await sandbox.run(['snippets', 'create', ...P, '--title', 'synced', ...['keep.md', 'change.md', 'gone.md', 'rename-me.md'].map((f) => join(dir, f)), '-o', 'json'])).json();
    writeFileSync(join(dir, 'change.md'), 'new\n');
    rmSync(join(dir, 'gone.md'));
    mkdirSync(join(dir, 'sub'));
    renameSync(join(dir, 'rename-me.md'), join(dir, 'sub/renamed.md'));
    writeFileSync(join(dir, 'added.md'), 'fresh\n');

    sandbox.clearRequests();
    // A deletion asks first: off a terminal, without --yes, nothing is written.
    const unconfirmed = await sandbox.run(['snippets', 'update', String(id), ...P, '--sync', dir]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain(`confirmation needed: Delete 1 file of snippet ${id} of project acme/api (--sync)?`);
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    sandbox.clearRequests();
    const synced = await sandbox.run(['snippets', 'update', String(id), ...P, '--sync', dir, '--yes']);
    expect(synced.code).toBe(0);
    expect(synced.stderr.trim().split('\n').sort()).toEqual(['create added.md', 'delete gone.md', 'move rename-me.md → sub/renamed.md', 'update change.md']);
    const writes = sandbox.requests().filter((r) => r.method !== 'GET');
    expect(writes).toEqual([{ method: 'PUT', path: `/api/v4/projects/acme%2Fapi/snippets/${id}`, status: 200 }]);
    expect(await remoteFiles(id)).toEqual(['added.md', 'change.md', 'keep.md', 'sub/renamed.md']);
    expect(await rawFile(id, 'change.md')).toBe('new\n');
    expect(await rawFile(id, 'sub/renamed.md')).toBe('moving\n');

    sandbox.clearRequests();
    const again = await sandbox.run(['snippets', 'update', String(id), ...P, '--sync', dir]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('nothing to change');
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('changes files with --add, --update, --delete and --move', async () => {
    const dir = files({ 'one.md': '1\n', 'two.md': '2\n', 'new.md': 'n\n' });
    const { id } = (await sandbox.run(['snippets', 'create', ...P, '--title', 'explicit', join(dir, 'one.md'), join(dir, 'two.md'), '-o', 'json'])).json();
    writeFileSync(join(dir, 'one.md'), '1b\n');
    const updated = await sandbox.run(['snippets', 'update', String(id), ...P, '--update', join(dir, 'one.md'), '--add', `${join(dir, 'new.md')}:docs/new.md`, '--move', 'two.md:2.md', '--title', 'renamed', '-o', 'json']);
    expect(updated.code).toBe(0);
    expect(updated.json().title).toBe('renamed');
    expect(await remoteFiles(id)).toEqual(['2.md', 'docs/new.md', 'one.md']);
    expect(await rawFile(id, 'one.md')).toBe('1b\n');
    const failed = await sandbox.run(['snippets', 'update', String(id), ...P, '--delete', 'missing.md']);
    expect(failed.code).toBe(6);
    expect((await sandbox.run(['snippets', 'update', String(id), ...P])).code).toBe(2);
    expect((await sandbox.run(['snippets', 'update', String(id), ...P, '--sync', dir, '--delete', 'one.md'])).code).toBe(2);
  });
});

describe('snippets raw and user-agent', () => {
  it('reads a file at an earlier version by commit id; refuses a terminal without -O', async () => {
    expect((await sandbox.run(['snippets', 'raw', '1', ...P], { tty: true })).code).toBe(2);
    expect((await sandbox.run(['snippets', 'raw', '1', ...P, '--ref', 'main'])).code).toBe(2);
    const agent = await sandbox.run(['snippets', 'user-agent', '1', ...P, '-o', 'json']);
    expect(agent.json()).toMatchObject({ user_agent: expect.any(String), ip_address: expect.any(String), akismet_submitted: false });
    const asMaintainer = await sandbox.run(['snippets', 'user-agent', '1', ...P], { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('maintainer') } });
    expect(asMaintainer.code).toBe(4);
    // One made through the API has no record (the service keeps one only while spam checking is on): said so.
    const made = await sandbox.call('POST', '/projects/acme%2Fapi/snippets', { title: 'no-agent', files: [{ file_path: 'n', content: 'n' }] });
    const none = await sandbox.run(['snippets', 'user-agent', String(made.body.id), ...P]);
    expect(none.code).toBe(5);
    expect(none.stderr).toContain('hint: the instance records where a snippet came from only while spam checking (Akismet) is enabled');
    const list = await sandbox.run(['snippets', 'list', ...P, '--all']);
    expect(list.stdout).toMatch(/^1\tDeploy checklist\tprivate\tchecklist\.md,rollback\.md\t/m);
  });
});
