import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { storedHooks } from '../../sandbox/model.js';
import { deliveriesSettled } from '../../sandbox/webhooks.js';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { fakeClock, startReceiver, type Receiver } from '../../../test/helpers/receiver.js';

const clock = fakeClock(Date.parse('2026-03-02T10:00:00Z'));
const sandbox = useTestSandbox({ now: clock.now });
let receiver: Receiver;
const P = '/projects/acme%2Fapi';

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());
beforeEach(() => {
  receiver.received.length = 0;
  receiver.answer(200);
  clock.advance(120_000); // a new rate-limit window for each test
});

async function createHook(body: Record<string, unknown> = {}): Promise<any> {
  const response = await sandbox.call('POST', `${P}/hooks`, { url: `${receiver.url}/hook`, merge_requests_events: true, note_events: true, ...body });
  expect(response.status).toBe(201);
  return response.body;
}
const approve = () => sandbox.call('POST', `${P}/merge_requests/1/approve`);
const unapprove = () => sandbox.call('POST', `${P}/merge_requests/1/unapprove`);
const comment = (body = 'hello') => sandbox.call('POST', `${P}/issues/1/notes`, { body });
const hook = (id: number) => sandbox.call('GET', `${P}/hooks/${id}`).then((r) => r.body);
const events = (id: number, query = '') => sandbox.call('GET', `${P}/hooks/${id}/events${query}`).then((r) => r.body as any[]);
const removeAll = () => void (storedHooks(sandbox.db).length = 0);

