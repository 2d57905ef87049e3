import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../../test/helpers/cli.js';
import { caller } from '../../../test/sandbox/review-helpers.js';

let sandbox: TestSandbox;
let free: TestSandbox;
beforeAll(async () => {
  [sandbox, free] = await Promise.all([startTestSandbox(), startTestSandbox({ tier: 'free' })]);
});
afterAll(() => Promise.all([sandbox.close(), free.close()]));

const call = caller(() => sandbox);
const RULES = '/projects/acme%2Fapi/approval_rules';

describe('sandbox: a project\'s approval rules (spec 1)', () => {
  it('answers as the service: missing and blank names, unknown types, 404 Not found, Premium only', async () => {
    expect(await call('POST', RULES, { approvals_required: 1 })).toMatchObject({ status: 400, body: { error: 'name is missing' } });
    expect(await call('POST', RULES, { name: '' , approvals_required: 1 })).toMatchObject({ status: 400, body: { message: { name: ["can't be blank"] } } });
    expect(await call('POST', RULES, { name: 'x', approvals_required: '' })).toMatchObject({ status: 400, body: { error: 'approvals_required is missing' } });
    expect(await call('POST', RULES, { name: 'x', approvals_required: 'many' })).toMatchObject({ status: 400, body: { error: 'approvals_required does not have a valid value' } });
    expect(await call('POST', RULES, { name: 'x', approvals_required: 1, rule_type: 'nobody' })).toMatchObject({ status: 400, body: { error: 'rule_type does not have a valid value' } });
    expect(await call('POST', RULES, { name: 'Maintainers', approvals_required: 1 })).toMatchObject({ status: 400, body: { message: { name: ['has already been taken'] } } });
    expect(await call('GET', `${RULES}/999`)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect((await caller(() => free)('GET', RULES)).status).toBe(403);
  });

  it('creates with the approvers and branches it names, reports set the type, and updates keep the rest', async () => {
    const made = await call('POST', RULES, { name: 'Coverage', approvals_required: 2, report_type: 'code_coverage', usernames: 'alice', protected_branch_ids: [1] });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'Coverage', rule_type: 'report_approver', report_type: 'code_coverage', approvals_required: 2, applies_to_all_protected_branches: false });
    expect(made.body.users.map((u: { username: string }) => u.username)).toEqual(['alice']);
    expect(Object.keys(made.body)).not.toContain('source_rule');
    const changed = await call('PUT', `${RULES}/${made.body.id}`, { approvals_required: 1 });
    expect(changed.body).toMatchObject({ name: 'Coverage', report_type: 'code_coverage', approvals_required: 1 });
    expect(changed.body.users).toHaveLength(1);
    expect((await call('DELETE', `${RULES}/${made.body.id}`)).status).toBe(204);
    expect((await call('GET', `${RULES}/${made.body.id}`)).status).toBe(404);
  });
});

describe('sandbox: a merge request\'s approval rules (spec 1)', () => {
  const MR_RULES = '/projects/acme%2Fapi/merge_requests/1/approval_rules';

  it('finds the merge request before the role to change its rules: 404 for one that does not exist, then Developer or 403', async () => {
    const reporter = sandbox.tokenWithRole('reporter');
    expect(await call('POST', '/projects/acme%2Fapi/merge_requests/999/approval_rules', { name: 'x', approvals_required: 1 }, reporter)).toMatchObject({ status: 404, body: { message: '404 Merge Request Not Found' } });
    expect((await call('POST', MR_RULES, { name: 'x', approvals_required: 1 }, reporter)).status).toBe(403);
    expect((await call('GET', MR_RULES, undefined, sandbox.tokenWithRole('guest'))).status).toBe(404);
    const made = await call('POST', MR_RULES, { name: 'Developers', approvals_required: 1, rule_type: 'any_approver' }, sandbox.tokenWithRole('developer'));
    expect(made).toMatchObject({ status: 201, body: { name: 'Developers', rule_type: 'regular', source_rule: null } });
    expect((await call('GET', `${MR_RULES}/${made.body.id}`, undefined, reporter)).body.name).toBe('Developers');
    expect(await call('PUT', `${MR_RULES}/999`, { name: 'y' })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect((await call('DELETE', `${MR_RULES}/${made.body.id}`)).status).toBe(204);
  });

  it('keeps the rules of a merged merge request, and words bad input as the service does', async () => {
    expect((await call('POST', '/projects/acme%2Fapi/merge_requests/2/approval_rules', { name: 'late', approvals_required: 1 })).status).toBe(403);
    expect(await call('POST', MR_RULES, { name: '', approvals_required: 1 })).toMatchObject({ status: 400, body: { error: 'name is missing' } });
    expect(await call('POST', MR_RULES, { name: 'y', approvals_required: -1 })).toMatchObject({ status: 400, body: { message: { approvals_required: ['must be greater than or equal to 0'] } } });
    expect(await call('POST', MR_RULES, { name: 'Maintainers', approvals_required: 1 })).toMatchObject({ status: 400, body: { message: { name: ['has already been taken'] } } });
    expect(await call('POST', MR_RULES, { name: 'z', approvals_required: 1, approval_project_rule_id: 999 })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });
});
