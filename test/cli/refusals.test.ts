import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/cli.js';
import { helpNeeds } from '../../src/cli/refusal.js';

/**
 * A 403 says only "403 Forbidden": the hint comes from what the command's help says it needs (role and license
 * tier), and on the paths only administrators use it says the token is not an administrator's only when that is so.
 */
describe('403 hints from what the command needs', () => {
  const sandbox = useTestSandbox();
  const as = (role: 'maintainer' | 'developer' | 'owner') => ({ env: { FORGECTL_TOKEN: sandbox.tokenWithRole(role) } });

  it('names the role the help names, for a change and for a list', async () => {
    expect((await sandbox.call('POST', '/groups', { name: 'data', path: 'data', parent_id: 1 })).status).toBe(201);
    const deleted = await sandbox.run(['groups', 'delete', 'acme/data', '--yes'], as('maintainer'));
    expect(deleted).toMatchObject({ code: 4, stderr: expect.stringMatching(/^error: 403 Forbidden \(DELETE \/groups\/\d+ → 403\)\nhint: groups delete needs the Owner role\n$/) });
    const listed = await sandbox.run(['variables', 'list', '--project', 'acme/api'], as('developer'));
    expect(listed).toMatchObject({ code: 4, stderr: 'error: 403 Forbidden (GET /projects/acme%2Fapi/variables → 403)\nhint: variables list needs the Maintainer role (administrators for --instance)\n' });
  });

  it('on a path for administrators, says the token is not one when it is not', async () => {
    const result = await sandbox.run(['service-accounts', 'list', '--instance'], as('owner'));
    expect(result).toMatchObject({ code: 4, stderr: 'error: 403 Forbidden (GET /service_accounts → 403)\nhint: this is for administrators of the instance, and the token in use is not one\n' });
  });

  it('takes the sentence of the help that says what a command needs', () => {
    expect(helpNeeds('Lists them. Needs Premium and the Maintainer role.')).toBe('Premium and the Maintainer role');
    expect(helpNeeds('Needs the Maintainer role (administrators for --instance). Then more.')).toBe('the Maintainer role (administrators for --instance)');
    expect(helpNeeds('Group rules need Premium.')).toBeUndefined();
    expect(helpNeeds(undefined)).toBeUndefined();
  });
});

describe('403 hints on an instance without the license tier (free)', () => {
  const free = useTestSandbox({ tier: 'free' });

  it('an administrator is told the tier the command needs, not that the token is not an administrator\'s', async () => {
    const cases: Array<[string[], string, string]> = [
      [['service-accounts', 'list', '--instance'], 'GET /service_accounts', 'service-accounts list needs Premium'],
      [['push-rule', 'get', '--project', 'acme/api'], 'GET /projects/acme%2Fapi/push_rule', 'push-rule get needs Premium'],
      [['approval-rules', 'list', '--project', 'acme/api'], 'GET /projects/acme%2Fapi/approval_rules', 'approval-rules list needs Premium'],
      [['merge-trains', 'list', '--project', 'acme/api'], 'GET /projects/acme%2Fapi/merge_trains', 'merge-trains list needs Premium'],
    ];
    for (const [argv, request, needs] of cases) {
      const result = await free.run(argv);
      expect(result, argv.join(' ')).toMatchObject({ code: 4, stdout: '', stderr: `error: 403 Forbidden (${request} → 403)\nhint: the token is an administrator's, so what is missing is the license tier: ${needs}\n` });
    }
  });

  it('a Maintainer is told both the tier and the role', async () => {
    const result = await free.run(['push-rule', 'get', '--project', 'acme/api'], { env: { FORGECTL_TOKEN: free.tokenWithRole('maintainer') } });
    expect(result.stderr).toBe('error: 403 Forbidden (GET /projects/acme%2Fapi/push_rule → 403)\nhint: push-rule get needs Premium and the Maintainer role\n');
  });
});
