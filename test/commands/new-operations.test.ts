import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

/** Operations the service's documentation shows that users expect of forgectl: each against the sandbox. */
const sandbox = useTestSandbox();
const runnerNamed = async (description: string): Promise<{ id: number }> =>
  (await sandbox.call('GET', '/runners/all?per_page=100')).body.find((r: { description: string }) => r.description === description);
const writes = () => sandbox.requests().filter((r) => r.method !== 'GET');

describe('audit-events get and deploy-tokens get', () => {
  it('audit-events get reads one event of a project, a group or the instance, with the list\'s words', async () => {
    const listed = (await sandbox.run(['audit-events', 'list', '--project', 'acme/api', '-o', 'json'])).json();
    const one = await sandbox.run(['audit-events', 'get', String(listed[0].id), '--project', 'acme/api', '-o', 'json']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.json()).toEqual(listed[0]);
    const fields = await sandbox.run(['audit-events', 'get', String(listed[0].id), '--project', 'acme/api', '--fields', 'author,action']);
    expect(fields.stdout).toBe(`author\t${listed[0].author}\naction\t${listed[0].action}\n`);
    const instance = (await sandbox.run(['audit-events', 'list', '-o', 'json'])).json();
    expect((await sandbox.run(['audit-events', 'get', String(instance[0].id), '--instance', '-o', 'json'])).json().id).toBe(instance[0].id);
    expect((await sandbox.run(['audit-events', 'get', '99999', '--group', 'acme'])).code).toBe(5);
  });

  it('deploy-tokens get reads one token of a project or a group, never its value', async () => {
    const listed = (await sandbox.run(['deploy-tokens', 'list', '--project', 'acme/api', '-o', 'json'])).json();
    const one = await sandbox.run(['deploy-tokens', 'get', String(listed[0].id), '--project', 'acme/api', '-o', 'json']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.json()).toEqual(listed[0]);
    expect(one.json().token).toBeUndefined();
    const group = (await sandbox.run(['deploy-tokens', 'list', '--group', 'acme', '-o', 'json'])).json();
    expect((await sandbox.run(['deploy-tokens', 'get', String(group[0].id), '--group', 'acme', '--fields', 'name'])).stdout).toBe(`name\t${group[0].name}\n`);
    expect((await sandbox.run(['deploy-tokens', 'get', String(group[0].id), '--project', 'acme/api'])).code).toBe(5);
  });
});

describe('tags list --search', () => {
  it('names containing the text, starting with ^text', async () => {
    const all = (await sandbox.run(['tags', 'list', '--project', 'acme/api', '--fields', 'name'])).stdout.trim().split('\n');
    const found = (await sandbox.run(['tags', 'list', '--project', 'acme/api', '--search', '^v1', '--fields', 'name'])).stdout.trim().split('\n');
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((name) => name.startsWith('v1'))).toBe(true);
    expect(found).toEqual(all.filter((name) => name.startsWith('v1')));
  });
});

