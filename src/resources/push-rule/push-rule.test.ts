import { describe, expect, it } from 'vitest';
import { startTestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

describe('push-rule', () => {
  it('says there is none, then set creates it and get shows both fields', async () => {
    const none = await sandbox.run(['push-rule', 'get', '--project', 'acme/api', '-o', 'json']);
    expect(none).toMatchObject({ code: 0, stdout: '' });
    expect(none.stderr).toContain('no push rule');

    sandbox.clearRequests();
    expect((await sandbox.run(['push-rule', 'set', '--project', 'acme/api', '--max-file-size', '10', '--deny-delete-tag'])).code).toBe(0);
    expect(sandbox.requests().map((r) => r.method)).toEqual(['GET', 'POST']);
    const rule = (await sandbox.run(['push-rule', 'get', '--project', 'acme/api', '-o', 'json'])).json();
    expect(rule).toMatchObject({ max_file_size: 10, deny_delete_tag: true, member_check: false });
  });

  it('updates only the fields given once a rule exists', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['push-rule', 'set', '--project', 'acme/api', '--branch-name-regex', '^(main|feature/.+)$', '--no-deny-delete-tag', '--member-check', '-o', 'json']);
    expect(sandbox.requests().map((r) => r.method)).toEqual(['GET', 'PUT']);
    expect(result.json()).toMatchObject({ max_file_size: 10, deny_delete_tag: false, member_check: true, branch_name_regex: '^(main|feature/.+)$' });
  });

  it('checks regexes and sizes before sending', async () => {
    sandbox.clearRequests();
    const bad = await sandbox.run(['push-rule', 'set', '--project', 'acme/api', '--commit-message-regex', '(unclosed']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--commit-message-regex');
    expect((await sandbox.run(['push-rule', 'set', '--project', 'acme/api', '--file-name-regex', '(?!secret)'])).code).toBe(2);
    expect((await sandbox.run(['push-rule', 'set', '--project', 'acme/api', '--max-file-size', '-1'])).code).toBe(2);
    expect((await sandbox.run(['push-rule', 'set', '--project', 'acme/api'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });

  it('deletes with confirmation', async () => {
    expect((await sandbox.run(['push-rule', 'delete', '--project', 'acme/api'])).code).toBe(2);
    expect((await sandbox.run(['push-rule', 'delete', '--project', 'acme/api', '--yes'])).code).toBe(0);
    expect((await sandbox.run(['push-rule', 'delete', '--project', 'acme/api', '--yes'])).code).toBe(5);
  });
});

describe('push-rule on the free tier', () => {
  it('is refused with 403 (exit 4)', async () => {
    const free = await startTestSandbox({ tier: 'free' });
    try {
      expect((await free.run(['push-rule', 'get', '--project', 'acme/api'])).code).toBe(4);
    } finally {
      await free.close();
    }
  });
});
