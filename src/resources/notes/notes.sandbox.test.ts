import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { members, tokens } from '../../sandbox/model.js';
import { addToken, addUser } from '../../sandbox/seed.js';
import { caller } from '../../../test/sandbox/review-helpers.js';

const sandbox = useTestSandbox();

const call = caller(() => sandbox);
const token = (name: string) => tokens(sandbox.db).find((t) => t.name === name)!.token;
const ISSUE = '/projects/acme%2Fapi/issues/1/notes';

describe('sandbox: notes on issues and snippets (spec 1, api-facts §1.3)', () => {
  it('creates with 201 and the spec fields', async () => {
    const created = await call('POST', ISSUE, { body: 'Hello' });
    expect(created.status).toBe(201);
    for (const field of ['id', 'body', 'author', 'created_at', 'updated_at', 'system', 'noteable_id', 'noteable_type', 'project_id', 'noteable_iid', 'resolvable', 'confidential', 'internal', 'imported', 'imported_from']) {
      expect(created.body).toHaveProperty(field);
    }
    expect(created.body.author).toMatchObject({ id: 1, username: 'root', email: 'root@example.com', name: 'Administrator', state: 'active' });
  });

  it('answers the real error bodies', async () => {
    expect(await call('POST', ISSUE, {})).toMatchObject({ status: 400, body: { error: 'body is missing' } });
    expect(await call('POST', ISSUE, { body: 'x'.repeat(1_000_001) })).toMatchObject({ status: 400, body: { message: '400 Bad request - Note {:note=>["is too long (maximum is 1000000 characters)"]}' } });
    expect((await call('POST', ISSUE, { body: 'x'.repeat(1_000_000) })).status).toBe(201);
    expect(await call('GET', `${ISSUE}/9999`)).toMatchObject({ status: 404, body: { message: '404 Note Not Found' } });
    expect(await call('GET', '/projects/1/issues/42/notes')).toMatchObject({ status: 404, body: { message: '404 Issue Not Found' } });
    expect(await call('GET', '/projects/1/snippets/42/notes')).toMatchObject({ status: 404, body: { message: '404 Snippet Not Found' } });
    expect(await call('GET', `${ISSUE}?sort=up`)).toMatchObject({ status: 400, body: { error: 'sort does not have a valid value' } });
  });

  it('sorts by created_at or updated_at, desc by default', async () => {
    const a = (await call('POST', '/projects/1/snippets/1/notes', { body: 'first', created_at: '2019-01-01T00:00:00Z' })).body;
    const b = (await call('POST', '/projects/1/snippets/1/notes', { body: 'second', created_at: '2020-01-01T00:00:00Z' })).body;
    const ids = (query: string) => call('GET', `/projects/1/snippets/1/notes${query}`).then((r) => r.body.map((n: { id: number }) => n.id).filter((id: number) => id === a.id || id === b.id));
    expect(await ids('')).toEqual([b.id, a.id]);
    expect(await ids('?sort=asc')).toEqual([a.id, b.id]);
    await call('PUT', `/projects/1/snippets/1/notes/${a.id}`, { body: 'first, edited' });
    expect(await ids('?order_by=updated_at')).toEqual([a.id, b.id]);
    expect(await ids('?order_by=created_at')).toEqual([b.id, a.id]);
  });

  it('updates with 200 and deletes with 204; only the author or a Maintainer', async () => {
    const note = (await call('POST', ISSUE, { body: 'mine' }, token('bob-token'))).body;
    expect((await call('PUT', `${ISSUE}/${note.id}`, { body: 'edited' }, token('bob-token'))).body.body).toBe('edited');
    expect((await call('PUT', `${ISSUE}/${note.id}`, { body: 'x'.repeat(1_000_001) }, token('bob-token'))).body.message).toMatch(/^400 Bad request - Failed to save note/);
    const rootNote = (await call('POST', ISSUE, { body: 'root' })).body;
    expect((await call('DELETE', `${ISSUE}/${rootNote.id}`, undefined, token('bob-token'))).status).toBe(403);
    expect((await call('DELETE', `${ISSUE}/${note.id}`, undefined, token('alice-token'))).status).toBe(204);
    expect((await call('GET', `${ISSUE}/${note.id}`)).status).toBe(404);
  });

  it('shows internal notes from Reporter up and honours created_at only for administrators and owners', async () => {
    const internal = (await call('POST', ISSUE, { body: 'internal', internal: true })).body;
    expect(internal).toMatchObject({ internal: true, confidential: true });
    const now = new Date();
    const guestUser = addUser(sandbox.db, { username: 'guest' }, now);
    members(sandbox.db).push({ source_type: 'project', source_id: 1, user_id: guestUser.id, access_level: 10 });
    const guest = addToken(sandbox.db, guestUser, {}, now).token;
    expect((await call('GET', `${ISSUE}/${internal.id}`, undefined, guest)).status).toBe(404);
    expect((await call('GET', ISSUE, undefined, guest)).body.some((n: { id: number }) => n.id === internal.id)).toBe(false);
    expect((await call('POST', ISSUE, { body: 'trying', internal: true }, guest)).body.internal).toBe(false);

    expect((await call('POST', ISSUE, { body: 'old', created_at: '2019-01-01T00:00:00Z' })).body.created_at).toBe('2019-01-01T00:00:00.000Z');
    expect((await call('POST', ISSUE, { body: 'old', created_at: '2019-01-01T00:00:00Z' }, token('alice-token'))).body.created_at).not.toBe('2019-01-01T00:00:00.000Z');
  });
});
