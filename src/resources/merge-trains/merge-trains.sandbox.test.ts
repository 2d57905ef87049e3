import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { members, mergeRequests, tokens } from '../../sandbox/model.js';
import { addToken, addUser } from '../../sandbox/seed.js';
import { pushToBranch } from '../merge-request-approvals/sandbox.js';
import { caller } from '../../../test/sandbox/review-helpers.js';

const sandbox = useTestSandbox({ tier: 'premium' });

const call = caller(() => sandbox);
const token = (name: string) => tokens(sandbox.db).find((t) => t.name === name)!.token;
const mr1 = () => mergeRequests(sandbox.db).find((m) => m.project_id === 1 && m.iid === 1)!;
const TRAIN = '/projects/acme%2Fapi/merge_trains';

describe('sandbox: merge trains (spec 1)', () => {
  it('lists entries with the spec fields, filtered by scope and sorted', async () => {
    const list = await call('GET', `${TRAIN}?scope=complete`);
    expect(list.status).toBe(200);
    expect(Object.keys(list.body[0])).toEqual(['id', 'merge_request', 'user', 'pipeline', 'created_at', 'updated_at', 'target_branch', 'status', 'merged_at', 'duration']);
    expect(Object.keys(list.body[0].merge_request)).toEqual(['id', 'iid', 'project_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'web_url']);
    expect(Object.keys(list.body[0].user)).toEqual(['id', 'username', 'name', 'state', 'avatar_url', 'web_url']);
    expect(list.body[0].pipeline).toMatchObject({ status: 'success', source: 'merge_request_event', project_id: 1 });
    expect(list.headers.get('x-total')).toBe('1');
    expect((await call('GET', `${TRAIN}?scope=active`)).body).toEqual([]);
    expect(await call('GET', `${TRAIN}?scope=all`)).toMatchObject({ status: 400, body: { error: 'scope does not have a valid value' } });
    expect((await call('GET', `${TRAIN}/main?sort=asc`)).body).toHaveLength(1);
    expect((await call('GET', `${TRAIN}/other`)).body).toEqual([]);
  });

  it('adds with 201 and the whole train; 409 for a stale sha, 400 when not mergeable, 401 when not allowed to merge', async () => {
    expect(await call('POST', `${TRAIN}/merge_requests/1`, { sha: '1'.repeat(40) })).toMatchObject({ status: 409, body: { message: `SHA does not match HEAD of source branch: ${mr1().sha}` } });
    expect(await call('POST', `${TRAIN}/merge_requests/1`)).toMatchObject({ status: 400, body: { message: '400 Bad request - Failed to merge: not_approved' } });
    await call('POST', '/projects/1/merge_requests/1/approve');
    expect((await call('POST', `${TRAIN}/merge_requests/1`, undefined, token('bob-token'))).status).toBe(401);
    const added = await call('POST', `${TRAIN}/merge_requests/1`, { sha: mr1().sha, squash: true });
    expect(added.status).toBe(201);
    expect(added.body.map((c: { merge_request: { iid: number }; status: string }) => [c.merge_request.iid, c.status])).toEqual([[1, 'idle'], [2, 'merged']]);
    expect((await call('GET', `${TRAIN}/merge_requests/1`)).body).toMatchObject({ status: 'idle', target_branch: 'main' });
  });

  it('takes a merge request off the train when its source branch is pushed to', async () => {
    pushToBranch(sandbox.db, { projectId: 1, branch: 'feature/health', sha: 'd'.repeat(40), tier: 'premium' });
    expect(await call('GET', `${TRAIN}/merge_requests/1`)).toMatchObject({ status: 404, body: { message: '404 Merge Train Merge Request Not Found' } });
    // The push cleared the approval, so auto-merge schedules (202) until someone approves again.
    const scheduled = await call('POST', `${TRAIN}/merge_requests/1`, { auto_merge: true });
    expect(scheduled.status).toBe(202);
    expect((await call('GET', `${TRAIN}/merge_requests/1`)).status).toBe(404);
    await call('POST', '/projects/1/merge_requests/1/approve', undefined, token('alice-token'));
    expect((await call('GET', `${TRAIN}/merge_requests/1`)).body).toMatchObject({ status: 'idle', user: { username: 'root' } });
  });

  it('needs the Developer role: 404 for outsiders of the private project, 403 for a reporter', async () => {
    const now = new Date();
    const outsider = addToken(sandbox.db, addUser(sandbox.db, { username: 'outsider' }, now), {}, now);
    expect(await call('GET', TRAIN, undefined, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    const reporterUser = addUser(sandbox.db, { username: 'reporter' }, now);
    members(sandbox.db).push({ source_type: 'project', source_id: 1, user_id: reporterUser.id, access_level: 20 });
    const reporter = addToken(sandbox.db, reporterUser, {}, now);
    expect(await call('GET', TRAIN, undefined, reporter.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });
});
