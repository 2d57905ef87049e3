import { beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';
import { tokens, users } from '../../sandbox/model.js';

const sandbox = useTestSandbox();
let bob: string;
let alice: string;
beforeAll(() => {
  bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
  alice = tokens(sandbox.db).find((t) => t.name === 'alice-token')!.token;
});

const call = (...args: Parameters<TestSandbox['call']>) => sandbox.call(...args);
const iids = (body: Array<{ iid: number }>) => body.map((r) => r.iid);

describe('sandbox: merge requests', () => {
  it('refuses an update to a target branch that does not exist with 422 and changes nothing the same request gave', async () => {
    const before = (await call('GET', '/projects/acme%2Fapi/merge_requests/1')).body;
    expect(await call('PUT', '/projects/acme%2Fapi/merge_requests/1', { title: 'renamed', target_branch: 'nope' })).toEqual({ status: 422, body: { message: ['Target branch does not exist'] } });
    expect((await call('GET', '/projects/acme%2Fapi/merge_requests/1')).body).toMatchObject({ title: before.title, target_branch: before.target_branch, updated_at: before.updated_at });
  });

  it('lists and gets merge requests with the service\'s fields', async () => {
    const list = await call('GET', '/projects/acme%2Fapi/merge_requests');
    expect(list.body[0]).toMatchObject({
      iid: 1, state: 'opened', source_branch: 'feature/health', target_branch: 'main', author: { username: 'bob' }, references: { full: 'acme/api!1' },
      detailed_merge_status: 'mergeable', draft: false,
    });
    const one = await call('GET', '/projects/acme%2Fapi/merge_requests/1');
    expect(one.body).toMatchObject({ iid: 1, diff_refs: { head_sha: list.body[0].sha }, user: { can_merge: true } });
    expect(await call('GET', '/projects/acme%2Fapi/merge_requests/9')).toEqual({ status: 404, body: { message: '404 Merge Request Not Found' } });
  });

  // The seed's merge train holds a merged !2, so the first new merge request is !3.
  it('creates from existing branches (201), refuses missing branches (422) and duplicates (409)', async () => {
    const file = await call('POST', '/projects/acme%2Fapi/repository/files/two.txt', { branch: 'feature/two', start_branch: 'main', content: 'two', commit_message: 'two' });
    expect(file.status).toBe(201);
    const created = await call('POST', '/projects/acme%2Fapi/merge_requests', { source_branch: 'feature/two', target_branch: 'main', title: 'Draft: two' }, bob);
    expect(created).toMatchObject({ status: 201, body: { iid: 3, draft: true, author: { username: 'bob' }, state: 'opened' } });
    expect(await call('POST', '/projects/acme%2Fapi/merge_requests', { source_branch: 'feature/two', target_branch: 'main', title: 'again' })).toEqual({
      status: 409, body: { message: ['Another open merge request already exists for this source branch: !3'] },
    });
    expect(await call('POST', '/projects/acme%2Fapi/merge_requests', { source_branch: 'nope', target_branch: 'main', title: 'x' })).toEqual({ status: 422, body: { message: ['Source branch does not exist'] } });
    expect((await call('POST', '/projects/acme%2Fapi/merge_requests', { source_branch: 'feature/two', target_branch: 'main' })).body).toEqual({ error: 'title is missing' });
  });

  it('filters by state, author, iids, search and branch; closes and reopens', async () => {
    expect(iids((await call('GET', '/projects/acme%2Fapi/merge_requests?author_username=bob&order_by=created_at&sort=asc')).body)).toEqual([1, 3]);
    expect(iids((await call('GET', '/projects/acme%2Fapi/merge_requests?iids[]=3')).body)).toEqual([3]);
    expect(iids((await call('GET', '/projects/acme%2Fapi/merge_requests?search=health')).body)).toEqual([1]);
    expect(iids((await call('GET', '/projects/acme%2Fapi/merge_requests?source_branch=feature/two')).body)).toEqual([3]);
    expect((await call('PUT', '/projects/acme%2Fapi/merge_requests/3', { state_event: 'close' })).body).toMatchObject({ state: 'closed', closed_by: { username: 'root' } });
    expect(iids((await call('GET', '/projects/acme%2Fapi/merge_requests?state=opened')).body)).toEqual([1]);
    expect(iids((await call('GET', '/projects/acme%2Fapi/merge_requests?state=merged')).body)).toEqual([2]);
    expect((await call('PUT', '/projects/acme%2Fapi/merge_requests/3', { state_event: 'reopen', title: 'two' })).body).toMatchObject({ state: 'opened', draft: false });
    expect(iids((await call('GET', '/groups/acme/merge_requests?state=opened&order_by=title&sort=asc')).body)).toEqual([1, 3]);
    expect(iids((await call('GET', '/merge_requests', undefined, bob)).body)).toEqual([3, 1]); // created by bob
    expect((await call('GET', '/projects/acme%2Fapi/merge_requests?state=weird')).status).toBe(400);
  });

  it('shows the approval state with the rules copied from the project, and MR-level rules override them', async () => {
    const state = (await call('GET', '/projects/acme%2Fapi/merge_requests/1/approval_state')).body;
    expect(state).toMatchObject({ approval_rules_overwritten: false, rules: [{ name: 'Maintainers', approvals_required: 1, approved: false, approved_by: [], source_rule: { approvals_required: 1 }, eligible_approvers: [{ username: 'alice' }] }] });
    await call('POST', '/projects/acme%2Fapi/merge_requests/1/approve', undefined, alice);
    expect((await call('GET', '/projects/acme%2Fapi/merge_requests/1/approval_state')).body.rules[0]).toMatchObject({ approved: true, approved_by: [{ username: 'alice' }] });

    const rule = await call('POST', '/projects/acme%2Fapi/merge_requests/1/approval_rules', { name: 'security', approvals_required: 2, usernames: ['root', 'bob'] });
    expect(rule).toMatchObject({ status: 201, body: { name: 'security', approvals_required: 2, rule_type: 'regular', source_rule: null, users: [{ username: 'root' }, { username: 'bob' }] } });
    expect((await call('GET', '/projects/acme%2Fapi/merge_requests/1/approval_rules')).body.map((r: { name: string }) => r.name)).toEqual(['Maintainers', 'security']);
    const after = (await call('GET', '/projects/acme%2Fapi/merge_requests/1/approval_state')).body;
    expect(after.approval_rules_overwritten).toBe(true);
    expect((await call('GET', '/projects/acme%2Fapi/merge_requests/1/approvals')).body.approvals_required).toBe(3);
    expect((await call('PUT', `/projects/acme%2Fapi/merge_requests/1/approval_rules/${rule.body.id}`, { approvals_required: 1 })).body.approvals_required).toBe(1);
    expect((await call('DELETE', `/projects/acme%2Fapi/merge_requests/1/approval_rules/${rule.body.id}`)).status).toBe(204);
    expect((await call('GET', `/projects/acme%2Fapi/merge_requests/1/approval_rules/${rule.body.id}`)).status).toBe(404);
  });

  it('refuses MR rules where the project forbids overriding, and on the free tier', async () => {
    await call('POST', '/projects/acme%2Fapi/approvals', { disable_overriding_approvers_per_merge_request: true });
    expect((await call('POST', '/projects/acme%2Fapi/merge_requests/1/approval_rules', { name: 'x', approvals_required: 1 })).status).toBe(403);
    await call('POST', '/projects/acme%2Fapi/approvals', { disable_overriding_approvers_per_merge_request: false });
    const free = await startTestSandbox({ tier: 'free' });
    try {
      expect((await free.call('GET', '/projects/1/merge_requests/1/approval_state')).status).toBe(403);
    } finally {
      await free.close();
    }
  });
});

describe('sandbox: issues', () => {
  it('lists, gets, creates (Guest up), closes; confidential filter', async () => {
    expect((await call('GET', '/projects/acme%2Fapi/issues')).body[0]).toMatchObject({ iid: 1, state: 'opened', author: { username: 'alice' }, references: { full: 'acme/api#1' }, type: 'ISSUE' });
    const guest = users(sandbox.db).find((u) => u.username === 'bob')!;
    const created = await call('POST', '/projects/acme%2Fapi/issues', { title: 'Secret', confidential: true }, bob);
    expect(created).toMatchObject({ status: 201, body: { iid: 2, confidential: true, author: { id: guest.id } } });
    expect(iids((await call('GET', '/projects/acme%2Fapi/issues?confidential=true')).body)).toEqual([2]);
    expect((await call('PUT', '/projects/acme%2Fapi/issues/2', { state_event: 'close' })).body.state).toBe('closed');
    expect(iids((await call('GET', '/issues?scope=all&state=closed')).body)).toEqual([2]);
    expect(iids((await call('GET', '/groups/acme/issues?state=opened')).body)).toEqual([1]);
    expect(await call('GET', '/projects/acme%2Fapi/issues/7')).toEqual({ status: 404, body: { message: '404 Issue Not Found' } });
    expect((await call('POST', '/projects/acme%2Fapi/issues', {})).body).toEqual({ error: 'title is missing' });
  });
});
