import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

describe('projects create|update|archive|unarchive|transfer|delete', () => {
  it('creates a project in a group named by path, with settings, and a README', async () => {
    const result = await sandbox.run(['projects', 'create', '--name', 'billing', '--namespace', 'acme', '--description', 'Invoices', '--merge-method', 'ff', '--initialize-with-readme', '-o', 'json']);
    expect(result.stderr).toBe('Created project acme/billing\n');
    expect(result.json()).toMatchObject({ path_with_namespace: 'acme/billing', description: 'Invoices', merge_method: 'ff' });
    expect(result.stderr).toContain('Created project acme/billing');
    const tree = await sandbox.call('GET', '/projects/acme%2Fbilling/repository/tree');
    expect(tree.body.map((entry: { name: string }) => entry.name)).toEqual(['README.md']);
    // The same name again: the service's validation, exit 6.
    const again = await sandbox.run(['projects', 'create', '--name', 'billing', '--namespace', 'acme']);
    expect(again.code).toBe(6);
    expect(again.stderr).toContain('has already been taken');
  });

  it('checks its input before sending', async () => {
    sandbox.clearRequests();
    expect((await sandbox.run(['projects', 'create', '--namespace', 'acme'])).code).toBe(2);
    expect((await sandbox.run(['projects', 'create', '--name', 'x', '--merge-method', 'squash'])).code).toBe(2);
    expect((await sandbox.run(['projects', 'update', 'acme/api'])).code).toBe(2);
    expect((await sandbox.run(['projects', 'update', 'acme/api', '--build-timeout', '5'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });

  it('updates the settings given, switches both ways, and the default branch only to an existing branch', async () => {
    const result = await sandbox.run(['projects', 'update', 'acme/api', '--squash-option', 'default_on', '--only-allow-merge-if-pipeline-succeeds', '--no-remove-source-branch-after-merge', '--topics', 'ruby,api', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ squash_option: 'default_on', only_allow_merge_if_pipeline_succeeds: true, remove_source_branch_after_merge: false, topics: ['ruby', 'api'] });
    const branch = await sandbox.run(['projects', 'update', 'acme/api', '--default-branch', 'no-such-branch']);
    expect(branch.code).toBe(6);
    expect(branch.stderr).toContain("Could not set the default branch. Do you have a branch named 'no-such-branch'");
    expect((await sandbox.run(['projects', 'update', 'acme/api', '--default-branch', 'feature/health', '-o', 'json'])).json().default_branch).toBe('feature/health');
    expect((await sandbox.run(['projects', 'update', 'acme/api', '--default-branch', 'main'])).code).toBe(0);
  });

  it('asks before a visibility that shows the project to more people, and not before a narrower one', async () => {
    await sandbox.run(['projects', 'create', '--path', 'widen', '--visibility', 'private']);
    sandbox.clearRequests();
    const asked = await sandbox.run(['projects', 'update', 'root/widen', '--visibility', 'public']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('confirmation needed: Make project root/widen public (now private)?');
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    expect((await sandbox.run(['projects', 'update', 'root/widen', '--visibility', 'public', '--yes', '-o', 'json'])).json().visibility).toBe('public');
    expect((await sandbox.run(['projects', 'update', 'root/widen', '--visibility', 'private'])).code).toBe(0);
  });

  it('archives and unarchives', async () => {
    const archived = await sandbox.run(['projects', 'archive', 'acme/web', '-o', 'json']);
    expect(archived.json().archived).toBe(true);
    expect(archived.stderr).toContain('Archived project acme/web');
    expect((await sandbox.run(['projects', 'unarchive', 'acme/web', '-o', 'json'])).json().archived).toBe(false);
  });

  it('transfers a project to another group after asking', async () => {
    expect((await sandbox.run(['groups', 'create', '--name', 'Platform', '--path', 'platform', '--parent', 'acme'])).code).toBe(0);
    expect((await sandbox.run(['projects', 'create', '--path', 'mover', '--namespace', 'acme'])).code).toBe(0);
    expect((await sandbox.run(['projects', 'transfer', 'acme/mover', '--namespace', 'acme/platform'])).code).toBe(2);
    const moved = await sandbox.run(['projects', 'transfer', 'acme/mover', '--namespace', 'acme/platform', '--yes', '-o', 'json']);
    expect(moved.code).toBe(0);
    expect(moved.json().path_with_namespace).toBe('acme/platform/mover');
  });

  it('deletes after saying what goes; delayed deletion says when, --permanently deletes now', async () => {
    expect((await sandbox.run(['projects', 'create', '--path', 'doomed', '--namespace', 'acme', '--initialize-with-readme'])).code).toBe(0);
    sandbox.clearRequests();
    const refused = await sandbox.run(['projects', 'delete', 'acme/doomed']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/Delete project acme\/doomed, with its repository \(1 commit, .* MB\), 0 open issues, and its merge requests, pipelines/);
    expect(sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
    const marked = await sandbox.run(['projects', 'delete', 'acme/doomed', '--yes']);
    expect(marked.code).toBe(0);
    // The administrator's token reads the instance's delay (7 days by default).
    expect(marked.stderr).toMatch(/Marked project acme\/doomed for deletion: it will really be deleted on \d{4}-\d{2}-\d{2} \(7 days after \d{4}-\d{2}-\d{2}\)/);
    expect((await sandbox.run(['projects', 'get', 'acme/doomed', '-o', 'json'])).json().marked_for_deletion_on).toMatch(/^\d{4}-/);
    expect(marked.stderr).toMatch(/can be restored \(forgectl api -X POST \/projects\/\d+\/restore\)/);
    sandbox.clearRequests();
    const again = await sandbox.run(['projects', 'delete', 'acme/doomed', '--yes']);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/Project acme\/doomed was marked for deletion already \(on \d{4}-\d{2}-\d{2}\); --permanently deletes it now/);
    expect(sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
    const gone = await sandbox.run(['projects', 'delete', 'acme/doomed', '--permanently', '--yes']);
    expect(gone.code).toBe(0);
    expect(gone.stderr).toContain('Deleted project acme/doomed');
    expect((await sandbox.run(['projects', 'get', 'acme/doomed'])).code).toBe(5);
  });

  it('a maintainer cannot delete (the Owner role): exit 4, nothing deleted', async () => {
    const result = await sandbox.run(['projects', 'delete', 'acme/web', '--yes'], { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('maintainer') } });
    expect(result.code).toBe(4);
    expect((await sandbox.run(['projects', 'get', 'acme/web', '-o', 'json'])).json().marked_for_deletion_on).toBeNull();
  });
});

describe('groups create|update|delete', () => {
  it('creates a subgroup under a parent named by path, with settings', async () => {
    const result = await sandbox.run(['groups', 'create', '--name', 'Data', '--path', 'data', '--parent', 'acme', '--project-creation-level', 'maintainer', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ full_path: 'acme/data', project_creation_level: 'maintainer' });
    expect((await sandbox.run(['groups', 'create', '--name', 'X'])).code).toBe(2);
  });

  it('updates settings; a visibility above the parent\'s is the service\'s refusal', async () => {
    const result = await sandbox.run(['groups', 'update', 'acme/data', '--subgroup-creation-level', 'owner', '--require-two-factor-authentication', '--no-request-access-enabled', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ subgroup_creation_level: 'owner', require_two_factor_authentication: true, request_access_enabled: false });
    expect((await sandbox.run(['groups', 'update', 'acme/data', '--visibility', 'public', '--yes'])).code).toBe(6);
  });

  it('deletes with a count of what goes, and honours delayed deletion', async () => {
    expect((await sandbox.run(['groups', 'create', '--name', 'Deep', '--path', 'deep', '--parent', 'acme/data'])).code).toBe(0);
    expect((await sandbox.run(['projects', 'create', '--path', 'p1', '--namespace', 'acme/data/deep'])).code).toBe(0);
    expect((await sandbox.run(['projects', 'create', '--path', 'p2', '--namespace', 'acme/data'])).code).toBe(0);
    const refused = await sandbox.run(['groups', 'delete', 'acme/data']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Delete group acme/data, with 1 subgroup and 2 projects');
    const marked = await sandbox.run(['groups', 'delete', 'acme/data', '--yes']);
    expect(marked.stderr).toContain('Marked group acme/data for deletion: it will really be deleted on');
    // The restore command the note gives takes the mark back.
    const restore = /can be restored \(forgectl (api -X POST \/groups\/\d+\/restore)\)/.exec(marked.stderr);
    expect(restore).not.toBeNull();
    expect((await sandbox.run(restore![1].split(' '))).code).toBe(0);
    expect((await sandbox.run(['groups', 'get', 'acme/data', '-o', 'json'])).json().marked_for_deletion_on).toBeNull();
    const gone = await sandbox.run(['groups', 'delete', 'acme/data', '--permanently', '--yes']);
    expect(gone.code).toBe(0);
    expect(gone.stderr).toContain('Deleted group acme/data');
    expect((await sandbox.run(['projects', 'get', 'acme/data/deep/p1'])).code).toBe(5);
  });
});
