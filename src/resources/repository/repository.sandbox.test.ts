import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { gitBlobId } from '../../git/objects.js';
import { mergeRequests, repositories } from '../../sandbox/model.js';
import { tempDir, useTestSandbox } from '../../../test/helpers/cli.js';
import { needs } from '../../../test/helpers/system.js';

const sandbox = useTestSandbox();

const REPO = '/projects/acme%2Fapi/repository';
const call = (method: string, path: string, body?: unknown) => sandbox.call(method, path, body);
const raw = (path: string, headers: Record<string, string> = {}) => fetch(`${sandbox.url}${path}`, { headers: { 'PRIVATE-TOKEN': sandbox.adminToken, ...headers } });
const branches = () => repositories(sandbox.db).find((r) => r.project_id === 1)!.branches;

describe('sandbox: repository reads', () => {
  it('lists the tree by keyset pages only, following Link; a missing path is 404', async () => {
    const first = await call('GET', `${REPO}/tree?recursive=true&per_page=4`);
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(4);
    expect(first.body[0]).toEqual({ id: gitBlobId('node_modules/\n'), name: '.gitignore', type: 'blob', path: '.gitignore', mode: '100644' });
    const paths: string[] = [];
    let next: string | undefined = `${sandbox.url}${REPO}/tree?recursive=true&per_page=4`;
    while (next) {
      const response: Response = await fetch(next, { headers: { 'PRIVATE-TOKEN': sandbox.adminToken } });
      paths.push(...((await response.json()) as Array<{ path: string }>).map((e) => e.path));
      next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
      expect(response.headers.get('x-total')).toBeNull();
    }
    expect(paths).toContain('vendor/common');
    expect(new Set(paths).size).toBe(paths.length);
    expect((await call('GET', `${REPO}/tree?recursive=true&per_page=100`)).body.map((e: { path: string }) => e.path)).toEqual(paths);
    expect((await call('GET', `${REPO}/tree?path=bin`)).body).toEqual([expect.objectContaining({ path: 'bin/deploy.sh', mode: '100755', type: 'blob' })]);
    expect((await call('GET', `${REPO}/tree?path=vendor`)).body).toEqual([expect.objectContaining({ path: 'vendor/common', mode: '160000', type: 'commit' })]);
    expect(await call('GET', `${REPO}/tree?path=nope`)).toEqual({ status: 404, body: { message: '404 Tree Not Found' } });
  });

  it('reads ancestry suffixes of revisions as git does: main~1, main^, main~2^1', async () => {
    const commitOf = async (ref: string) => (await call('GET', `${REPO}/commits/${encodeURIComponent(ref)}`)).body as { id: string; parent_ids: string[] };
    const head = await commitOf('main');
    const parent = await commitOf('main~1');
    expect(parent.id).toBe(head.parent_ids[0]);
    expect((await commitOf('main^')).id).toBe(parent.id);
    expect((await commitOf('main~2^1')).id).toBe((await commitOf('main~3')).id);
    expect((await commitOf('main^0')).id).toBe(head.id);
    const compare = await call('GET', `${REPO}/compare?from=main~1&to=main`);
    expect(compare.status).toBe(200);
    expect((compare.body as { commits: Array<{ id: string }> }).commits.map((c) => c.id)).toEqual([head.id]);
    expect((await call('GET', `${REPO}/commits/main~999`)).status).toBe(404);
  });

  it('serves blobs as base64 and raw, with byte ranges honoured while If-Range matches', async () => {
    const id = gitBlobId('#!/bin/sh\nset -eu\necho "deploying $1"\n');
    expect((await call('GET', `${REPO}/blobs/${id}`)).body).toEqual({ size: 38, encoding: 'base64', content: Buffer.from('#!/bin/sh\nset -eu\necho "deploying $1"\n').toString('base64'), sha: id });
    const part = await raw(`${REPO}/blobs/${id}/raw`, { Range: 'bytes=10-' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 10-37/38');
    expect(await part.text()).toBe('set -eu\necho "deploying $1"\n');
    expect((await raw(`${REPO}/blobs/${id}/raw`, { Range: 'bytes=0-3', 'If-Range': '"stale"' })).status).toBe(200);
    expect((await raw(`${REPO}/blobs/${id}/raw`, { Range: 'bytes=99-' })).status).toBe(416);
  });

  it('builds archives that tar and unzip open, with the exec bit and the submodule folder', async (context) => {
    needs(context, 'tar', 'unzip');
    const dir = tempDir();
    for (const format of ['tar.gz', 'tar.bz2', 'zip', 'tar']) {
      const response = await raw(`${REPO}/archive.${format}?sha=main&exclude_paths[]=docs`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="api-main-[0-9a-f]{40}\\.${format.replace('.', '\\.')}"$`));
      const file = join(dir, `a.${format}`);
      writeFileSync(file, Buffer.from(await response.arrayBuffer()));
      const listing = format === 'zip' ? execFileSync('unzip', ['-Z', file]).toString() : execFileSync('tar', ['tvf', file]).toString();
      expect(listing).toMatch(/-rwxr-xr-x.*bin\/deploy\.sh/);
      expect(listing).toMatch(/vendor\/common\//);
      expect(listing).not.toMatch(/docs\//);
    }
    expect((await raw(`${REPO}/archive.rar`)).status).toBe(404);
  });

  it('compares through the merge base with diffs git apply accepts, and finds the merge base', async () => {
    const compare = await call('GET', `${REPO}/compare?from=main&to=feature&unidiff=true`);
    expect(compare.status).toBe(200);
    expect(compare.body).toMatchObject({ compare_timeout: false, compare_same_ref: false, commits: [expect.objectContaining({ title: 'Add a status page' })] });
    const status = compare.body.diffs.find((d: { new_path: string }) => d.new_path === 'src/status.rb');
    expect(status).toMatchObject({ new_file: true, deleted_file: false, renamed_file: false, a_mode: '0', b_mode: '100644' });
    expect(status.diff).toBe('--- /dev/null\n+++ b/src/status.rb\n@@ -0,0 +1,3 @@\n+get "/status" do\n+  "all systems go"\n+end\n');
    const base = await call('GET', `${REPO}/merge_base?refs[]=main&refs[]=feature`);
    expect(base.body.id).toBe(branches().main);
    expect(await call('GET', `${REPO}/merge_base?refs[]=main`)).toEqual({ status: 400, body: { message: 'Provide at least 2 refs' } });
    expect(await call('GET', `${REPO}/merge_base?refs=main,nope,gone`)).toEqual({ status: 400, body: { message: 'Could not find ref(s): nope, gone' } });
  });

  it('counts contributors without merge commits', async () => {
    const list = await call('GET', `${REPO}/contributors?order_by=commits&sort=desc`);
    expect(list.body[0]).toMatchObject({ name: 'Administrator', email: 'root@example.com' });
    expect(list.body.map((c: { email: string }) => c.email)).toContain('alice@example.com');
  });
});

describe('sandbox: commits', () => {
  it('creates a commit from several actions atomically, with git ids, stats and a push that moves merge requests', async () => {
    const before = branches()['feature/health'];
    const created = await call('POST', `${REPO}/commits`, {
      branch: 'feature/health', commit_message: 'Rework health\n\nSigned-off-by: Root <root@example.com>',
      actions: [
        { action: 'create', file_path: 'bin/check', content: Buffer.from('#!/bin/sh\n').toString('base64'), encoding: 'base64' },
        { action: 'chmod', file_path: 'src/main.rb', execute_filemode: true },
        { action: 'move', file_path: 'docs/deploying.md', previous_path: 'docs/deploy.md' },
        { action: 'update', file_path: 'src/health.rb', content: 'get "/health" do "OK" end\n' },
        { action: 'delete', file_path: '.gitignore' },
      ],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ parent_ids: [before], stats: { additions: 2, deletions: 2, total: 4 }, trailers: { 'Signed-off-by': 'Root <root@example.com>' } });
    expect(branches()['feature/health']).toBe(created.body.id);
    expect(mergeRequests(sandbox.db).find((m) => m.iid === 1 && m.project_id === 1)!.sha).toBe(created.body.id);
    const tree = (await call('GET', `${REPO}/tree?recursive=true&ref=feature/health&per_page=100`)).body as Array<{ path: string; id: string; mode: string }>;
    expect(tree.find((e) => e.path === 'bin/check')?.id).toBe(gitBlobId('#!/bin/sh\n'));
    expect(tree.find((e) => e.path === 'src/main.rb')?.mode).toBe('100755');
    expect(tree.map((e) => e.path)).not.toContain('.gitignore');

    const failing = await call('POST', `${REPO}/commits`, { branch: 'feature/health', commit_message: 'x', actions: [{ action: 'create', file_path: 'new.txt', content: 'a' }, { action: 'delete', file_path: 'missing.txt' }] });
    expect(failing).toEqual({ status: 400, body: { message: "A file with this name doesn't exist" } });
    expect(branches()['feature/health']).toBe(created.body.id);
  });

  it('refuses traversal, stale last_commit_id, empty commits and unknown start points with 400', async () => {
    const post = (body: Record<string, unknown>) => call('POST', `${REPO}/commits`, { branch: 'feature', commit_message: 'x', ...body });
    expect(await post({ actions: [{ action: 'create', file_path: 'a/../../etc/passwd', content: 'x' }] })).toEqual({ status: 400, body: { error: 'actions[file_path] should be a valid file path' } });
    // last_commit_id: the file's last change as of that commit must be its last change on the branch (update, delete,
    // and move by the file it starts from), checked before any action; the branch's head is as good as the file's own.
    const changes = (await call('GET', `${REPO}/commits?ref_name=feature&path=README.md`)).body as Array<{ id: string }>;
    const stale = { status: 400, body: { message: 'The file has changed since you started editing it: README.md' } };
    expect(await post({ actions: [{ action: 'create', file_path: 'n.txt', content: 'n' }, { action: 'update', file_path: 'README.md', content: 'x', last_commit_id: changes[1].id }] })).toEqual(stale);
    expect(await post({ actions: [{ action: 'delete', file_path: 'README.md', last_commit_id: changes[1].id.slice(0, 8) }] })).toEqual(stale);
    expect(await post({ actions: [{ action: 'move', previous_path: 'README.md', file_path: 'READ.md', last_commit_id: changes[1].id }] })).toEqual(stale);
    expect(await post({ actions: [{ action: 'create', file_path: 'README.md', content: 'x' }] })).toEqual({ status: 400, body: { message: 'A file with this name already exists' } });
    // A commit the repository lacks is not checked (the service lets it through), nor are create and chmod.
    await call('POST', `${REPO}/branches`, { branch: 'lenient', ref: 'feature' });
    const head = branches().feature;
    expect((await post({ branch: 'lenient', actions: [{ action: 'update', file_path: 'README.md', content: 'y', last_commit_id: '0'.repeat(40) }, { action: 'chmod', file_path: 'src/main.rb', execute_filemode: true, last_commit_id: changes[1].id }] })).status).toBe(201);
    expect((await post({ branch: 'lenient', actions: [{ action: 'update', file_path: 'README.md', content: 'z', last_commit_id: head }] })).status).toBe(400);
    expect((await post({ branch: 'lenient', actions: [{ action: 'update', file_path: 'README.md', content: 'z', last_commit_id: branches().lenient }] })).status).toBe(201);
    expect(branches().feature).toBe(head);
    const readme = (await call('GET', `${REPO}/files/README.md?ref=feature`)).body;
    expect(await post({ actions: [{ action: 'update', file_path: 'README.md', content: Buffer.from(readme.content, 'base64').toString() }] })).toMatchObject({ status: 400 });
    expect(await post({ branch: 'brand-new', actions: [{ action: 'create', file_path: 'x', content: 'x' }] })).toEqual({ status: 400, body: { message: 'You can only create or edit files when you are on a branch' } });
    const fresh = await post({ branch: 'brand-new', start_branch: 'main', actions: [{ action: 'create', file_path: 'x', content: 'x' }] });
    expect(fresh.status).toBe(201);
    expect(fresh.body.parent_ids).toEqual([branches().main]);
  });

  it('lists without totals, filters by path and author, and answers refs, sequence and single commits', async () => {
    const list = await raw(`${REPO}/commits?ref_name=main&per_page=2`);
    expect(list.headers.get('x-total')).toBeNull();
    expect(list.headers.get('link')).toMatch(/rel="next"/);
    const byPath = (await call('GET', `${REPO}/commits?path=README.md`)).body.map((c: { title: string }) => c.title);
    expect(byPath).toEqual(['Describe the configuration', 'Initial commit']);
    expect((await call('GET', `${REPO}/commits?author=alice&ref_name=main`)).body.every((c: { author_email: string }) => c.author_email === 'alice@example.com')).toBe(true);
    const first = (await call('GET', `${REPO}/commits?ref_name=main&first_parent=true`)).body.at(-1);
    expect((await call('GET', `${REPO}/commits/${first.id}/sequence`)).body).toEqual({ count: 1 });
    const refs = await call('GET', `${REPO}/commits/${first.id}/refs?type=tag`);
    expect(refs.body).toEqual([{ type: 'tag', name: 'v1.0.0' }, { type: 'tag', name: 'v1.1.0' }]);
    const single = await call('GET', `${REPO}/commits/v1.1.0`);
    expect(single.body).toMatchObject({ title: 'Describe the configuration', trailers: { Changelog: 'added' }, extended_trailers: { Changelog: ['added'] }, status: null, last_pipeline: null });
    expect((await call('GET', `${REPO}/commits/0000000`)).status).toBe(404);
  });

  it('cherry-picks: dry run, conflict and empty errors, and a real pick', async () => {
    const feature = branches().feature;
    // stable still has the first README, which the picked commit changes from a later version: a conflict.
    expect(await call('POST', `${REPO}/commits/${feature}/cherry_pick`, { branch: 'stable', dry_run: true })).toEqual({
      status: 400,
      body: { message: expect.stringMatching(/^Sorry, we cannot cherry-pick this commit automatically/), error_code: 'conflict', dry_run: 'error' },
    });
    expect(await call('POST', `${REPO}/commits/${feature}/cherry_pick`, { branch: 'main', dry_run: true })).toEqual({ status: 200, body: { dry_run: 'success' } });
    const main = branches().main;
    const picked = await call('POST', `${REPO}/commits/${feature}/cherry_pick`, { branch: 'main' });
    expect(picked.status).toBe(201);
    expect(picked.body).toMatchObject({ parent_ids: [main], author_email: 'alice@example.com', committer_email: 'root@example.com' });
    expect(picked.body.message).toContain(`(cherry picked from commit ${feature})`);
    expect(branches().main).toBe(picked.body.id);
    const again = await call('POST', `${REPO}/commits/${picked.body.id}/cherry_pick`, { branch: 'feature' });
    expect(again).toMatchObject({ status: 400, body: { error_code: 'empty' } });
  });
});

describe('sandbox: repository files and submodules', () => {
  it('gets a file with its headers under both names, raw with sha256, and blame', async () => {
    const file = await call('GET', `${REPO}/files/README.md?ref=main`);
    const content = Buffer.from(file.body.content, 'base64');
    expect(file.body).toMatchObject({ file_name: 'README.md', file_path: 'README.md', size: content.length, encoding: 'base64', ref: 'main', blob_id: gitBlobId(content), content_sha256: createHash('sha256').update(content).digest('hex'), execute_filemode: false });
    const head = await fetch(`${sandbox.url}${REPO}/files/README.md?ref=main`, { method: 'HEAD', headers: { 'PRIVATE-TOKEN': sandbox.adminToken } });
    expect(head.headers.get('x-gitlab-blob-id')).toBe(file.body.blob_id);
    expect(head.headers.get('x-service-content-sha256')).toBe(file.body.content_sha256);
    const rawFile = await raw(`${REPO}/files/README.md/raw?ref=main`);
    expect(Buffer.from(await rawFile.arrayBuffer())).toEqual(content);
    expect(rawFile.headers.get('x-gitlab-content-sha256')).toBe(file.body.content_sha256);
    expect(await call('GET', `${REPO}/files/nope.md?ref=main`)).toEqual({ status: 404, body: { message: '404 File Not Found' } });
    expect(await call('GET', `${REPO}/files/..%2Fetc%2Fpasswd?ref=main`)).toEqual({ status: 400, body: { error: 'file_path should be a valid file path' } });
    const blame = await call('GET', `${REPO}/files/README.md/blame?ref=v1.1.0`);
    const tagged = Buffer.from((await call('GET', `${REPO}/files/README.md?ref=v1.1.0`)).body.content, 'base64').toString();
    expect(blame.body.flatMap((r: { lines: string[] }) => r.lines).join('\n')).toBe(tagged.replace(/\n$/, ''));
    expect(blame.body[0].commit.message).toBe('Initial commit');
    const ranged = await call('GET', `${REPO}/files/README.md/blame?ref=v1.1.0&range[start]=2&range[end]=3`);
    expect(ranged.body.flatMap((r: { lines: string[] }) => r.lines)).toHaveLength(2);
  });

  it('answers 500 to a request it fails on, at once, instead of leaving the client waiting', async () => {
    const spy = vi.spyOn(sandbox.db, 'table').mockImplementationOnce(() => {
      throw new Error('broken');
    });
    try {
      const response = await fetch(`${sandbox.url}/user`, { headers: { 'PRIVATE-TOKEN': sandbox.adminToken }, signal: AbortSignal.timeout(5000) });
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ message: '500 Internal Server Error' });
    } finally {
      spy.mockRestore();
    }
  });

  it('sends a file name with control characters or beyond ASCII in headers the client can read', async () => {
    const name = 'docs/\u65e5\u672c \u001b[31mred.txt';
    expect((await call('POST', `${REPO}/files/${encodeURIComponent(name)}`, { branch: 'main', commit_message: 'names', content: 'x' })).status).toBe(201);
    const url = `${sandbox.url}${REPO}/files/${encodeURIComponent(name)}`;
    const head = await fetch(`${url}?ref=main`, { method: 'HEAD', headers: { 'PRIVATE-TOKEN': sandbox.adminToken }, signal: AbortSignal.timeout(5000) });
    expect(head.status).toBe(200);
    // fetch decodes header bytes as Latin-1: the UTF-8 bytes of the name, with the escape percent-encoded.
    expect(Buffer.from(head.headers.get('x-gitlab-file-path')!, 'latin1').toString('utf8')).toBe('docs/\u65e5\u672c %1B[31mred.txt');
    const rawFile = await raw(`${REPO}/files/${encodeURIComponent(name)}/raw?ref=main`);
    expect(rawFile.status).toBe(200);
    expect(rawFile.headers.get('content-disposition')).toBe(`inline; filename="__ _[31mred.txt"; filename*=UTF-8''${encodeURIComponent('\u65e5\u672c \u001b[31mred.txt')}`);
  });

  it('creates, updates and deletes single files (201, 200, 204), each a commit', async () => {
    const path = `${REPO}/files/notes%2Ftodo.txt`;
    expect(await call('POST', path, { branch: 'feature', commit_message: 'add', content: 'one\n', execute_filemode: true })).toEqual({ status: 201, body: { file_path: 'notes/todo.txt', branch: 'feature' } });
    expect((await call('GET', `${path}?ref=feature`)).body.execute_filemode).toBe(true);
    expect(await call('POST', path, { branch: 'feature', commit_message: 'add', content: 'one\n' })).toMatchObject({ status: 400 });
    expect(await call('PUT', path, { branch: 'feature', commit_message: 'edit', content: 'two\n' })).toEqual({ status: 200, body: { file_path: 'notes/todo.txt', branch: 'feature' } });
    expect((await call('PUT', path, { branch: 'feature', commit_message: 'edit', content: 'two\n' })).status).toBe(400);
    expect((await call('DELETE', path, { branch: 'feature', commit_message: 'rm' })).status).toBe(204);
    expect((await call('GET', `${path}?ref=feature`)).status).toBe(404);
  });

  it('moves a submodule reference; the path must be a submodule and the SHA full', async () => {
    const path = `${REPO}/submodules/vendor%2Fcommon`;
    const sha = 'a'.repeat(40);
    const moved = await call('PUT', path, { branch: 'feature', commit_sha: sha });
    expect(moved.status).toBe(200);
    expect(moved.body.title).toBe(`Update submodule vendor/common with oid ${sha}`);
    expect((await call('GET', `${REPO}/tree?path=vendor&ref=feature`)).body[0].id).toBe(sha);
    expect(await call('PUT', path, { branch: 'feature', commit_sha: 'abc' })).toEqual({ status: 400, body: { error: 'commit_sha is invalid' } });
    expect(await call('PUT', `${REPO}/submodules/README.md`, { branch: 'feature', commit_sha: sha })).toEqual({ status: 400, body: { message: 'Invalid submodule path' } });
  });

  it('lets a Developer push to an unprotected branch but not to the protected default branch', async () => {
    const bob = (await import('../../sandbox/model.js')).tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
    const body = { commit_message: 'x', actions: [{ action: 'create', file_path: `bob-${Date.now()}.txt`, content: 'x' }] };
    expect((await sandbox.call('POST', `${REPO}/commits`, { ...body, branch: 'main' }, bob)).status).toBe(403);
    expect((await sandbox.call('POST', `${REPO}/commits`, { ...body, branch: 'feature' }, bob)).status).toBe(201);
  });
});
