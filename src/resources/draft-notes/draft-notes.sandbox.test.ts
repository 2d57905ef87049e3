import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { tokens } from '../../sandbox/model.js';
import { caller } from '../../../test/sandbox/review-helpers.js';

const sandbox = useTestSandbox();

const call = caller(() => sandbox);
const token = (name: string) => tokens(sandbox.db).find((t) => t.name === name)!.token;
const DRAFTS = '/projects/acme%2Fapi/merge_requests/1/draft_notes';
const sha = (c: string) => c.repeat(40);

describe('sandbox: draft notes (spec 1, api-facts §1.4)', () => {
  it('creates with 201 and the spec fields; the list is not paginated and is the author\'s own', async () => {
    const created = await call('POST', DRAFTS, { note: 'one', commit_id: 'undefined' });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(['id', 'author_id', 'merge_request_id', 'resolve_discussion', 'discussion_id', 'note', 'commit_id', 'line_code', 'position']);
    expect(created.body).toMatchObject({ author_id: 1, commit_id: null, discussion_id: null, resolve_discussion: false });
    const list = await call('GET', DRAFTS);
    expect(list.body).toHaveLength(1);
    expect(list.headers.get('x-total')).toBeNull();
    expect((await call('GET', DRAFTS, undefined, token('alice-token'))).body).toEqual([]);
    expect(await call('GET', `${DRAFTS}/${created.body.id}`, undefined, token('alice-token'))).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect((await call('DELETE', `${DRAFTS}/${created.body.id}`, undefined, token('alice-token'))).status).toBe(404);
    expect((await call('DELETE', `${DRAFTS}/${created.body.id}`)).status).toBe(204);
  });

  it('validates note and position as Grape does', async () => {
    expect(await call('POST', DRAFTS, {})).toMatchObject({ status: 400, body: { error: 'note is missing' } });
    expect(await call('POST', DRAFTS, { note: ' ' })).toMatchObject({ status: 400, body: { message: { note: ["can't be blank"] } } });
    expect(await call('POST', DRAFTS, { note: 'x', position: { base_sha: sha('a'), head_sha: sha('b'), position_type: 'text' } })).toMatchObject({ status: 400, body: { error: 'position[start_sha] is missing' } });
    expect(await call('POST', DRAFTS, { note: 'x', position: { base_sha: sha('a'), start_sha: sha('a'), head_sha: sha('b'), position_type: 'pdf' } })).toMatchObject({ status: 400, body: { error: 'position[position_type] does not have a valid value' } });
    expect(await call('POST', DRAFTS, { note: 'x', in_reply_to_discussion_id: 'nope' })).toMatchObject({ status: 400, body: { message: { base: ['Thread to reply to cannot be found'] } } });
    const draft = (await call('POST', DRAFTS, { note: 'x' })).body;
    expect(await call('PUT', `${DRAFTS}/${draft.id}`, {})).toMatchObject({ status: 400, body: { message: '400 Bad request - Missing params to modify' } });
    expect((await call('PUT', `${DRAFTS}/${draft.id}`, { note: 'y' })).body.note).toBe('y');
    await call('DELETE', `${DRAFTS}/${draft.id}`);
  });

  it('publishes one draft with 204 into a note; publishing another user\'s draft is 404', async () => {
    const position = { base_sha: sha('a'), start_sha: sha('a'), head_sha: sha('b'), position_type: 'text', new_path: 'src/health.rb', old_path: 'src/health.rb', new_line: 1 };
    const draft = (await call('POST', DRAFTS, { note: 'line', position }, token('alice-token'))).body;
    expect(draft.line_code).toMatch(/^[0-9a-f]{40}__1$/);
    expect((await call('PUT', `${DRAFTS}/${draft.id}/publish`)).status).toBe(404);
    const published = await call('PUT', `${DRAFTS}/${draft.id}/publish`, undefined, token('alice-token'));
    expect(published.status).toBe(204);
    expect(published.body).toBeUndefined();
    const notes = (await call('GET', '/projects/1/merge_requests/1/notes')).body;
    expect(notes[0]).toMatchObject({ body: 'line', type: 'DiffNote', noteable_type: 'MergeRequest', author: { username: 'alice' }, position: { new_line: 1 } });
  });

  it('bulk-publishes only the caller\'s drafts', async () => {
    await call('POST', DRAFTS, { note: 'root 1' });
    await call('POST', DRAFTS, { note: 'root 2' });
    await call('POST', DRAFTS, { note: 'alice pending' }, token('alice-token'));
    expect((await call('POST', `${DRAFTS}/bulk_publish`)).status).toBe(204);
    expect((await call('GET', DRAFTS)).body).toEqual([]);
    expect((await call('GET', DRAFTS, undefined, token('alice-token'))).body).toHaveLength(1);
    const bodies = (await call('GET', '/projects/1/merge_requests/1/notes?sort=asc')).body.map((n: { body: string }) => n.body);
    expect(bodies).toEqual(['line', 'root 1', 'root 2']);
    expect((await call('GET', '/projects/1/merge_requests/77/draft_notes')).body).toEqual({ message: '404 Merge Request Not Found' });
  });

  it('lets guests of a public project write drafts, hides a private project\'s merge requests from its guests, and checks input before the draft is looked up', async () => {
    const group = (await call('POST', '/groups', { name: 'Open', path: 'open-drafts', visibility: 'public' })).body;
    await call('POST', '/projects', { name: 'pub', path: 'pub', namespace_id: group.id, visibility: 'public', initialize_with_readme: true });
    await call('POST', '/projects/open-drafts%2Fpub/repository/commits', { branch: 'topic', start_branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'x.txt', content: 'x' }] });
    const mr = (await call('POST', '/projects/open-drafts%2Fpub/merge_requests', { source_branch: 'topic', target_branch: 'main', title: 'open one' })).body;
    const guest = sandbox.tokenWithRole('guest');
    const guestId = (await call('GET', '/users?username=guest-of-acme')).body[0].id;
    await call('POST', '/projects/open-drafts%2Fpub/members', { user_id: guestId, access_level: 10 });
    expect((await call('POST', `/projects/open-drafts%2Fpub/merge_requests/${mr.iid}/draft_notes`, { note: 'from a guest' }, guest)).status).toBe(201);
    expect(await call('POST', DRAFTS, { note: 'x' }, guest)).toMatchObject({ status: 404, body: { message: '404 Merge Request Not Found' } });
    expect(await call('PUT', `${DRAFTS}/999`, {})).toMatchObject({ status: 400, body: { message: '400 Bad request - Missing params to modify' } });
    expect(await call('PUT', `${DRAFTS}/999`, { note: 'y' })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });
});