describe('project webhooks', () => {
  beforeEach(removeAll);

  it('never returns the secret token and shows only the keys of custom headers and URL variables', async () => {
    const created = await createHook({ token: 's3cret', custom_headers: [{ key: 'X-Api-Key', value: 'k1' }], url: `${receiver.url}/hook/{path}`, url_variables: [{ key: 'path', value: 'p1' }] });
    expect(created).not.toHaveProperty('token');
    expect(created.custom_headers).toEqual([{ key: 'X-Api-Key' }]);
    expect(created.url_variables).toEqual([{ key: 'path' }]);
    expect(created.alert_status).toBe('executable');
    expect(created.push_events).toBe(true);
    expect(JSON.stringify(await hook(created.id))).not.toMatch(/s3cret|k1|p1/);
  });

  it('delivers an event with the service headers, the secret, custom headers and URL variables filled in', async () => {
    const created = await createHook({ token: 's3cret', custom_headers: [{ key: 'X-Api-Key', value: 'k1' }], url: `${receiver.url}/hook/{path}`, url_variables: [{ key: 'path', value: 'p1' }] });
    expect((await approve()).status).toBe(201);
    const [delivery] = await receiver.waitFor(1);
    expect(delivery.method).toBe('POST');
    expect(delivery.path).toBe('/hook/p1');
    expect(delivery.headers).toMatchObject({
      'content-type': 'application/json',
      'x-gitlab-event': 'Merge Request Hook',
      'x-service-event': 'Merge Request Hook',
      'x-gitlab-token': 's3cret',
      'x-service-token': 's3cret',
      'x-gitlab-instance': sandbox.rootUrl,
      'x-api-key': 'k1',
    });
    expect(delivery.headers['user-agent']).toMatch(/^GitLab\//);
    expect(delivery.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(delivery.headers['x-gitlab-webhook-uuid']).toMatch(/^[0-9a-f-]{36}$/);
    expect(delivery.json()).toMatchObject({ object_kind: 'merge_request', object_attributes: { iid: 1, action: 'approved' } });
    await unapprove();
    await deliveriesSettled(sandbox.db);

    const [event] = await events(created.id);
    expect(event).toMatchObject({ trigger: 'merge_request_hooks', response_status: '200', url: `${receiver.url}/hook/{path}` });
    expect(event.request_headers['X-Gitlab-Token']).toBe('[REDACTED]');
    expect(event.request_headers['X-Api-Key']).toBe('[REDACTED]');
    expect(JSON.stringify(event)).not.toContain('s3cret');
    expect(JSON.stringify(event.request_data)).not.toMatch(/@example\.com/);
  });

  it('redacts e-mail addresses in recorded payloads, not SSH clone URLs that look like one', async () => {
    const created = await createHook();
    expect((await approve()).status).toBe(201);
    const [delivery] = await receiver.waitFor(1);
    await unapprove();
    await deliveriesSettled(sandbox.db);
    const sent = delivery.json() as any;
    expect(sent.project.git_ssh_url).toMatch(/^git@[^:]+:acme\/api\.git$/);
    expect(sent.user.email).toMatch(/@/);
    const [event] = await events(created.id);
    expect(event.request_data.project.git_ssh_url).toBe(sent.project.git_ssh_url);
    expect(event.request_data.repository.git_ssh_url).toBe(sent.repository.git_ssh_url);
    expect(event.request_data.user.email).toBe('[REDACTED]');
  });

  it('delivers only the events a hook subscribes to', async () => {
    await createHook({ merge_requests_events: false, note_events: true });
    await approve();
    await unapprove();
    await comment('a comment');
    await deliveriesSettled(sandbox.db);
    expect(receiver.received.map((r) => r.headers['x-gitlab-event'])).toEqual(['Note Hook']);
  });

  it('delivers merge request and issue events with their action (open, close, reopen)', async () => {
    await createHook({ merge_requests_events: true, issues_events: true, note_events: false });
    const mr = await sandbox.call('POST', `${P}/merge_requests`, { source_branch: 'feature', target_branch: 'main', title: 'Status page' });
    expect(mr.status).toBe(201);
    await sandbox.call('PUT', `${P}/merge_requests/${mr.body.iid}`, { state_event: 'close' });
    const issue = await sandbox.call('POST', `${P}/issues`, { title: 'Broken' });
    await sandbox.call('PUT', `${P}/issues/${issue.body.iid}`, { state_event: 'close' });
    await sandbox.call('PUT', `${P}/issues/${issue.body.iid}`, { state_event: 'reopen' });
    await deliveriesSettled(sandbox.db);
    // Deliveries run concurrently, as the service's background jobs do: compare without order.
    const got = receiver.received.map((r) => `${r.headers['x-gitlab-event']} ${r.json().object_attributes.action}`).sort();
    expect(got).toEqual(['Issue Hook close', 'Issue Hook open', 'Issue Hook reopen', 'Merge Request Hook close', 'Merge Request Hook open']);
  });

  it('disables a failing hook for 1 minute at the 4th failure, then longer, for good at the 40th; a successful test re-enables it', async () => {
    const created = await createHook();
    receiver.answer(500);
    for (let i = 0; i < 3; i++) {
      await comment();
      await deliveriesSettled(sandbox.db);
    }
    expect((await hook(created.id)).alert_status).toBe('executable');
    await comment();
    await deliveriesSettled(sandbox.db);
    const disabled = await hook(created.id);
    expect(disabled.alert_status).toBe('temporarily_disabled');
    expect(Date.parse(disabled.disabled_until) - clock.now().getTime()).toBe(60_000);
    // While disabled nothing is delivered.
    await comment();
    await deliveriesSettled(sandbox.db);
    expect(receiver.received).toHaveLength(4);
    // After the minute it delivers again; the 5th failure disables it for 2 minutes.
    clock.advance(61_000);
    await comment();
    await deliveriesSettled(sandbox.db);
    expect(receiver.received).toHaveLength(5);
    expect(Date.parse((await hook(created.id)).disabled_until) - clock.now().getTime()).toBe(120_000);
    expect(await events(created.id, '?status=server_failure')).toHaveLength(5);

    // A test runs even while disabled; a 2xx answer re-enables the hook.
    receiver.answer(200);
    expect((await sandbox.call('POST', `${P}/hooks/${created.id}/test/note_events`)).status).toBe(201);
    expect(await hook(created.id)).toMatchObject({ alert_status: 'executable', disabled_until: null });

    // 40 consecutive failures disable it for good.
    receiver.answer(404);
    for (let i = 0; i < 40; i++) {
      clock.advance(86_400_000 + 1000);
      await comment();
      await deliveriesSettled(sandbox.db);
    }
    expect((await hook(created.id)).alert_status).toBe('disabled');
    clock.advance(30 * 86_400_000);
    expect((await hook(created.id)).alert_status).toBe('disabled');
  });

  it('delivers to loopback receivers only: another host is recorded as a failed delivery, never contacted', async () => {
    const created = await createHook({ url: 'http://hooks.example.com/ci' });
    expect((await sandbox.call('POST', `${P}/hooks/${created.id}/test/push_events`)).status).toBe(422);
    const [event] = await events(created.id);
    expect(event).toMatchObject({ response_status: 'internal error', response_body: 'the sandbox delivers only to loopback addresses, not to hooks.example.com' });
  });

  it('tests a hook: 201 on a 2xx answer, 422 with the answer otherwise, 400 for an unknown trigger, 429 after 5 a minute', async () => {
    const created = await createHook();
    const test = (trigger: string) => sandbox.call('POST', `${P}/hooks/${created.id}/test/${trigger}`);
    expect(await test('push_events')).toEqual({ status: 201, body: { message: '201 Created' } });
    expect(receiver.received[0].json()).toMatchObject({ object_kind: 'push', ref: 'refs/heads/main', total_commits_count: expect.any(Number) });
    receiver.answer(503, 'down for maintenance');
    expect(await test('merge_requests_events')).toEqual({ status: 422, body: { message: 'down for maintenance' } });
    expect(await test('wiki_page_events')).toEqual({ status: 422, body: { message: 'Ensure the wiki is enabled and has pages.' } });
    expect((await test('no_such_events')).status).toBe(400);
    expect((await test('tag_push_events')).status).toBe(422); // receiver still 503
    expect((await test('push_events')).status).toBe(429);
    clock.advance(60_001);
    receiver.answer(200);
    expect((await test('pipeline_events')).status).toBe(201);
    expect(receiver.received.at(-1)!.json()).toMatchObject({ object_kind: 'pipeline' });
  });

  it('lists events of the last 7 days, newest first, filtered by status', async () => {
    const created = await createHook();
    await comment('one');
    await deliveriesSettled(sandbox.db);
    receiver.answer(404);
    await comment('two');
    await deliveriesSettled(sandbox.db);
    expect((await events(created.id)).map((e) => e.response_status)).toEqual(['404', '200']);
    expect((await events(created.id, '?status=successful')).map((e) => e.response_status)).toEqual(['200']);
    expect((await events(created.id, '?status=client_failure')).map((e) => e.response_status)).toEqual(['404']);
    expect((await events(created.id, '?status=404'))).toHaveLength(1);
    expect((await sandbox.call('GET', `${P}/hooks/${created.id}/events?status=bogus`)).status).toBe(400);
    clock.advance(7 * 86_400_000 + 1000);
    expect(await events(created.id)).toEqual([]);
  });

  it('resends an event with the same Idempotency-Key, answers {response_status}, 5 a minute per hook', async () => {
    const created = await createHook();
    receiver.answer(500);
    await comment();
    await deliveriesSettled(sandbox.db);
    const [failed] = await events(created.id);
    receiver.answer(200);
    const resend = () => sandbox.call('POST', `${P}/hooks/${created.id}/events/${failed.id}/resend`);
    expect(await resend()).toEqual({ status: 201, body: { response_status: 200 } });
    expect(receiver.received[1].headers['idempotency-key']).toBe(receiver.received[0].headers['idempotency-key']);
    expect(receiver.received[1].body).toBe(JSON.stringify(failed.request_data));
    for (let i = 0; i < 4; i++) expect((await resend()).status).toBe(201);
    const limited = await resend();
    expect(limited).toEqual({ status: 429, body: { message: { error: 'This endpoint has been requested too many times. Try again later.' } } });
    expect(limited.headers.get('retry-after')).toBeNull();
    clock.advance(60_001);
    expect((await resend()).status).toBe(201);
    expect((await sandbox.call('POST', `${P}/hooks/${created.id}/events/999999/resend`)).status).toBe(404);
  });

  it('refuses to resend to a disabled hook or after the URL changed', async () => {
    const created = await createHook();
    receiver.answer(500);
    for (let i = 0; i < 4; i++) {
      await comment();
      await deliveriesSettled(sandbox.db);
    }
    const [event] = await events(created.id);
    const resend = () => sandbox.call('POST', `${P}/hooks/${created.id}/events/${event.id}/resend`);
    expect(await resend()).toEqual({ status: 422, body: { message: 'Hook disabled' } });
    await sandbox.call('PUT', `${P}/hooks/${created.id}`, { url: `${receiver.url}/elsewhere` });
    expect(await resend()).toEqual({ status: 422, body: { message: 'The hook URL has changed, and this log entry cannot be retried' } });
  });

  it('resets the secret token when the URL changes without a new one', async () => {
    const created = await createHook({ token: 'first' });
    await sandbox.call('PUT', `${P}/hooks/${created.id}`, { name: 'renamed' });
    await comment();
    await deliveriesSettled(sandbox.db);
    expect(receiver.received[0].headers['x-gitlab-token']).toBe('first');
    await sandbox.call('PUT', `${P}/hooks/${created.id}`, { url: `${receiver.url}/moved` });
    await comment();
    await deliveriesSettled(sandbox.db);
    expect(receiver.received[1].headers).not.toHaveProperty('x-gitlab-token');
    await sandbox.call('PUT', `${P}/hooks/${created.id}`, { url: `${receiver.url}/again`, token: 'second' });
    await comment();
    await deliveriesSettled(sandbox.db);
    expect(receiver.received[2].headers['x-gitlab-token']).toBe('second');
  });

  it('sets and deletes URL variables and custom headers (204), whose values are never returned', async () => {
    const created = await createHook({ url: `${receiver.url}/h/{id}`, url_variables: [{ key: 'id', value: 'one' }] });
    const base = `${P}/hooks/${created.id}`;
    expect((await sandbox.call('PUT', `${base}/url_variables/id`, { value: 'two' })).status).toBe(204);
    expect((await sandbox.call('PUT', `${base}/custom_headers/X-Secret`, { value: 'v' })).status).toBe(204);
    expect((await sandbox.call('PUT', `${base}/custom_headers/X-Secret`, {})).status).toBe(400);
    expect(await hook(created.id)).toMatchObject({ url_variables: [{ key: 'id' }], custom_headers: [{ key: 'X-Secret' }] });
    await comment();
    const [delivery] = await receiver.waitFor(1);
    expect(delivery.path).toBe('/h/two');
    expect(delivery.headers['x-secret']).toBe('v');
    expect((await sandbox.call('DELETE', `${base}/custom_headers/X-Secret`)).status).toBe(204);
    expect((await sandbox.call('DELETE', `${base}/custom_headers/X-Secret`)).status).toBe(404);
    // The URL still needs {id}.
    expect((await sandbox.call('DELETE', `${base}/url_variables/id`)).status).toBe(204);
    const missing = await sandbox.call('POST', `${P}/hooks`, { url: `${receiver.url}/h/{id}` });
    expect(missing).toEqual({ status: 422, body: { message: { url: ['Invalid URL template. Missing key: ["id"]'] } } });
  });

  it('records a delivery to a non-loopback address as an internal error, and never sends it', async () => {
    const created = await createHook({ url: 'https://hooks.example.com/x' });
    await comment();
    await deliveriesSettled(sandbox.db);
    const [event] = await events(created.id);
    expect(event).toMatchObject({ response_status: 'internal error', response_body: expect.stringContaining('loopback') });
  });

  it('filters push deliveries by branch (wildcard and regex)', async () => {
    const { branchMatches } = await import('../../sandbox/webhooks.js');
    const base = { push_events_branch_filter: 'release/*', branch_filter_strategy: 'wildcard' } as any;
    expect(branchMatches(base, 'release/1.0')).toBe(true);
    expect(branchMatches(base, 'main')).toBe(false);
    expect(branchMatches({ ...base, branch_filter_strategy: 'regex', push_events_branch_filter: '^(main|dev)$' }, 'dev')).toBe(true);
    expect(branchMatches({ ...base, branch_filter_strategy: 'all_branches' }, 'anything')).toBe(true);
  });
});
