import { describe, expect, it } from 'vitest';
import { type TestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';
import { tokens } from '../../sandbox/model.js';

const sandbox = useTestSandbox();

const call = (...args: Parameters<TestSandbox['call']>) => sandbox.call(...args);

describe('sandbox: push rules (spec 1)', () => {
  it('answers null without a rule, creates with 201 and every field, refuses a second POST with 422', async () => {
    expect(await call('GET', '/projects/2/push_rule')).toEqual({ status: 200, body: null });
    const created = await call('POST', '/projects/2/push_rule', { max_file_size: 5, prevent_secrets: true });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual([
      'id', 'project_id', 'commit_message_regex', 'commit_message_negative_regex', 'branch_name_regex', 'deny_delete_tag', 'created_at', 'member_check',
      'prevent_secrets', 'author_email_regex', 'file_name_regex', 'max_file_size', 'commit_committer_check', 'commit_committer_name_check',
      'reject_unsigned_commits', 'reject_non_dco_commits',
    ]);
    expect(await call('POST', '/projects/2/push_rule', { max_file_size: 1 })).toEqual({ status: 422, body: { error: 'Project push rule exists' } });
  });

  it('validates regexes and sizes, and needs at least one parameter', async () => {
    expect(await call('PUT', '/projects/2/push_rule', { branch_name_regex: '(' })).toMatchObject({ status: 400, body: { message: { branch_name_regex: [expect.stringMatching(/^not valid RE2 syntax/)] } } });
    expect(await call('PUT', '/projects/2/push_rule', { max_file_size: -1 })).toEqual({ status: 400, body: { message: { max_file_size: ['must be greater than or equal to 0'] } } });
    expect((await call('PUT', '/projects/2/push_rule', { unknown: 1 })).body.error).toMatch(/at least one parameter must be provided$/);
  });

  it('answers 404 to PUT and DELETE without a rule, and 403 to a developer', async () => {
    expect((await call('DELETE', '/projects/2/push_rule')).status).toBe(204);
    expect(await call('PUT', '/projects/2/push_rule', { max_file_size: 1 })).toEqual({ status: 404, body: { message: '404 Push Rule Not Found' } });
    expect((await call('DELETE', '/projects/2/push_rule')).status).toBe(404);
    const bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
    expect((await call('GET', '/projects/2/push_rule', undefined, bob)).status).toBe(403);
  });
});
