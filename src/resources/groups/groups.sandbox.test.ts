import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();
/** The token of a Developer of acme/web and of acme/tools/lint (a project of a subgroup), member of no group. */
let developer: string;
/** The token of a signed-in user who is a member of nothing. */
let outsider: string;

beforeAll(async () => {
  const made = sandbox.create;
  const user = await made('/users', { username: 'webdev', name: 'Web Developer', email: 'webdev@example.com', password: 'long-enough-pw' });
  const nobody = await made('/users', { username: 'nobody', name: 'Nobody', email: 'nobody@example.com', password: 'long-enough-pw' });
  const acme = (await sandbox.call('GET', '/groups/acme')).body.id as number;
  const tools = await made('/groups', { name: 'Tools', path: 'tools', parent_id: acme });
  await made('/groups', { name: 'Secret', path: 'secret', parent_id: acme });
  const lint = await made('/projects', { name: 'lint', path: 'lint', namespace_id: tools.id });
  const partners = await made('/groups', { name: 'Partners', path: 'partners' });
  await made('/groups', { name: 'Open', path: 'open', visibility: 'public' });
  await made('/projects/acme%2Fweb/members', { user_id: user.id, access_level: 30 });
  await made(`/projects/${lint.id}/members`, { user_id: user.id, access_level: 30 });
  await made('/projects/acme%2Fweb/share', { group_id: partners.id, group_access: 20 });
  developer = sandbox.tokenOf(user.id, 'webdev-token');
  outsider = sandbox.tokenOf(nobody.id, 'nobody-token');
});

const status = async (path: string, token: string) => (await sandbox.call('GET', path, undefined, token)).status;

describe('sandbox: who reads a group', () => {
  it('a member of a project only reads the private groups above it, not their members, nor other projects', async () => {
    const acme = await sandbox.call('GET', '/groups/acme', undefined, developer);
    expect([acme.status, acme.body.full_path]).toEqual([200, 'acme']);
    expect(await status('/groups/acme%2Ftools', developer)).toBe(200);
    expect(await status('/groups/acme/members', developer)).toBe(403);
    expect(await status('/groups/acme/members/all', developer)).toBe(403);
    const projects = await sandbox.call('GET', '/groups/acme/projects?include_subgroups=true', undefined, developer);
    expect((projects.body as Array<{ path_with_namespace: string }>).map((p) => p.path_with_namespace).sort()).toEqual(['acme/tools/lint', 'acme/web']);
    const subgroups = await sandbox.call('GET', '/groups/acme/subgroups', undefined, developer);
    expect((subgroups.body as Array<{ full_path: string }>).map((g) => g.full_path)).toEqual(['acme/tools']);
    const listed = await sandbox.call('GET', '/groups', undefined, developer);
    expect((listed.body as Array<{ full_path: string }>).map((g) => g.full_path).sort()).toEqual(['acme', 'acme/tools']);
    // A subgroup without a project they see stays hidden, and so does a group acme/web is only shared with.
    expect(await status('/groups/acme%2Fsecret', developer)).toBe(404);
    expect(await status('/groups/partners', developer)).toBe(404);
    // Reading is not changing.
    expect((await sandbox.call('PUT', '/groups/acme', { description: 'mine' }, developer)).status).toBe(403);
  });

  it('a private group stays hidden from the signed-in users who see none of its projects', async () => {
    expect(await status('/groups/acme', outsider)).toBe(404);
    expect(await status('/groups/acme/members', outsider)).toBe(404);
  });

  it('a public group, its subgroups and its members are read by everyone signed in, members or not', async () => {
    expect(await status('/groups/open', outsider)).toBe(200);
    expect(await status('/groups/open/members', outsider)).toBe(200);
    expect(await status('/groups/open/subgroups', outsider)).toBe(200);
  });
});
