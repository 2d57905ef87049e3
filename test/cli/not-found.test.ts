import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/cli.js';

/**
 * A 404 of one record names the list of the same place, built from the command's resource declaration and the
 * placement options given: every generated get, update and delete, and the hand-written ones of a declared resource.
 */
describe('404 hints that name the list', () => {
  const sandbox = useTestSandbox();

  it('a record that is not there names the list of its place, with the options given', async () => {
    const cases: Array<[string[], string, string]> = [
      [['hooks', 'get', '77', '--project', 'acme/api'], 'error: 404 Hook Not Found (GET /projects/acme%2Fapi/hooks/77 → 404)', 'forgectl hooks list --project acme/api lists its webhooks'],
      [['hooks', 'update', '77', '--project', 'acme/api', '--name', 'x'], 'error: 404 Hook Not Found (GET /projects/acme%2Fapi/hooks/77 → 404)', 'forgectl hooks list --project acme/api lists its webhooks'],
      [['hooks', 'delete', '77', '--project', 'acme/api', '--yes'], 'error: 404 Hook Not Found (GET /projects/acme%2Fapi/hooks/77 → 404)', 'forgectl hooks list --project acme/api lists its webhooks'],
      [['badges', 'get', '999', '--project', 'acme/api'], 'error: 404 Badge Not Found (GET /projects/acme%2Fapi/badges/999 → 404)', 'forgectl badges list --project acme/api lists its badges'],
      [['variables', 'get', 'NOPE', '--project', 'acme/api'], 'error: 404 Variable Not Found (GET /projects/acme%2Fapi/variables/NOPE → 404)', 'forgectl variables list --project acme/api lists its variables'],
      [['variables', 'delete', 'NOPE', '--instance', '--yes'], 'error: 404 Variable Not Found (GET /admin/ci/variables/NOPE → 404)', 'forgectl variables list --instance lists its variables'],
    ];
    for (const [argv, error, hint] of cases) {
      const result = await sandbox.run(argv);
      expect(result, argv.join(' ')).toMatchObject({ code: 5, stdout: '', stderr: `${error}\nhint: ${hint}\n` });
    }
  });

  it('a place that is not there gets the hint that searches for it (not one to list inside it)', async () => {
    const cases: Array<[string[], string, string]> = [
      [['hooks', 'get', '1', '--project', 'acme/nope'], 'error: 404 Project Not Found (GET /projects/acme%2Fnope/hooks/1 → 404)', 'forgectl projects list --search nope lists the projects you can see whose name or path holds it'],
      [['members', 'list', '--group', 'nope'], 'error: 404 Group Not Found (GET /groups/nope/members → 404)', 'forgectl groups list --search nope lists the groups you can see whose name or path holds it'],
      [['variables', 'list', '--project', '999'], 'error: 404 Project Not Found (GET /projects/999/variables → 404)', 'forgectl projects list lists the projects you can see'],
    ];
    for (const [argv, error, hint] of cases) {
      const result = await sandbox.run(argv);
      expect(result, argv.join(' ')).toMatchObject({ code: 5, stdout: '', stderr: `${error}\nhint: ${hint}\n` });
    }
  });

  it('a token that is not there names the list of tokens of its place', async () => {
    const cases: Array<[string[], string, string]> = [
      [['tokens', 'revoke', '999', '--project', 'acme/api', '--yes'], 'error: 404 Token Not Found (GET /projects/acme%2Fapi/access_tokens/999 → 404)', 'forgectl tokens list --project acme/api lists its access tokens'],
      [['tokens', 'get', '999', '--group', 'acme'], 'error: 404 Token Not Found (GET /groups/acme/access_tokens/999 → 404)', 'forgectl tokens list --group acme lists its access tokens'],
    ];
    for (const [argv, error, hint] of cases) {
      const result = await sandbox.run(argv);
      expect(result, argv.join(' ')).toMatchObject({ code: 5, stdout: '', stderr: `${error}\nhint: ${hint}\n` });
    }
  });
});