describe('runners assign, unassign and create', () => {
  it('the sandbox assigns a project runner to another project and unassigns it, as the service does', async () => {
    const gpu = await runnerNamed('api-gpu');
    expect((await sandbox.call('POST', '/projects/acme%2Fweb/runners', { runner_id: gpu.id })).status).toBe(201);
    expect(await sandbox.call('POST', '/projects/acme%2Fweb/runners', { runner_id: gpu.id })).toEqual({ status: 400, body: { message: { assign_to: ['Validation failed: Runner has already been taken'] } } });
    const group = await runnerNamed('acme-k8s');
    expect(await sandbox.call('POST', '/projects/acme%2Fweb/runners', { runner_id: group.id })).toEqual({ status: 403, body: { message: '403 Forbidden - Runner is a group runner' } });
    // api-gpu is locked: a Maintainer (not an administrator) may not move it.
    const maintainer = sandbox.tokenWithRole('maintainer');
    expect((await sandbox.call('DELETE', `/projects/acme%2Fweb/runners/${gpu.id}`, undefined, maintainer)).body).toEqual({ message: '403 Forbidden - Runner is locked' });
    expect((await sandbox.call('DELETE', `/projects/acme%2Fweb/runners/${gpu.id}`)).status).toBe(204);
    expect(await sandbox.call('DELETE', `/projects/acme%2Fapi/runners/${gpu.id}`)).toEqual({ status: 403, body: { message: '403 Forbidden - Only one project associated with the runner. Please remove the runner instead' } });
    expect((await sandbox.call('DELETE', `/projects/acme%2Fweb/runners/${gpu.id}`)).status).toBe(404);
  });

  it('runners assign and unassign: asked before unassigning, refused before sending from the last project', async () => {
    const gpu = await runnerNamed('api-gpu');
    const assigned = await sandbox.run(['runners', 'assign', String(gpu.id), '--project', 'acme/web', '-o', 'json']);
    expect(assigned.code, assigned.stderr).toBe(0);
    expect(assigned.json()).toMatchObject({ id: gpu.id, description: 'api-gpu' });
    expect(assigned.stderr).toBe(`Assigned runner ${gpu.id} ("api-gpu") to project acme/web\n`);
    const project = (await sandbox.run(['runners', 'list', '--project', 'acme/web', '-o', 'json'])).json();
    expect(project.map((r: { id: number }) => r.id)).toContain(gpu.id);
    const group = await runnerNamed('acme-k8s');
    const refused = await sandbox.run(['runners', 'assign', String(group.id), '--project', 'acme/web']);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('hint: a group runner serves every project of its group already');
    sandbox.clearRequests();
    const asked = await sandbox.run(['runners', 'unassign', String(gpu.id), '--project', 'acme/web']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain(`error: confirmation needed: Unassign runner ${gpu.id} ("api-gpu") from project acme/web? It stays with acme/api`);
    expect((await sandbox.run(['runners', 'unassign', String(gpu.id), '--project', 'acme/web', '--yes'])).code).toBe(0);
    const last = await sandbox.run(['runners', 'unassign', String(gpu.id), '--project', 'acme/api', '--yes']);
    expect(last.code).toBe(4);
    expect(last.stderr).toBe(`error: project acme/api is the only project of runner ${gpu.id} ("api-gpu"): the service does not unassign a runner from its last project; nothing was sent\nhint: to remove the runner: forgectl runners delete ${gpu.id}\n`);
    const elsewhere = await sandbox.run(['runners', 'unassign', String(gpu.id), '--project', 'acme/web', '--yes']);
    expect(elsewhere.code).toBe(5);
    expect(writes()).toEqual([{ method: 'DELETE', path: `/api/v4/projects/acme%2Fweb/runners/${gpu.id}`, status: 204 }]);
  });

  it('runners create hands over the authentication token once: printed, or written 0600 and not printed', async () => {
    const printed = await sandbox.run(['runners', 'create', '--project', 'acme/api', '--description', 'api-builds', '--tag-list', 'docker,linux', '-o', 'json']);
    expect(printed.code, printed.stderr).toBe(0);
    const made = printed.json();
    expect(made).toMatchObject({ id: expect.any(Number), token: expect.stringMatching(/^glrt-/) });
    expect((await sandbox.call('POST', '/runners/verify', { token: made.token })).status).toBe(200);
    expect((await sandbox.call('GET', `/runners/${made.id}`)).body).toMatchObject({ description: 'api-builds', runner_type: 'project_type', tag_list: ['docker', 'linux'], projects: [expect.objectContaining({ path_with_namespace: 'acme/api' })] });
    const dir = tempDir();
    const file = join(dir, 'runner.token');
    const written = await sandbox.run(['runners', 'create', '--group', 'acme', '--description', 'acme-arm2', '--no-run-untagged', '--tag-list', 'arm64', '--output-file', file, '-o', 'json']);
    expect(written.code, written.stderr).toBe(0);
    expect(written.json().token).toBeUndefined();
    const token = readFileSync(file, 'utf8').trim();
    expect(token).toMatch(/^glrt-/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(written.stdout + written.stderr).not.toContain(token);
    expect((await sandbox.call('GET', `/runners/${written.json().id}`)).body).toMatchObject({ runner_type: 'group_type', run_untagged: false, groups: [expect.objectContaining({ name: 'Acme' })] });
    // Refused before anything is sent: no owner, two owners, a folder that takes no file.
    sandbox.clearRequests();
    expect((await sandbox.run(['runners', 'create', '--description', 'x'])).stderr).toBe('error: whose runner? give --instance, --group or --project\n');
    expect((await sandbox.run(['runners', 'create', '--instance', '--group', 'acme'])).code).toBe(2);
    const unwritable = await sandbox.run(['runners', 'create', '--instance', '--output-file', join(dir, 'missing', 'x.token')]);
    expect(unwritable.stderr).toBe(`error: --output-file: folder ${join(dir, 'missing')} does not exist\n`);
    expect(writes()).toEqual([]);
  });
});
