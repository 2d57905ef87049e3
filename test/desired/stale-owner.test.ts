/** A saved plan is for the projects and groups it read: another one at the same path since is refused, not changed. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

describe('apply of a saved plan whose project was replaced', () => {
  it('refuses (exit 6, nothing applied) when another project took the path the plan was made for', async () => {
    const dir = tempDir();
    const desired = join(dir, 'badge.yaml');
    writeFileSync(desired, 'version: 1\nprojects:\n  acme/api:\n    badges:\n      - {name: coverage, link_url: "https://ci.example.com/c", image_url: "https://ci.example.com/c.svg"}\n');
    const saved = join(dir, 'plan.json');
    expect((await sandbox.run(['plan', '-f', desired, '--out', saved])).code).toBe(9);
    const planned = (await sandbox.call('GET', '/projects/acme%2Fapi')).body.id as number;
    // The project is renamed, and a new one is made at its old path: it has no such badge either.
    expect((await sandbox.call('PUT', '/projects/acme%2Fapi', { path: 'api-old', name: 'api-old' })).status).toBe(200);
    const acme = (await sandbox.call('GET', '/groups/acme')).body.id as number;
    const other = await sandbox.create('/projects', { name: 'api', path: 'api', namespace_id: acme });
    sandbox.clearRequests();
    const applied = await sandbox.run(['apply', '-f', saved, '--yes']);
    expect(applied.code).toBe(6);
    expect(applied.stderr).toContain(`changed since the plan: project acme/api: is another project now (id ${other.id}; the plan was made for id ${planned})\n`);
    expect(applied.stderr).toContain('nothing was applied');
    expect(sandbox.requests().filter((request) => request.method !== 'GET')).toEqual([]);
  });
});
