import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { users } from '../../sandbox/model.js';
import { addToken } from '../../sandbox/seed.js';

const sandbox = useTestSandbox();
/** The token of a signed-in user who is a member of nothing. */
let outsider: string;

beforeAll(async () => {
  const made = async (path: string, body: Record<string, unknown>) => {
    const answer = await sandbox.call('POST', path, body);
    expect(answer.status, answer.text).toBe(201);
    return answer.body as { id: number };
  };
  const nobody = await made('/users', { username: 'passerby', name: 'Passer By', email: 'passerby@example.com', password: 'long-enough-pw' });
  const open = await made('/groups', { name: 'Commons', path: 'commons', visibility: 'public' });
  await made('/projects', { name: 'pub', path: 'pub', namespace_id: open.id, visibility: 'public' });
  outsider = addToken(sandbox.db, users(sandbox.db).find((u) => u.id === nobody.id)!, { name: 'passerby-token' }, new Date()).token;
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
