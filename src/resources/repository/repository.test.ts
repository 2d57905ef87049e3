import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../../../test/helpers/cli.js';
import { needs } from '../../../test/helpers/system.js';
import { gitBlobId } from '../../git/objects.js';

const sandbox = useTestSandbox();

const P = ['--project', 'acme/api'];

function files(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? [join(dir, e.name).slice(base.length + 1), ...files(join(dir, e.name), base)] : [join(dir, e.name).slice(base.length + 1)])).sort();
}

describe('commits create --from-dir', () => {
  it('commits only what changed, in one commit; a second run is "nothing to commit" with reads only', async () => {
    const site = tempDir();
    mkdirSync(join(site, 'img'));
    for (let i = 0; i < 197; i++) writeFileSync(join(site, `page${i}.md`), `page ${i}\n`);
    writeFileSync(join(site, 'img', 'logo.bin'), Buffer.from([0, 1, 2, 3, 255]));
    writeFileSync(join(site, 'run.sh'), '#!/bin/sh\necho one\n');
    chmodSync(join(site, 'run.sh'), 0o755);
    writeFileSync(join(site, 'img', 'note.txt'), 'note\n');
    const sync = () => sandbox.run(['commits', 'create', '--branch', 'main', '-m', 'sync', '--from-dir', site, '--to', 'docs/', ...P, '-o', 'json']);
    const first = await sync();
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('committed 201 changes (200 created, 1 mode changed)');

    writeFileSync(join(site, 'img', 'logo.bin'), Buffer.from([0, 1, 2, 4, 255]));
    writeFileSync(join(site, 'run.sh'), '#!/bin/sh\necho two\n');
    writeFileSync(join(site, 'page3.md'), 'changed\n');
    sandbox.clearRequests();
    const second = await sync();
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('committed 3 changes (3 updated)');
    const posts = sandbox.requests().filter((r) => r.method !== 'GET' && r.method !== 'HEAD');
    expect(posts).toEqual([expect.objectContaining({ method: 'POST', status: 201 })]);
    // The last commit of each updated file, which the commit carries so the service refuses it if one changed since:
    // one HEAD request per updated file, none for the 198 unchanged ones.
    const heads = sandbox.requests().filter((r) => r.method === 'HEAD').map((r) => decodeURIComponent(r.path.replace(/\?.*/, '').split('/files/')[1]));
    expect(heads.sort()).toEqual(['docs/img/logo.bin', 'docs/page3.md', 'docs/run.sh']);
    const tree = (await sandbox.run(['repo', 'tree', 'docs', ...P, '--all', '-o', 'json'])).json();
    expect(tree.find((e: { path: string }) => e.path === 'docs/run.sh').mode).toBe('100755');

    sandbox.clearRequests();
    const third = await sync();
    expect(third.code).toBe(0);
    expect(third.stdout).toBe('');
    expect(third.stderr).toContain('nothing to commit');
    expect(sandbox.requests().every((r) => r.method === 'GET')).toBe(true);
  });

  it('does not undo a push made while it prepared the commit; a push to other files is kept under it', async () => {
    const site = tempDir();
    writeFileSync(join(site, 'shared.txt'), 'ours 1\n');
    const sync = () => sandbox.run(['commits', 'create', '--branch', 'main', '-m', 'sync', '--from-dir', site, '--to', 'race/', ...P, '--prune', '--yes']);
    expect((await sync()).code).toBe(0);
    const push = (path: string, content: string) => sandbox.call('POST', '/projects/acme%2Fapi/repository/commits', { branch: 'main', commit_message: 'teammate', actions: [{ action: 'create', file_path: path, content }] });
    const update = (path: string, content: string) => sandbox.call('POST', '/projects/acme%2Fapi/repository/commits', { branch: 'main', commit_message: 'teammate', actions: [{ action: 'update', file_path: path, content }] });
    // The branch moves while the tree is on its way back (the confirmation of --prune is such a pause too).
    const racing = async (teammate: () => Promise<unknown>) => {
      sandbox.fault({ method: 'GET', path: 'repository/tree', answer_latency_ms: 400 });
      const run = sync();
      await new Promise((resolve) => setTimeout(resolve, 150));
      await teammate();
      return run;
    };
    writeFileSync(join(site, 'shared.txt'), 'ours 2\n');
    const refused = await racing(() => update('race/shared.txt', 'theirs\n'));
    expect(refused.code).toBe(6);
    expect(refused.stderr).toMatch(/branch main moved while this commit was prepared .* and the new commits change race\/shared\.txt/);
    expect(refused.stderr).toContain('nothing was committed');
    const file = await sandbox.call('GET', '/projects/acme%2Fapi/repository/files/race%2Fshared.txt/raw?ref=main');
    expect(file.text).toBe('theirs\n');

    // A push to a file the commit does not touch: committed on top of it, and the new file is not pruned.
    const kept = await racing(() => push('race/theirs.txt', 'new\n'));
    expect(kept.code).toBe(0);
    expect((await sandbox.call('GET', '/projects/acme%2Fapi/repository/files/race%2Ftheirs.txt/raw?ref=main')).text).toBe('new\n');
    expect((await sandbox.call('GET', '/projects/acme%2Fapi/repository/files/race%2Fshared.txt/raw?ref=main')).text).toBe('ours 2\n');
  });

  it('a push that lands after the last check and before the commit is refused by the service: exit 6 naming the files, nothing committed', async () => {
    const site = tempDir();
    for (const name of ['edited', 'pruned', 'kept']) writeFileSync(join(site, `${name}.txt`), `${name} 1\n`);
    const sync = () => sandbox.run(['commits', 'create', '--branch', 'main', '-m', 'sync', '--from-dir', site, '--to', 'late/', ...P, '--prune', '--yes']);
    expect((await sync()).code).toBe(0);
    const head = async () => (await sandbox.call('GET', '/projects/acme%2Fapi/repository/commits/main')).body.id as string;
    const raw = async (path: string) => (await sandbox.call('GET', `/projects/acme%2Fapi/repository/files/${encodeURIComponent(path)}/raw?ref=main`)).text;
    // The teammate's change is processed just before the commit request: after every check forgectl makes.
    const teammate = (method: string, path: string, content?: string) =>
      sandbox.fault({ method: 'POST', path: '/repository/commits$', interleave: { method, path: `/projects/acme%2Fapi/repository/files/${encodeURIComponent(path)}`, body: { branch: 'main', commit_message: 'teammate', content } } });

    writeFileSync(join(site, 'edited.txt'), 'edited 2\n');
    teammate('PUT', 'late/edited.txt', 'theirs\n');
    const updated = await sync();
    expect(updated.code, updated.stderr).toBe(6);
    expect(updated.stderr).toMatch(/error: branch main moved while this commit was sent \([0-9a-f]{8} → [0-9a-f]{8}\) and the new commits change late\/edited\.txt\n/);
    expect(updated.stderr).toContain('nothing was committed: run the command again to compare with the branch as it is now');
    expect(await raw('late/edited.txt')).toBe('theirs\n');
    const theirs = await head();

    // A file --prune deletes, changed by the teammate: kept, with their content.
    writeFileSync(join(site, 'edited.txt'), 'theirs\n');
    rmSync(join(site, 'pruned.txt'));
    teammate('PUT', 'late/pruned.txt', 'still needed\n');
    const pruned = await sync();
    expect(pruned.code, pruned.stderr).toBe(6);
    expect(pruned.stderr).toMatch(/and the new commits change late\/pruned\.txt\n/);
    expect(await raw('late/pruned.txt')).toBe('still needed\n');

    // A file the commit creates, created by the teammate meanwhile: the service names no file; forgectl does.
    writeFileSync(join(site, 'pruned.txt'), 'still needed\n');
    writeFileSync(join(site, 'added.txt'), 'ours\n');
    teammate('POST', 'late/added.txt', 'theirs too\n');
    const created = await sync();
    expect(created.code, created.stderr).toBe(6);
    expect(created.stderr).toMatch(/and the new commits change late\/added\.txt\n/);
    expect(await raw('late/added.txt')).toBe('theirs too\n');
    const commits = (await sandbox.call('GET', '/projects/acme%2Fapi/repository/commits?ref_name=main&per_page=3')).body as Array<{ title: string; parent_ids: string[] }>;
    expect(commits.map((c) => c.title)).toEqual(['teammate', 'teammate', 'teammate']);
    expect(commits[1].parent_ids).toEqual([theirs]);

    // A create of a file the branch already had is refused by the service as it words it: no push is blamed.
    const actions = join(tempDir(), 'actions.json');
    writeFileSync(actions, JSON.stringify([{ action: 'create', file_path: 'late/kept.txt', content: 'x' }]));
    const own = await sandbox.run(['commits', 'create', '--branch', 'main', '-m', 'x', '--actions-file', actions, ...P]);
    expect(own.code, own.stderr).toBe(6);
    expect(own.stderr).toMatch(/^error: A file with this name already exists \(POST .*\/repository\/commits → 400\)\n/);

    // Run again, it compares with the branch as it is now: nothing of theirs is undone.
    writeFileSync(join(site, 'added.txt'), 'theirs too\n');
    const again = await sync();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('nothing to commit');
  });

  it('a protected branch the caller may not push to: exit 4 naming the way out (a new branch), nothing sent', async () => {
    const site = tempDir();
    writeFileSync(join(site, 'a.txt'), 'a\n');
    sandbox.clearRequests();
    const token = sandbox.tokenWithRole('developer');
    const result = await sandbox.run(['commits', 'create', '--branch', 'main', '-m', 'x', '--from-dir', site, ...P], { env: { FORGECTL_TOKEN: token } });
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toContain('error: branch main of project acme/api is protected and its protection does not let you push to it; nothing was sent');
    expect(result.stderr).toContain('commit to a new branch (--branch NEW --start-branch main) and open a merge request');
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    const onNew = await sandbox.run(['commits', 'create', '--branch', 'dev-work', '--start-branch', 'main', '-m', 'x', '--from-dir', site, '--to', 'dev/', ...P], { env: { FORGECTL_TOKEN: token } });
    expect(onNew.code, onNew.stderr).toBe(0);
  });

  it('asks before --delete, delete actions and --force on an existing branch: off a terminal without --yes, exit 2 and nothing sent', async () => {
    const actions = join(tempDir(), 'actions.json');
    writeFileSync(actions, JSON.stringify([{ action: 'delete', file_path: 'src/main.rb' }]));
    const local = join(tempDir(), 'b.txt');
    writeFileSync(local, 'b\n');
    await sandbox.call('POST', '/projects/acme%2Fapi/repository/branches', { branch: 'ask-first', ref: 'main' });
    const base = ['commits', 'create', '--branch', 'ask-first', '-m', 'x', ...P];
    sandbox.clearRequests();
    const cases: Array<[string[], string]> = [
      [['--delete', 'src/config.yml'], 'Delete 1 file on branch ask-first of project acme/api (--delete)?'],
      [['--actions-file', actions], 'Delete 1 file on branch ask-first of project acme/api (--actions-file)?'],
      [['--add', `${local}:b.txt`, '--force', '--start-branch', 'feature'], '--force replaces branch ask-first of project acme/api with this commit on top of feature: its commits that feature lacks are dropped from it. Replace it?'],
    ];
    for (const [argv, question] of cases) {
      const refused = await sandbox.run([...base, ...argv]);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(`error: confirmation needed: ${question}`);
    }
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    const deleted = await sandbox.run([...base, '--delete', 'src/config.yml', '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stderr).toContain('delete src/config.yml\n');
    expect(deleted.stderr).toContain('committed 1 change (1 deleted) to ask-first');
  });

  it('--prune commits a file renamed in the folder as a move (no upload, no deletion to confirm), its mode from the disk', async () => {
    const site = tempDir();
    writeFileSync(join(site, 'big.txt'), 'x'.repeat(50_000));
    writeFileSync(join(site, 'tool.sh'), '#!/bin/sh\n');
    chmodSync(join(site, 'tool.sh'), 0o755);
    const sync = (...more: string[]) => sandbox.run(['commits', 'create', '--branch', 'main', '-m', 'sync', '--from-dir', site, '--to', 'moves/', '--prune', ...P, ...more]);
    expect((await sync('--yes')).code).toBe(0);
    mkdirSync(join(site, 'sub'));
    execFileSync('mv', [join(site, 'big.txt'), join(site, 'sub', 'big.txt')]);
    execFileSync('mv', [join(site, 'tool.sh'), join(site, 'tool2.sh')]);
    chmodSync(join(site, 'tool2.sh'), 0o644);
    const moved = await sync();
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stderr).toContain('committed 3 changes (2 moved, 1 mode changed)');
    expect(moved.stderr).not.toContain('delete ');
    const tree = (await sandbox.run(['repo', 'tree', 'moves', ...P, '--recursive', '--all', '-o', 'json'])).json() as Array<{ path: string; id: string; mode: string; type: string }>;
    expect(tree.filter((e) => e.type === 'blob').map((e) => [e.path, e.mode, e.id])).toEqual([
      ['moves/sub/big.txt', '100644', gitBlobId(Buffer.from('x'.repeat(50_000)))],
      ['moves/tool2.sh', '100644', gitBlobId(Buffer.from('#!/bin/sh\n'))],
    ]);
  });

  it('refuses paths that leave the repository before sending anything', async () => {
    sandbox.clearRequests();
    const local = join(tempDir(), 'a.txt');
    writeFileSync(local, 'a');
    for (const bad of [`${local}:../x`, `${local}:/etc/x`]) {
      const result = await sandbox.run(['commits', 'create', '--branch', 'main', '-m', 'x', '--add', bad, ...P]);
      expect(result.code).toBe(2);
    }
    expect((await sandbox.run(['commits', 'create', '--branch', 'main', '-m', 'x', '--add', local, ...P])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });
});

describe('downloads', () => {
  it('files raw writes the announced bytes; a corrupted body exits 8 and leaves no file', async () => {
    const dir = tempDir();
    const target = join(dir, 'r.md');
    const ok = await sandbox.run(['files', 'raw', 'README.md', '--ref', 'main', '-O', target, ...P, '-o', 'json']);
    expect(ok.code).toBe(0);
    const info = (await sandbox.run(['files', 'info', 'README.md', '--ref', 'main', ...P, '-o', 'json'])).json();
    expect(ok.json()).toEqual({ path: target, bytes: info.size, sha256: info.content_sha256 });
    sandbox.fault({ path: 'files/README', corrupt: true });
    const bad = await sandbox.run(['files', 'raw', 'README.md', '--ref', 'main', '-O', join(dir, 'bad.md'), ...P]);
    expect(bad.code).toBe(8);
    expect(bad.stderr).toMatch(/checksum mismatch/);
    expect(readdirSync(dir)).toEqual(['r.md']);
  });

  it('repo blob --raw checks the bytes against a full blob id: a corrupted body exits 8 and leaves no file', async () => {
    const dir = tempDir();
    const blob = (await sandbox.run(['files', 'info', 'README.md', '--ref', 'main', ...P, '-o', 'json'])).json<{ blob_id: string }>().blob_id;
    const ok = await sandbox.run(['repo', 'blob', blob, '--raw', '-O', join(dir, 'readme'), ...P]);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toContain('(blob id verified)');
    expect(gitBlobId(readFileSync(join(dir, 'readme')))).toBe(blob);
    sandbox.fault({ path: 'repository/blobs/', corrupt: true });
    const bad = await sandbox.run(['repo', 'blob', blob, '--raw', '-O', join(dir, 'bad'), ...P]);
    expect(bad.code).toBe(8);
    expect(bad.stderr).toContain(`blob id mismatch: expected ${blob}`);
    // An abbreviated id names the blob but cannot check it.
    const short = await sandbox.run(['repo', 'blob', blob.slice(0, 8), '--raw', ...P]);
    expect(short.code).toBe(0);
    expect(readdirSync(dir)).toEqual(['readme']);
  });

  it('resumes an interrupted download with a Range request', async () => {
    const dir = tempDir();
    const target = join(dir, 'logo.png');
    sandbox.fault({ path: 'files/assets', drop: 'body' });
    const cut = await sandbox.run(['files', 'raw', 'assets/logo.png', '-O', target, ...P]);
    expect(cut.code).toBe(8);
    expect(cut.stderr).toContain('--resume');
    expect(existsSync(`${target}.part`)).toBe(true);
    const resumed = await sandbox.run(['files', 'raw', 'assets/logo.png', '-O', target, '--resume', ...P, '-o', 'json']);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('resuming');
    expect(readdirSync(dir)).toEqual(['logo.png']);
  });

  it('repo tree shows its first page and says when more exist; --all and --limit follow the keyset links', async () => {
    const first = await sandbox.run(['repo', 'tree', '--recursive', '--per-page', '3', ...P, '-o', 'json']);
    expect(first.json()).toHaveLength(3);
    expect(first.stderr).toBe('showing 3; more exist — use --all or --limit\n');
    const all = (await sandbox.run(['repo', 'tree', '--recursive', '--per-page', '3', '--all', ...P, '-o', 'json'])).json();
    expect(all.length).toBeGreaterThan(6);
    expect((await sandbox.run(['repo', 'tree', '--recursive', '--limit', '5', ...P, '-o', 'json'])).json()).toEqual(all.slice(0, 5));
    const paged = await sandbox.run(['repo', 'tree', '--page', '2', ...P]);
    expect(paged.code).toBe(2);
    expect(paged.stderr).toContain('--page cannot be used here: the service pages this list by keyset only');
  });

  it('repo archive --extract reproduces the tree of repo tree --recursive', async () => {
    const dir = join(tempDir(), 'x');
    const result = await sandbox.run(['repo', 'archive', '--format', 'zip', '--extract', dir, '--ref', 'v1.1.0', ...P, '-o', 'json']);
    expect(result.code).toBe(0);
    const tree = (await sandbox.run(['repo', 'tree', '--recursive', '--all', '--ref', 'v1.1.0', ...P, '-o', 'json'])).json();
    expect(files(dir)).toEqual(tree.map((e: { path: string }) => e.path).sort());
    expect(readFileSync(join(dir, 'bin', 'deploy.sh'), 'utf8')).toContain('deploying');
  });

  it('refuses binary data to a terminal, before sending', async () => {
    sandbox.clearRequests();
    expect((await sandbox.run(['files', 'raw', 'README.md', ...P], { tty: true })).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });
});

describe('repo compare, files put, cherry-pick', () => {
  it('--patch applies with git apply in a clone made from the archive', async (context) => {
    needs(context, 'git');
    const dir = join(tempDir(), 'clone');
    expect((await sandbox.run(['repo', 'archive', '--ref', 'main', '--extract', dir, ...P])).code).toBe(0);
    const patch = await sandbox.run(['repo', 'compare', 'main', 'feature', '--patch', ...P]);
    expect(patch.code).toBe(0);
    writeFileSync(join(dir, '..', 'p.diff'), patch.stdout);
    execFileSync('git', ['init', '-q'], { cwd: dir });
    execFileSync('git', ['apply', '--check', join(dir, '..', 'p.diff')], { cwd: dir });
    const stat = await sandbox.run(['repo', 'compare', 'main', 'feature', ...P]);
    expect(stat.stdout).toContain('added\tsrc/status.rb\t3\t0');
  });

  it('files get and info read the default branch when --ref is left out, as files raw does', async () => {
    for (const verb of ['get', 'info']) {
      const implicit = await sandbox.run(['files', verb, 'README.md', ...P, '-o', 'json']);
      expect(implicit.code).toBe(0);
      expect(implicit.json()).toEqual((await sandbox.run(['files', verb, 'README.md', '--ref', 'main', ...P, '-o', 'json'])).json());
      expect(implicit.json()).toMatchObject({ ref: 'main' });
    }
  });

  it('files put creates, then is a no-op for identical content', async () => {
    const file = join(tempDir(), 'c.txt');
    writeFileSync(file, 'hello\n');
    const put = () => sandbox.run(['files', 'put', 'notes/c.txt', '--branch', 'feature', '-m', 'put', '--content-file', file, ...P]);
    expect((await put()).stderr).toContain('Created notes/c.txt');
    sandbox.clearRequests();
    const again = await put();
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('nothing to commit');
    expect(sandbox.requests().map((r) => r.method)).toEqual(['HEAD']);
  });

  it('files create, info and raw work on a file whose name is not ASCII (its UTF-8 bytes in the headers)', async () => {
    const file = join(tempDir(), 'n.txt');
    writeFileSync(file, 'hi\n');
    const created = await sandbox.run(['files', 'create', 'docs/日本語 ü.txt', '--branch', 'feature', '-m', 'unicode', '--content-file', file, ...P, '-o', 'json', '--timeout', '5', '--retries', '0']);
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ file_name: '日本語 ü.txt', file_path: 'docs/日本語 ü.txt', size: 3 });
    const info = await sandbox.run(['files', 'info', 'docs/日本語 ü.txt', '--ref', 'feature', ...P, '-o', 'json', '--timeout', '5', '--retries', '0']);
    expect(info.json()).toMatchObject({ file_name: '日本語 ü.txt', file_path: 'docs/日本語 ü.txt', size: 3 });
    const target = join(tempDir(), 'out.txt');
    const raw = await sandbox.run(['files', 'raw', 'docs/日本語 ü.txt', '--ref', 'feature', '-O', target, ...P, '--timeout', '5', '--retries', '0']);
    expect(raw.code).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('hi\n');
  });

  it('cherry-pick explains a conflict with exit 6; --check commits nothing', async () => {
    const list = (await sandbox.run(['commits', 'list', '--ref', 'feature', ...P, '-o', 'json'])).json();
    const feature = list.find((c: { title: string }) => c.title === 'Add a status page').id;
    const conflict = await sandbox.run(['commits', 'cherry-pick', feature, '--branch', 'stable', ...P]);
    expect(conflict.code).toBe(6);
    expect(conflict.stderr).toContain('conflicts with changes on the branch');
    const check = await sandbox.run(['commits', 'cherry-pick', feature, '--branch', 'main', '--check', ...P]);
    expect(check.code).toBe(0);
    expect(check.stderr).toContain('applies cleanly');
    const picked = await sandbox.run(['commits', 'cherry-pick', feature, '--branch', 'main', ...P, '-o', 'json']);
    expect(picked.code, picked.stderr).toBe(0);
    expect(picked.stderr).toBe(`Cherry-picked ${feature} onto main as ${picked.json().short_id}\n`);
  });
});
