import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { users } from '../../sandbox/model.js';

/**
 * The sandbox records an audit event for every change made through it, generically (where writes are dispatched):
 * modules that say nothing about audit events get them, with the target named by the record's key.
 */
let clock = new Date('2026-11-24T09:00:00Z');
const sandbox = useTestSandbox({ now: () => clock, users: 1 });
const newest = async (path: string) => (await sandbox.call('GET', `${path}?per_page=1`)).body[0];

describe('audit events of the sandbox', () => {
  it('records members added, changed and removed: the user as target, the access level from and to', async () => {
    const user1 = users(sandbox.db).find((u) => u.username === 'user1')!;
    expect((await sandbox.call('POST', '/projects/acme%2Fweb/members', { user_id: user1.id, access_level: 30 })).status).toBe(201);
    expect(await newest('/projects/acme%2Fweb/audit_events')).toMatchObject({
      entity_type: 'Project', event_name: 'member_created', created_at: '2026-11-24T09:00:00.000Z',
      details: { add: 'member', target_type: 'User', target_id: user1.id, target_details: 'user1', author_name: 'Administrator', entity_path: 'acme/web' },
    });
    clock = new Date('2026-11-24T09:01:00Z');
    expect((await sandbox.call('PUT', `/projects/acme%2Fweb/members/${user1.id}`, { access_level: 40 })).status).toBe(200);
    expect((await newest('/projects/acme%2Fweb/audit_events')).details).toMatchObject({ change: 'access_level', from: 30, to: 40, target_details: 'user1' });
    expect((await sandbox.call('DELETE', `/projects/acme%2Fweb/members/${user1.id}`)).status).toBe(204);
    expect((await newest('/projects/acme%2Fweb/audit_events')).details).toMatchObject({ remove: 'member', target_type: 'User', target_details: 'user1' });
  });

  it('records nothing for a refused write or a read', async () => {
    const count = (await sandbox.call('GET', '/audit_events?per_page=100')).body.length;
    expect((await sandbox.call('POST', '/projects/acme%2Fweb/members', { user_id: 999999, access_level: 30 })).status).toBe(404);
    await sandbox.call('GET', '/projects/acme%2Fweb/members');
    expect((await sandbox.call('GET', '/audit_events?per_page=100')).body.length).toBe(count);
  });

  it('pages by offset and by keyset, newest first, and checks its filters', async () => {
    const all = (await sandbox.call('GET', '/audit_events?per_page=100')).body.map((e: { id: number }) => e.id);
    const first = await sandbox.call('GET', '/audit_events?pagination=keyset&order_by=id&sort=desc&per_page=2');
    expect(first.body.map((e: { id: number }) => e.id)).toEqual(all.slice(0, 2));
    const next = await fetch(/<([^>]+)>; rel="next"/.exec(first.headers.get('link')!)![1], { headers: { 'PRIVATE-TOKEN': sandbox.adminToken } });
    expect(((await next.json()) as Array<{ id: number }>).map((e) => e.id)).toEqual(all.slice(2, 4));
    expect((await sandbox.call('GET', '/audit_events?created_after=soon')).status).toBe(400);
    expect((await sandbox.call('GET', '/audit_events?entity_type=Planet')).status).toBe(400);
    expect((await sandbox.call('GET', '/audit_events/999999')).status).toBe(404);
  });
});

describe('audit events of instance settings and named records', () => {
  it('names the instance settings as ApplicationSetting with the field changed, and a record by the name in its path', async () => {
    expect((await sandbox.call('PUT', '/application/settings', { max_attachment_size: 123 })).status).toBe(200);
    const settings = await newest('/audit_events');
    expect(settings).toMatchObject({ entity_type: 'Gitlab::Audit::InstanceScope', details: { target_type: 'ApplicationSetting', change: 'max_attachment_size', to: 123 } });
    expect((await sandbox.call('PUT', '/groups/acme/integrations/bugzilla', { issues_url: 'https://bugs.example.org/show_bug.cgi?id=:id', new_issue_url: 'https://bugs.example.org/new', project_url: 'https://bugs.example.org' })).status).toBe(200);
    expect((await newest('/groups/acme/audit_events')).details).toMatchObject({ target_type: 'Integration', target_details: 'bugzilla' });
  });

  it('says who an access list allows in words, not as JSON, and names a runner by its description', async () => {
    expect((await sandbox.call('POST', '/projects/acme%2Fweb/protected_branches', { name: 'audit-*', merge_access_level: 40 })).status).toBe(201);
    expect((await sandbox.call('PATCH', '/projects/acme%2Fweb/protected_branches/audit-*', { allowed_to_merge: [{ access_level: 30 }] })).status).toBe(200);
    const changed = (await newest('/projects/acme%2Fweb/audit_events')).details;
    expect(changed).toMatchObject({ change: 'merge_access_levels', from: 'Maintainers', to: 'Maintainers, Developers + Maintainers' });
    const runner = (await sandbox.call('GET', '/runners/all?per_page=100')).body.find((r: { description: string }) => r.description === 'acme-k8s');
    expect((await sandbox.call('PUT', `/runners/${runner.id}`, { paused: true })).status).toBe(200);
    expect((await newest('/audit_events')).details).toMatchObject({ target_type: 'Ci::Runner', target_details: 'acme-k8s' });
  });
});
