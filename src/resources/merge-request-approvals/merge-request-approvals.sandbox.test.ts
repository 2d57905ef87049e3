import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../../test/helpers/cli.js';
import { members, mergeRequests, tokens } from '../../sandbox/model.js';
import { addToken, addUser } from '../../sandbox/seed.js';
import { pushToBranch } from './sandbox.js';
import { caller } from '../../../test/sandbox/review-helpers.js';

let sandbox: TestSandbox;
let free: TestSandbox;
beforeAll(async () => {
  [sandbox, free] = await Promise.all([startTestSandbox(), startTestSandbox({ tier: 'free' })]);
});
afterAll(() => Promise.all([sandbox.close(), free.close()]));

const call = caller(() => sandbox);
const callFree = caller(() => free);
const token = (name: string) => tokens(sandbox.db).find((t) => t.name === name)!.token;
const mr1 = () => mergeRequests(sandbox.db).find((m) => m.project_id === 1 && m.iid === 1)!;
const MR = '/projects/acme%2Fapi/merge_requests/1';

describe('sandbox: merge request approvals (spec 1)', () => {
  it('approves with 201 and the approvals entity; a stale sha is 409 with the HEAD named', async () => {
    expect(await call('POST', `${MR}/approve`, { sha: '0'.repeat(40) })).toMatchObject({ status: 409, body: { message: `SHA does not match HEAD of source branch: ${mr1().sha}` } });
    const approved = await call('POST', `${MR}/approve`, { sha: mr1().sha });
    expect(approved.status).toBe(201);
    expect(approved.body).toMatchObject({ iid: 1, approvals_required: 1, approvals_left: 0, approved: true, user_has_approved: true, user_can_approve: false });
    expect(approved.body.approved_by).toEqual([{ user: expect.objectContaining({ id: 1, username: 'root', name: 'Administrator', state: 'active' }) }]);
    expect(Object.keys(approved.body.approved_by[0].user).sort()).toEqual(['avatar_url', 'id', 'name', 'state', 'username', 'web_url']);
    expect(mr1().detailed_merge_status).toBe('mergeable');
    // Approving twice, and approving as the author, are refused with a bare 401.
    expect(await call('POST', `${MR}/approve`)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect((await call('POST', `${MR}/approve`, undefined, token('bob-token'))).status).toBe(401);
  });

  it('unapproves with 201, and 404 when the caller had not approved', async () => {
    expect((await call('POST', `${MR}/unapprove`)).status).toBe(201);
    expect(mr1().approved_by).toEqual([]);
    expect(mr1().detailed_merge_status).toBe('not_approved');
    expect(await call('POST', `${MR}/unapprove`)).toEqual({ status: 404, body: { message: '404 Not found' }, headers: expect.anything() });
    expect(await call('POST', '/projects/acme%2Fapi/merge_requests/99/approve')).toMatchObject({ status: 404, body: { message: '404 Merge Request Not Found' } });
  });

  it('clears approvals on a push to the source branch while reset_approvals_on_push is on', async () => {
    await call('POST', `${MR}/approve`, undefined, token('alice-token'));
    const [moved] = pushToBranch(sandbox.db, { projectId: 1, branch: 'feature/health', sha: 'b'.repeat(40) });
    expect(moved.iid).toBe(1);
    expect(mr1()).toMatchObject({ sha: 'b'.repeat(40), approved_by: [], detailed_merge_status: 'not_approved' });
    expect((await call('POST', `${MR}/approve`, { sha: 'b'.repeat(40) }, token('alice-token'))).status).toBe(201);

    await call('POST', '/projects/1/approvals', { reset_approvals_on_push: false });
    pushToBranch(sandbox.db, { projectId: 1, branch: 'feature/health', sha: 'c'.repeat(40) });
    expect(mr1().approved_by).toHaveLength(1);
    await call('POST', '/projects/1/approvals', { reset_approvals_on_push: true });
    await call('POST', `${MR}/unapprove`, undefined, token('alice-token'));
  });

  it('requires the password when re-authentication is on (either setting name)', async () => {
    expect((await call('POST', '/projects/1/approvals', { require_reauthentication_to_approve: true })).body).toMatchObject({ require_password_to_approve: true, require_reauthentication_to_approve: true });
    expect((await call('POST', `${MR}/approve`)).status).toBe(401);
    expect((await call('POST', `${MR}/approve`, { approval_password: 'wrong' })).status).toBe(401);
    expect((await call('POST', `${MR}/approve`, { approval_password: 'sandbox-password' })).status).toBe(201);
    await call('POST', '/projects/1/approvals', { require_password_to_approve: false });
    await call('POST', `${MR}/unapprove`);
  });

  it('resets approvals with 202 for bot users only; people get 401', async () => {
    await call('POST', `${MR}/approve`);
    expect(await call('PUT', `${MR}/reset_approvals`)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    const now = new Date();
    const bot = addUser(sandbox.db, { username: 'group_1_bot', bot: true }, now);
    members(sandbox.db).push({ source_type: 'group', source_id: 1, user_id: bot.id, access_level: 30 });
    const botToken = addToken(sandbox.db, bot, { kind: 'group', resource_id: 1, name: 'group-bot' }, now);
    const reset = await call('PUT', `${MR}/reset_approvals`, undefined, botToken.token);
    expect(reset.status).toBe(202);
    expect(mr1().approved_by).toEqual([]);
  });

  it('offers approvals on the free tier with nothing required, but not their configuration', async () => {
    const state = await callFree('GET', `${MR}/approvals`);
    expect(state.body).toMatchObject({ approvals_required: 0, approved: true, merge_request_approvers_available: false });
    expect((await callFree('POST', `${MR}/approve`)).status).toBe(201);
    expect((await callFree('POST', '/projects/1/approvals', { merge_requests_author_approval: true })).status).toBe(403);
    expect((await callFree('GET', '/projects/1/approval_rules')).status).toBe(403);
  });
});

describe('sandbox: project approval configuration', () => {
  it('answers the configuration, 201 on change, 400 for none or conflicting settings', async () => {
    const got = await call('GET', '/projects/acme%2Fapi/approvals');
    expect(Object.keys(got.body)).toEqual([
      'approvers', 'approver_groups', 'approvals_before_merge', 'reset_approvals_on_push', 'selective_code_owner_removals',
      'disable_overriding_approvers_per_merge_request', 'merge_requests_author_approval', 'merge_requests_disable_committers_approval',
      'require_password_to_approve', 'require_reauthentication_to_approve',
    ]);
    expect((await call('POST', '/projects/1/approvals', { merge_requests_author_approval: true })).status).toBe(201);
    expect((await call('POST', '/projects/1/approvals', {})).body.error).toMatch(/are missing, at least one parameter must be provided$/);
    expect(await call('POST', '/projects/1/approvals', { selective_code_owner_removals: true })).toMatchObject({
      status: 400, body: { message: { base: ['selective_code_owner_removals can only be enabled when reset_approvals_on_push is disabled'] } },
    });
    expect((await call('POST', '/projects/1/approvals', { selective_code_owner_removals: true, reset_approvals_on_push: false })).status).toBe(201);
    expect((await call('POST', '/projects/1/approvals', { merge_requests_author_approval: false }, token('bob-token'))).status).toBe(403);
    await call('POST', '/projects/1/approvals', { merge_requests_author_approval: false, selective_code_owner_removals: false, reset_approvals_on_push: true });
  });
});

describe('sandbox: approval rules (api-facts §1.2)', () => {
  it('creates with 201, validates as the service does, updates and deletes with 204', async () => {
    expect(await call('POST', '/projects/1/approval_rules', { approvals_required: 1 })).toMatchObject({ status: 400, body: { error: 'name is missing' } });
    expect(await call('POST', '/projects/1/approval_rules', { name: 'x' })).toMatchObject({ status: 400, body: { error: 'approvals_required is missing' } });
    expect(await call('POST', '/projects/1/approval_rules', { name: 'x'.repeat(1025), approvals_required: 1 })).toMatchObject({ status: 400, body: { message: { name: ['is too long (maximum is 1024 characters)'] } } });
    expect(await call('POST', '/projects/1/approval_rules', { name: 'x', approvals_required: 1, rule_type: 'magic' })).toMatchObject({ status: 400, body: { error: 'rule_type does not have a valid value' } });

    const rule = await call('POST', '/projects/1/approval_rules', { name: 'Docs', approvals_required: 1, usernames: ['bob'], user_ids: [2, 999], protected_branch_ids: [1, 999] });
    expect(rule.status).toBe(201);
    expect(Object.keys(rule.body)).toEqual(['id', 'name', 'rule_type', 'report_type', 'eligible_approvers', 'approvals_required', 'users', 'groups', 'contains_hidden_groups', 'protected_branches', 'applies_to_all_protected_branches']);
    expect(rule.body.users.map((u: { username: string }) => u.username)).toEqual(['alice', 'bob']);
    expect(rule.body.protected_branches).toEqual([expect.objectContaining({ id: 1, name: 'main', code_owner_approval_required: false, merge_access_levels: [expect.objectContaining({ access_level: 40 })] })]);

    const any = await call('POST', '/projects/1/approval_rules', { name: 'Anyone', approvals_required: 0, rule_type: 'any_approver' });
    expect(any.status).toBe(201);
    expect(await call('POST', '/projects/1/approval_rules', { name: 'Anyone 2', approvals_required: 0, rule_type: 'any_approver' })).toMatchObject({ status: 400, body: { message: { rule_type: ['any-approver for the project already exists'] } } });

    const updated = await call('PUT', `/projects/1/approval_rules/${rule.body.id}`, { name: 'Docs', approvals_required: 2, usernames: [] , user_ids: [] });
    expect(updated).toMatchObject({ status: 200, body: { approvals_required: 2, users: [] } });
    expect((await call('DELETE', `/projects/1/approval_rules/${rule.body.id}`)).status).toBe(204);
    expect(await call('GET', `/projects/1/approval_rules/${rule.body.id}`)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it('paginates the list with the headers of api-facts §3', async () => {
    const page = await call('GET', '/projects/1/approval_rules?per_page=1');
    expect(page.body).toHaveLength(1);
    expect(page.headers.get('x-total')).toBe(String(Number(page.headers.get('x-total-pages'))));
    expect(page.headers.get('x-next-page')).toBe('2');
  });
});
