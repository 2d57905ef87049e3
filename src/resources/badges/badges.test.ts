import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { tokens } from '../../sandbox/model.js';

const sandbox = useTestSandbox();

describe('badges', () => {
  it('creates a badge and lists it rendered, beside the group badge of acme', async () => {
    const created = await sandbox.run([
      'badges', 'create', '--project', 'acme/api', '--name', 'ci',
      '--link-url', 'https://ci.example.com/%{project_path}', '--image-url', 'https://ci.example.com/%{project_id}/%{default_branch}.svg', '-o', 'json',
    ]);
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ name: 'ci', kind: 'project', rendered_link_url: 'https://ci.example.com/acme/api', rendered_image_url: 'https://ci.example.com/1/main.svg' });

    const list = await sandbox.run(['badges', 'list', '--project', 'acme/api', '-o', 'json']);
    const badges = list.json<Array<{ name: string; kind: string; rendered_link_url: string }>>();
    expect(badges.find((b) => b.name === 'ci')?.rendered_link_url).toBe('https://ci.example.com/acme/api');
    expect(badges.find((b) => b.name === 'pipeline')?.kind).toBe('group');

    const piped = await sandbox.run(['badges', 'list', '--project', 'acme/api', '--name', 'ci']);
    expect(piped.stdout).toBe(`${created.json().id}\tproject\tci\thttps://ci.example.com/acme/api\thttps://ci.example.com/1/main.svg\n`);
  });

  it('previews the rendering without creating anything', async () => {
    const result = await sandbox.run(['badges', 'preview', '--project', 'acme/web', '--link-url', 'https://x.example.com/%{project_namespace}/%{project_name}', '--image-url', 'https://x.example.com/b.svg?s=%{gitlab_server}', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ rendered_link_url: 'https://x.example.com/acme/web', rendered_image_url: 'https://x.example.com/b.svg?s=127.0.0.1' });
  });

  it('checks URLs and arguments before sending', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['badges', 'create', '--project', 'acme/api', '--link-url', 'https://%{gitlab_server}/x', '--image-url', 'https://x.example.com/b.svg']);
    expect(result.code).toBe(2);
    expect((await sandbox.run(['badges', 'update', '3', '--project', 'acme/api'])).code).toBe(2);
    expect((await sandbox.run(['badges', 'get', 'abc', '--project', 'acme/api'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });

  it('updates and deletes a project badge, asking first', async () => {
    const id = String((await sandbox.run(['badges', 'create', '--project', 'acme/api', '--link-url', 'https://a.example.com', '--image-url', 'https://a.example.com/i.svg', '-o', 'json'])).json().id);
    const updated = await sandbox.run(['badges', 'update', id, '--project', 'acme/api', '--name', 'renamed', '-o', 'json']);
    expect(updated.json().name).toBe('renamed');

    sandbox.clearRequests();
    expect((await sandbox.run(['badges', 'delete', id, '--project', 'acme/api'])).code).toBe(2);
    expect(sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
    expect((await sandbox.run(['badges', 'delete', id, '--project', 'acme/api', '--yes'])).code).toBe(0);
    expect((await sandbox.run(['badges', 'get', id, '--project', 'acme/api'])).code).toBe(5);
  });

  it('refuses to delete a group badge through the project, before asking', async () => {
    const group = (await sandbox.run(['badges', 'list', '--project', 'acme/api', '-o', 'json'])).json<Array<{ id: number; kind: string }>>().find((b) => b.kind === 'group')!;
    sandbox.clearRequests();
    const result = await sandbox.run(['badges', 'delete', String(group.id), '--project', 'acme/api', '--yes']);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('group badge');
    expect(sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
  });

  it('refuses to change a group badge through the project: it shows on every project of the group', async () => {
    const group = (await sandbox.run(['badges', 'list', '--project', 'acme/api', '-o', 'json'])).json<Array<{ id: number; kind: string; name: string }>>().find((b) => b.kind === 'group')!;
    sandbox.clearRequests();
    const result = await sandbox.run(['badges', 'update', String(group.id), '--project', 'acme/api', '--name', 'renamed']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`badge ${group.id} is a group badge`);
    expect(result.stderr).toContain(`forgectl group-badges update ${group.id} --group acme`);
    expect(sandbox.requests().filter((r) => r.method === 'PUT')).toEqual([]);
    const after = await sandbox.run(['group-badges', 'get', String(group.id), '--group', 'acme', '-o', 'json']);
    expect(after.json().name).toBe(group.name);
  });

  it('needs Maintainer to create; a developer may list', async () => {
    const bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
    const args = ['badges', 'create', '--project', 'acme/api', '--link-url', 'https://a.example.com', '--image-url', 'https://a.example.com/i.svg'];
    expect((await sandbox.run(args, { env: { FORGECTL_TOKEN: bob } })).code).toBe(4);
    expect((await sandbox.run(['badges', 'list', '--project', 'acme/api'], { env: { FORGECTL_TOKEN: bob } })).code).toBe(0);
  });
});
