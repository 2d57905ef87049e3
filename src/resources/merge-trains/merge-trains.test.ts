import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../../test/helpers/cli.js';
import { mergeRequests, tokens } from '../../sandbox/model.js';

let sandbox: TestSandbox;
let free: TestSandbox;
beforeAll(async () => {
  [sandbox, free] = await Promise.all([startTestSandbox(), startTestSandbox({ tier: 'free' })]);
});
afterAll(() => Promise.all([sandbox.close(), free.close()]));

const mr1 = () => mergeRequests(sandbox.db).find((m) => m.project_id === 1 && m.iid === 1)!;

describe('merge-trains', () => {
  it('lists the completed train of the seed, filtered by scope and branch', async () => {
    const complete = await sandbox.run(['merge-trains', 'list', '--project', 'acme/api', '--scope', 'complete', '-o', 'json']);
    expect(complete.code).toBe(0);
    expect(complete.json()).toMatchObject([{ status: 'merged', target_branch: 'main', merge_request: { title: 'Set up the CI pipeline' }, duration: 420 }]);
    const active = await sandbox.run(['merge-trains', 'list', '--project', 'acme/api', '--branch', 'main', '--scope', 'active', '-o', 'json']);
    expect(active.json()).toEqual([]);
    expect((await sandbox.run(['merge-trains', 'list', '--project', 'acme/api', '--scope', 'all'])).code).toBe(2);
  });

  it('refuses an unapproved merge request, schedules it with --auto-merge, and lets it join when approved', async () => {
    const refused = await sandbox.run(['merge-trains', 'add', '--project', 'acme/api', '--mr', '1']);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain('not_approved');

    const scheduled = await sandbox.run(['merge-trains', 'add', '--project', 'acme/api', '--mr', '1', '--auto-merge', '--squash', '-o', 'json']);
    expect(scheduled.code).toBe(0);
    expect(scheduled.stderr).toContain('will join the merge train when its checks pass');
    expect((await sandbox.run(['merge-trains', 'get', '--project', 'acme/api', '--mr', '1'])).code).toBe(5);

    expect((await sandbox.run(['approvals', 'approve', '--project', 'acme/api', '--mr', '1'])).code).toBe(0);
    const entry = await sandbox.run(['merge-trains', 'get', '--project', 'acme/api', '--mr', '1', '-o', 'json']);
    expect(entry.code).toBe(0);
    expect(entry.json()).toMatchObject({ status: 'idle', target_branch: 'main', merge_request: { iid: 1 }, user: { username: 'root' }, pipeline: { ref: 'refs/merge-requests/1/train' } });

    const piped = await sandbox.run(['merge-trains', 'list', '--project', 'acme/api', '--scope', 'active']);
    expect(piped.stdout).toMatch(/^\d+\t1\tAdd health endpoint\tmain\tidle\troot\trunning\t\S+\t\n$/);

    const twice = await sandbox.run(['merge-trains', 'add', '--project', 'acme/api', '--mr', '1']);
    expect(twice.code).toBe(6);
  });

  it('checks --sha locally and against HEAD', async () => {
    sandbox.clearRequests();
    expect((await sandbox.run(['merge-trains', 'add', '--project', 'acme/api', '--mr', '1', '--sha', 'HEAD'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
    const stale = await sandbox.run(['merge-trains', 'add', '--project', 'acme/api', '--mr', '1', '--sha', 'f'.repeat(40)]);
    expect(stale.code).toBe(6);
    expect(stale.stderr).toContain(`SHA does not match HEAD of source branch: ${mr1().sha}`);
  });

  it('answers 403 (exit 4) on the free tier; Developers read trains but may not merge into main', async () => {
    const result = await free.run(['merge-trains', 'list', '--project', 'acme/api']);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('403');
    const bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
    // bob is a Developer: he may read trains, but may not merge into the protected main branch.
    expect((await sandbox.run(['merge-trains', 'list', '--project', 'acme/api'], { env: { FORGECTL_TOKEN: bob } })).code).toBe(0);
    const add = await sandbox.run(['merge-trains', 'add', '--project', 'acme/api', '--mr', '1'], { env: { FORGECTL_TOKEN: bob } });
    expect(add.code).toBe(4);
    expect(add.stderr).toContain('401');
  });
});
