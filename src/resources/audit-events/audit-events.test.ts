import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { tokens } from '../../sandbox/model.js';

/** The sandbox's clock: fixed and moved by the tests, so event times are the sandbox's own. */
let clock = new Date('2026-11-24T10:12:00Z');
const sandbox = useTestSandbox({ now: () => clock });
const tokenOf = (name: string) => tokens(sandbox.db).find((t) => t.name === `${name}-token`)!.token;

describe('audit-events list', () => {
  it('lists the seeded history of a project, newest first, with who, when, what and the target', async () => {
    const result = await sandbox.run(['audit-events', 'list', '--project', 'acme/api']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n').map((line) => line.split('\t'));
    expect(lines[0].slice(1)).toEqual(['2026-11-21T10:22:00.000Z', 'Alice Maintainer', 'changed approvals_required: 0 → 1', 'ApprovalProjectRule Maintainers']);
    expect(lines.map((cells) => cells[2])).toContain('Administrator');
    const ids = lines.map((cells) => Number(cells[0]));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it('records every change made through the API, with the author, the target and what changed (at the sandbox clock)', async () => {
    clock = new Date('2026-11-24T11:00:00Z');
    const created = await sandbox.run(['badges', 'create', '--project', 'acme/api', '--name', 'pipeline', '--link-url', 'https://ci.example.com/a', '--image-url', 'https://ci.example.com/a.svg', '-o', 'json']);
    expect(created.code).toBe(0);
    const id = String(created.json().id);
    clock = new Date('2026-11-24T11:05:00Z');
    // alice changes it by hand, with her own token
    expect((await sandbox.run(['badges', 'update', id, '--project', 'acme/api', '--link-url', 'https://ci.example.com/b'], { env: { FORGECTL_TOKEN: tokenOf('alice') } })).code).toBe(0);
    clock = new Date('2026-11-24T11:10:00Z');
    expect((await sandbox.run(['badges', 'delete', id, '--project', 'acme/api', '--yes'])).code).toBe(0);

    const result = await sandbox.run(['audit-events', 'list', '--project', 'acme/api', '--since', '2026-11-24T10:59:00Z', '-o', 'json']);
    expect(result.code).toBe(0);
    const events = result.json();
    expect(events.map((e: { created_at: string; author: string; action: string; target: string }) => [e.created_at, e.author, e.action, e.target])).toEqual([
      ['2026-11-24T11:10:00.000Z', 'Administrator', 'removed badge', 'Badge pipeline'],
      ['2026-11-24T11:05:00.000Z', 'Alice Maintainer', 'changed link_url: https://ci.example.com/a → https://ci.example.com/b', 'Badge pipeline'],
      ['2026-11-24T11:00:00.000Z', 'Administrator', 'added badge', 'Badge pipeline'],
    ]);
    expect(events[1]).toMatchObject({ entity_type: 'Project', event_name: 'badge_updated', details: { target_id: Number(id), target_type: 'Badge', entity_path: 'acme/api', from: 'https://ci.example.com/a', to: 'https://ci.example.com/b' } });
  });

  it('filters by author and time window, and names the administrator behind a sudo', async () => {
    clock = new Date('2026-11-24T12:00:00Z');
    const sudo = await sandbox.call('POST', '/projects/acme%2Fweb/badges?sudo=alice', { name: 'sudo-badge', link_url: 'https://x.example.com', image_url: 'https://x.example.com/i.svg' });
    expect(sudo.status).toBe(201);
    const byAlice = await sandbox.run(['audit-events', 'list', '--project', 'acme/web', '--author', 'alice', '--since', '2026-11-24T11:30:00Z', '-o', 'json']);
    expect(byAlice.code).toBe(0);
    expect(byAlice.json()).toHaveLength(1);
    expect(byAlice.json()[0].details).toMatchObject({ author_name: 'Alice Maintainer', impersonated_by: 'Administrator', target_details: 'sudo-badge' });
    const before = await sandbox.run(['audit-events', 'list', '--project', 'acme/web', '--until', '2026-11-20T00:00:00Z', '-o', 'json']);
    expect(before.json().map((e: { action: string }) => e.action)).toEqual(['added project']);
  });

  it('lists the instance (administrators), filtered by entity; a group list holds the group events', async () => {
    const project = await sandbox.run(['audit-events', 'list', '--entity', 'project:acme/web', '--all', '-o', 'json']);
    expect(project.code).toBe(0);
    expect(new Set(project.json().map((e: { entity_type: string; details: { entity_path: string } }) => `${e.entity_type} ${e.details.entity_path}`))).toEqual(new Set(['Project acme/web']));
    const instance = await sandbox.run(['audit-events', 'list', '--entity', 'instance']);
    expect(instance.stdout).toContain('changed signup_enabled: true → false');
    const group = await sandbox.run(['audit-events', 'list', '--group', 'acme']);
    expect(group.stdout).toContain('added user_access as Developer\tUser bob');
    const notAdmin = await sandbox.run(['audit-events', 'list'], { env: { FORGECTL_TOKEN: tokenOf('alice') } });
    expect(notAdmin.code).toBe(4);
  });

  it('--entity user: takes a username as --author does, looked up to the ID the service filters by', async () => {
    const byId = await sandbox.run(['audit-events', 'list', '--entity', 'user:3', '--all', '-o', 'json']);
    sandbox.clearRequests();
    const byName = await sandbox.run(['audit-events', 'list', '--entity', 'user:bob', '--all', '-o', 'json']);
    expect(byName.code).toBe(0);
    expect(byName.stdout).toBe(byId.stdout);
    expect(sandbox.requests().some((r) => r.path.includes('entity_type=User') && r.path.includes('entity_id=3'))).toBe(true);
    const unknown = await sandbox.run(['audit-events', 'list', '--entity', 'user:nosuchuser']);
    expect(unknown.code).toBe(2);
  });

  it('refuses bad input before sending anything', async () => {
    sandbox.clearRequests();
    for (const argv of [
      ['--since', 'yesterday'],
      ['--entity', 'planet:3'],
      ['--project', 'acme/api', '--entity', 'project'],
      ['--project', 'acme/api', '--group', 'acme'],
      ['--since', '1d', '--until', '2d'],
    ]) {
      const result = await sandbox.run(['audit-events', 'list', ...argv]);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(sandbox.requests()).toEqual([]);
  });

  it('answers 403 on the free tier', async () => {
    const { startTestSandbox } = await import('../../../test/helpers/cli.js');
    const free = await startTestSandbox({ tier: 'free' });
    try {
      expect((await free.run(['audit-events', 'list', '--project', 'acme/api'])).code).toBe(4);
    } finally {
      await free.close();
    }
  });
});
