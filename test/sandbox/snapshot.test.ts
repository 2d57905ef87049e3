import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

describe('GET /projects/:id/snapshot', () => {
  it('is a tar of a bare repository that git checks and clones, with every branch and tag; administrators only', async () => {
    const response = await fetch(`${sandbox.url}/projects/acme%2Fapi/snapshot`, { headers: { 'PRIVATE-TOKEN': sandbox.adminToken } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-tar');
    const dir = tempDir();
    const bare = join(dir, 'api.git');
    mkdirSync(bare);
    writeFileSync(join(dir, 'snapshot.tar'), Buffer.from(await response.arrayBuffer()));
    execFileSync('tar', ['-xf', join(dir, 'snapshot.tar'), '-C', bare]);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: bare, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } });
    git('fsck', '--strict', '--no-dangling');
    const main = (await sandbox.call('GET', '/projects/acme%2Fapi/repository/branches/main')).body.commit.id;
    expect(git('rev-parse', 'main').trim()).toBe(main);
    expect(git('tag').trim().split('\n')).toEqual(expect.arrayContaining(['v1.0.0', 'v1.1.0']));
    expect(git('show', 'main:README.md')).toContain('## Configuration');
    const owner = sandbox.tokenWithRole('owner');
    expect(await sandbox.call('GET', '/projects/acme%2Fapi/snapshot', undefined, owner)).toEqual({ status: 403, body: { message: '403 Forbidden' } });
  });
});
