import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { gitBlobId, gitCommitId, gitTreeId } from '../../src/git/objects.js';
import { tempDir } from '../helpers/cli.js';
import { needs } from '../helpers/system.js';

const git = (cwd: string, args: string[], input?: string, env: Record<string, string> = {}): string =>
  execFileSync('git', args, { cwd, input, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: cwd, ...env } }).toString().trim();

describe('git object ids', () => {
  it('a blob id is sha1 of "blob <size>\\0<bytes>"', () => {
    expect(gitBlobId('')).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
    expect(gitBlobId('hello\n')).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
  });

  it('blob, tree and commit ids match git for the same content', (context) => {
    needs(context, 'git');
    const dir = tempDir();
    git(dir, ['init', '-q']);
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'a.txt'), 'alpha\n');
    writeFileSync(join(dir, 'src-b'), Buffer.from([0, 1, 2, 255]));
    writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    git(dir, ['add', '-A']);
    const tree = git(dir, ['write-tree']);
    const sub = gitTreeId([{ mode: '100644', name: 'a.txt', id: gitBlobId('alpha\n') }]);
    const root = gitTreeId([
      { mode: '100755', name: 'run.sh', id: gitBlobId('#!/bin/sh\n') },
      { mode: '100644', name: 'src-b', id: gitBlobId(Buffer.from([0, 1, 2, 255])) },
      { mode: '040000', name: 'src', id: sub },
    ]);
    expect(root).toBe(tree);
    const date = '2026-01-02T03:04:05.000Z';
    const env = { GIT_AUTHOR_NAME: 'Ann', GIT_AUTHOR_EMAIL: 'ann@example.com', GIT_AUTHOR_DATE: '1767323045 +0000', GIT_COMMITTER_NAME: 'Bo', GIT_COMMITTER_EMAIL: 'bo@example.com', GIT_COMMITTER_DATE: '1767323045 +0000' };
    const commit = git(dir, ['commit-tree', tree, '-m', 'First\n\nSigned-off-by: Ann <ann@example.com>'], undefined, env);
    expect(gitCommitId({ tree, parents: [], author: { name: 'Ann', email: 'ann@example.com', date }, committer: { name: 'Bo', email: 'bo@example.com', date }, message: 'First\n\nSigned-off-by: Ann <ann@example.com>' })).toBe(commit);
  });

  it('any bytes get the id git hash-object gives them', (context) => {
    needs(context, 'git');
    const dir = tempDir();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        writeFileSync(join(dir, 'f'), bytes);
        return git(dir, ['hash-object', 'f']) === gitBlobId(bytes);
      }),
      { numRuns: 20 },
    );
  });
});
