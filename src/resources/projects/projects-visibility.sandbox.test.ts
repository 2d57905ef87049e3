import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();
/** The token of a signed-in user who is a member of nothing. */
let outsider: string;

beforeAll(async () => {
  const nobody = await sandbox.create('/users', { username: 'passerby', name: 'Passer By', email: 'passerby@example.com', password: 'long-enough-pw' });
  const open = await sandbox.create('/groups', { name: 'Commons', path: 'commons', visibility: 'public' });
  await sandbox.create('/projects', { name: 'pub', path: 'pub', namespace_id: open.id, visibility: 'public' });
  outsider = sandbox.tokenOf(nobody.id, 'passerby-token');
});

const status = async (method: string, path: string, token: string) => (await sandbox.call(method, path, method === 'PUT' ? { description: 'mine' } : undefined, token)).status;

describe('sandbox: who reads a project', () => {
  it('anyone signed in reads a public project and what a guest reads of it, and changes nothing', async () => {
    expect(await status('GET', '/projects/commons%2Fpub', outsider)).toBe(200);
    expect(await status('GET', '/projects/commons%2Fpub/members', outsider)).toBe(200);
    expect(await status('GET', '/projects/commons%2Fpub/repository/branches', outsider)).toBe(200);
    expect(await status('PUT', '/projects/commons%2Fpub', outsider)).toBe(403);
    expect(await status('DELETE', '/projects/commons%2Fpub', outsider)).toBe(403);
  });

  it('a private project stays hidden from those who are not its members', async () => {
    expect(await status('GET', '/projects/acme%2Fapi', outsider)).toBe(404);
    expect(await status('GET', '/projects/acme%2Fapi/members', outsider)).toBe(404);
  });
});
