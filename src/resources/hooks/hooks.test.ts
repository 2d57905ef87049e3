import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { storedHooks } from '../../sandbox/model.js';
import { deliveriesSettled } from '../../sandbox/webhooks.js';
import { tempDir, useTestSandbox, type RunOptions } from '../../../test/helpers/cli.js';
import { fakeClock, startReceiver, type Receiver } from '../../../test/helpers/receiver.js';

const clock = fakeClock(Date.parse('2026-03-02T10:00:00Z'));
const sandbox = useTestSandbox({ now: clock.now });
let receiver: Receiver;
const P = ['--project', 'acme/api'];

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());
beforeEach(() => {
  storedHooks(sandbox.db).length = 0;
  receiver.received.length = 0;
  receiver.answer(200);
  clock.advance(120_000);
  clock.slept.length = 0;
});

const cli = (argv: string[], options: RunOptions = {}) => sandbox.run([...argv], { now: clock.now, sleep: clock.sleep, ...options });
/** A comment on issue 1: an event that hooks subscribed to note events get. */
async function comment(): Promise<void> {
  expect((await sandbox.call('POST', '/projects/acme%2Fapi/issues/1/notes', { body: 'hi' })).status).toBe(201);
  await deliveriesSettled(sandbox.db);
}
async function createHook(extra: string[] = [], options: RunOptions = {}): Promise<number> {
  const result = await cli(['hooks', 'create', ...P, '--url', `${receiver.url}/hook`, '--events', 'note', '-o', 'json', ...extra], options);
  expect(result.stderr).not.toContain('error');
  expect(result.code).toBe(0);
  return result.json().id;
}

describe('hooks create and update', () => {
  it('takes the secret token from stdin, never returns it, and the receiver gets it', async () => {
    const created = await cli(['hooks', 'create', ...P, '--url', `${receiver.url}/hook`, '--events', 'push,note', '--token-stdin', '-o', 'json'], { input: 's3cret\n' });
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ push_events: true, note_events: true, merge_requests_events: false });
    expect(created.stdout).not.toContain('s3cret');
    await comment();
    expect(receiver.received[0].headers['x-gitlab-token']).toBe('s3cret');
  });

  it('delivers a push: one POST with the secret header and the push payload', async () => {
    const created = await cli(['hooks', 'create', ...P, '--url', `${receiver.url}/hook`, '--events', 'push', '--token-stdin', '-o', 'json'], { input: 'push-secret\n' });
    expect(created.code).toBe(0);
    const before = (await sandbox.call('GET', '/projects/acme%2Fapi/repository/commits/main')).body.id;
    const dir = tempDir();
    writeFileSync(join(dir, 'CHANGELOG.md'), '# Changes\n');
    const pushed = await cli(['commits', 'create', ...P, '--branch', 'main', '-m', 'Add the changelog', '--add', `${join(dir, 'CHANGELOG.md')}:CHANGELOG.md`, '-o', 'json']);
    expect(pushed.code).toBe(0);
    await deliveriesSettled(sandbox.db);
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    expect(delivery.headers).toMatchObject({ 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': 'push-secret' });
    expect(delivery.json()).toMatchObject({
      object_kind: 'push',
      event_name: 'push',
      ref: 'refs/heads/main',
      before,
      after: pushed.json().id,
      checkout_sha: pushed.json().id,
      user_username: 'root',
      project: { path_with_namespace: 'acme/api', default_branch: 'main' },
      commits: [{ id: pushed.json().id, title: 'Add the changelog', added: ['CHANGELOG.md'], modified: [], removed: [] }],
      total_commits_count: 1,
      repository: { name: 'api' },
    });
  });

  it('refuses a URL that is not http(s), without hinting at placeholders that only badges render', async () => {
    const hook = await cli(['hooks', 'create', ...P, '--url', 'ftp://x.example.com/hook']);
    expect(hook.code).toBe(2);
    expect(hook.stderr).toBe('error: --url must be an http(s) URL with a literal host name, got "ftp://x.example.com/hook"\n');
    const badge = await cli(['badges', 'create', ...P, '--link-url', 'ftp://x.example.com', '--image-url', 'https://x.example.com/b.svg']);
    expect(badge.code).toBe(2);
    expect(badge.stderr).toContain('hint: placeholders such as %{project_path} work in the path and query');
  });

  it('refuses secrets on the command line with exit 2 and sends nothing', async () => {
    sandbox.clearRequests();
    expect((await cli(['hooks', 'create', ...P, '--url', `${receiver.url}/h`, '--token', 'abc'])).code).toBe(2);
    const literal = await cli(['hooks', 'create', ...P, '--url', `${receiver.url}/h`, '--header', 'X-Api-Key=abc123']);
    expect(literal.code).toBe(2);
    expect(literal.stderr).toContain('write-only');
    expect(literal.stderr).not.toContain('abc123');
    const twoStdin = await cli(['hooks', 'create', ...P, '--url', `${receiver.url}/h`, '--token-stdin', '--header', 'X-A=-'], { input: 'x' });
    expect(twoStdin.code).toBe(2);
    expect((await cli(['hooks', 'create', ...P, '--url', `${receiver.url}/h`, '--events', 'push,bogus'])).stderr).toContain('unknown event "bogus"');
    for (const verb of [['create'], ['update', '1']]) {
      const password = await cli(['hooks', ...verb, ...P, '--url', 'https://bot:hookpw-42@hooks.example.com/x']);
      expect(password.code).toBe(2);
      expect(password.stderr).toContain('--url carries a password');
      expect(password.stderr).toContain("--url 'https://bot:{password}@hooks.example.com/x' --url-var password=env:HOOK_PASSWORD");
      expect(password.stderr).not.toContain('hookpw-42');
    }
    expect(sandbox.requests()).toEqual([]);
  });

  it('--generate-token writes a random token to a 0600 file; headers and URL variables come from env and files', async () => {
    const dir = tempDir();
    const file = join(dir, 'hook.secret');
    writeFileSync(join(dir, 'key'), 'k-from-file\n');
    const id = await createHook(
      ['--url', `${receiver.url}/hook/{room}`, '--generate-token', file, '--header', `X-Api-Key=file:${join(dir, 'key')}`, '--url-var', 'room=env:ROOM'],
      { env: { ROOM: 'blue' } },
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toBe('');
    const token = readFileSync(file, 'utf8').trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    await comment();
    expect(receiver.received[0]).toMatchObject({ path: '/hook/blue', headers: { 'x-gitlab-token': token, 'x-api-key': 'k-from-file' } });
    const shown = await cli(['hooks', 'get', String(id), ...P, '-o', 'json']);
    expect(shown.json()).toMatchObject({ url_variables: [{ key: 'room' }], custom_headers: [{ key: 'X-Api-Key' }] });
    expect(shown.stdout).not.toMatch(/blue|k-from-file/);
  });

  it('refuses update --url without a new secret, since the service would drop it; --allow-token-reset accepts that', async () => {
    const id = await createHook(['--token-env', 'SECRET'], { env: { SECRET: 'first' } });
    sandbox.clearRequests();
    const refused = await cli(['hooks', 'update', String(id), ...P, '--url', `${receiver.url}/moved`]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('remove its secret token');
    expect(sandbox.requests().map((r) => r.method)).toEqual(['GET']);
    expect((await cli(['hooks', 'update', String(id), ...P, '--url', `${receiver.url}/moved`, '--token-env', 'SECRET'], { env: { SECRET: 'second' } })).code).toBe(0);
    await comment();
    expect(receiver.received.at(-1)!.headers['x-gitlab-token']).toBe('second');
    expect((await cli(['hooks', 'update', String(id), ...P, '--url', `${receiver.url}/again`, '--allow-token-reset'])).code).toBe(0);
    await comment();
    expect(receiver.received.at(-1)!.headers).not.toHaveProperty('x-gitlab-token');
    // --events replaces the set; nothing to change is exit 2.
    const events = await cli(['hooks', 'update', String(id), ...P, '--events', 'tag_push', '-o', 'json']);
    expect(events.json()).toMatchObject({ note_events: false, tag_push_events: true, push_events: false });
    expect((await cli(['hooks', 'update', String(id), ...P])).code).toBe(2);
  });

  it('--dry-run shows the request with the token, header and URL variable values redacted', async () => {
    const env = { env: { SECRET: 'topsecret' } };
    const created = await cli(['--dry-run', 'hooks', 'create', ...P, '--url', `${receiver.url}/{room}`, '--token-env', 'SECRET', '--header', 'X-Api-Key=env:SECRET', '--url-var', 'room=env:SECRET'], env);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('"custom_headers"');
    expect(created.stdout).not.toContain('topsecret');
    const header = await cli(['--dry-run', 'hooks', 'header', 'set', '1', 'X-A', 'env:SECRET', ...P], env);
    expect(header.stdout).toContain('[REDACTED]');
    expect(header.stdout).not.toContain('topsecret');
  });

  it('sets and removes URL variables and headers from a source, never from argv', async () => {
    const id = String(await createHook(['--url', `${receiver.url}/h/{room}`, '--url-var', 'room=env:ROOM'], { env: { ROOM: 'red' } }));
    expect((await cli(['hooks', 'url-var', 'set', id, 'room', 'green', ...P])).code).toBe(2);
    expect((await cli(['hooks', 'url-var', 'set', id, 'room', '-', ...P], { input: 'green\n' })).code).toBe(0);
    expect((await cli(['hooks', 'header', 'set', id, 'X-Auth', 'env:AUTH', ...P], { env: { AUTH: 'a1' } })).code).toBe(0);
    await comment();
    expect(receiver.received[0]).toMatchObject({ path: '/h/green', headers: { 'x-auth': 'a1' } });
    expect((await cli(['hooks', 'header', 'delete', id, 'X-Auth', ...P])).code).toBe(2);
    expect((await cli(['hooks', 'header', 'delete', id, 'X-Auth', ...P, '--yes'])).code).toBe(0);
    expect((await cli(['hooks', 'header', 'delete', id, 'X-Auth', ...P, '--yes'])).code).toBe(5);
  });
});

describe('failing deliveries: status, events, test and resend', () => {
  /** Makes `count` failed deliveries while keeping the hook enabled (a successful test resets the failure count). */
  async function failures(id: number, count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      receiver.answer(500);
      await comment();
      if (i % 3 === 2) {
        receiver.answer(200);
        expect((await cli(['hooks', 'test', String(id), ...P, '--trigger', 'note'])).code).toBe(0);
        clock.advance(12_000); // 5 tests a minute per project
      }
    }
  }

  it('shows the status move in hooks list: ok, disabled until …, and ok again after a successful test', async () => {
    const id = await createHook();
    const status = async () => (await cli(['hooks', 'list', ...P])).stdout.trim().split('\t').pop();
    expect(await status()).toBe('ok');
    receiver.answer(500);
    for (let i = 0; i < 4; i++) await comment();
    const until = new Date(clock.now().getTime() + 60_000).toISOString().slice(0, 19);
    expect(await status()).toMatch(new RegExp(`^disabled until ${until}`));
    const listed = await cli(['hooks', 'list', ...P, '-o', 'json']);
    expect(listed.json()[0]).toMatchObject({ events: 'note', alert_status: 'temporarily_disabled' });

    const failedTest = await cli(['hooks', 'test', String(id), ...P]);
    expect(failedTest.code).toBe(6);
    expect(failedTest.stderr).toMatch(new RegExp(`^error: the test of webhook ${id} \\(push\\) failed: the receiver answered 500: \\{"error":"status 500"\\}\\n`));
    receiver.answer(200);
    const test = await cli(['hooks', 'test', String(id), ...P, '--trigger', 'note', '-o', 'json']);
    expect(test.code).toBe(0);
    expect(test.json()).toMatchObject({ response_status: '200', status: 'ok', trigger: 'note_hooks' });
    expect(test.stderr).toContain('re-enabled');
    expect(await status()).toBe('ok');
  });

  it('lists failed deliveries, and filters by status, trigger and time', async () => {
    const id = String(await createHook());
    await comment();
    await failures(Number(id), 2);
    const failed = await cli(['hooks', 'events', id, ...P, '--status', 'failed', '-o', 'json']);
    expect(failed.json().map((e: { response_status: string }) => e.response_status)).toEqual(['500', '500']);
    expect((await cli(['hooks', 'events', id, ...P, '--status', 'ok', '-o', 'json'])).json()).toHaveLength(1);
    expect((await cli(['hooks', 'events', id, ...P, '--trigger', 'push', '-o', 'json'])).json()).toEqual([]);
    clock.advance(2 * 3_600_000);
    await comment();
    expect((await cli(['hooks', 'events', id, ...P, '--since', '1h', '-o', 'json'])).json()).toHaveLength(1);
    for (const command of ['events', 'audit']) {
      const bad = await cli(['hooks', command, ...(command === 'events' ? [id] : []), ...P, '--since', '30x']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toBe('error: --since must be a duration such as 24h, 2d or 1w, or a date-time such as 2026-01-31T12:00:00Z, got "30x"\n');
    }
    expect((await cli(['hooks', 'events', id, ...P, '--status', 'broken'])).code).toBe(2);
    const piped = await cli(['hooks', 'events', id, ...P, '--limit', '1']);
    expect(piped.stdout.trim().split('\t')).toHaveLength(6);
  });

  it('shows the recorded payload with e-mail addresses redacted and SSH clone URLs as sent', async () => {
    const id = String(await createHook());
    await comment();
    const [event] = (await cli(['hooks', 'events', id, ...P, '-o', 'json'])).json();
    expect(event.request_data.project.git_ssh_url).toMatch(/^git@[^:]+:acme\/api\.git$/);
    expect(event.request_data.user.email).toBe('[REDACTED]');
  });

  it('resends the failed deliveries once the receiver answers, at most 5 a minute, and never twice', async () => {
    const id = String(await createHook());
    await failures(Number(id), 7);
    sandbox.clearRequests();
    receiver.received.length = 0;
    receiver.answer(200);
    const resend = await cli(['hooks', 'resend', id, ...P, '--failed', '-o', 'json']);
    expect(resend.stderr).toMatch(/waiting \d+s: the service allows 5 resends a minute/);
    expect(resend.code).toBe(0);
    expect(resend.json().map((r: { result: string }) => r.result)).toEqual(Array(7).fill('delivered'));
    expect(receiver.received).toHaveLength(7);
    // Paced: the 6th waited for the minute to pass (the sandbox would have answered 429 otherwise).
    expect(clock.slept.some((ms) => ms > 50_000 && ms <= 60_000)).toBe(true);
    const resends = sandbox.requests().filter((r) => r.path.endsWith('/resend'));
    expect(resends.map((r) => r.status)).toEqual(Array(7).fill(201));
    // Each delivery keeps its Idempotency-Key; the ones that succeeded are not resent again.
    const again = await cli(['hooks', 'resend', id, ...P, '--failed']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('no failed deliveries');
  });

  it('Ctrl-C while waiting for the limit says which deliveries were not resent yet', async () => {
    const id = String(await createHook());
    await failures(Number(id), 6);
    receiver.answer(200);
    const failed = (await cli(['hooks', 'events', id, ...P, '--status', 'failed', '-o', 'json'])).json().map((e: { id: number }) => e.id);
    let interrupt!: (signal: 'SIGINT') => void;
    const interrupted = new Promise<'SIGINT'>((resolve) => (interrupt = resolve));
    // The wait for the next minute is where the user gives up.
    const sleep = (ms: number) => (ms > 30_000 ? (interrupt('SIGINT'), new Promise<void>(() => undefined)) : clock.sleep(ms));
    const resend = await cli(['hooks', 'resend', id, ...P, '--failed'], { sleep, interrupted });
    expect(resend.code).toBe(130);
    const left = failed.slice(0, -5).map(String).join(', ');
    expect(resend.stderr).toContain(`interrupted by SIGINT: 5 of 6 deliveries resent; not yet event ${left} (run it again: those delivered are skipped)\n`);
    clock.advance(60_000);
  });

  it('a 429 the service answers anyway is waited out once, as long as it asks (a whole minute when it does not say), saying so; exits 9 when a resend still fails', async () => {
    const id = String(await createHook());
    await failures(Number(id), 2);
    const resends = () => sandbox.requests().filter((r) => r.path.endsWith('/resend')).map((r) => r.status);
    const tooMany = { method: 'POST', path: 'resend$', status: 429, body: { message: { error: 'This endpoint has been requested too many times. Try again later.' } } };
    receiver.answer(200);
    // Retry-After: 5 is honoured once, by one layer: one wait of 5 s, said on stderr; the request is sent twice, not five times.
    sandbox.fault({ ...tooMany, retry_after: 5 });
    sandbox.clearRequests();
    clock.slept.length = 0;
    const told = await cli(['hooks', 'resend', id, ...P, '--failed', '-o', 'json']);
    expect(told.code, told.stderr).toBe(0);
    expect(resends()).toEqual([429, 201, 201]);
    expect(clock.slept).toEqual([5_000]);
    expect(told.stderr).toBe('waiting 5s: the service answered 429 (too many requests) asking for this wait; then attempt 2 of 4 (0 of 2 done)\n');
    clock.advance(60_000);

    // No Retry-After: a whole minute, the window of the service's limit, once.
    await failures(Number(id), 1);
    receiver.answer(200);
    sandbox.fault(tooMany);
    sandbox.clearRequests();
    clock.slept.length = 0;
    const paced = await cli(['hooks', 'resend', id, ...P, '--failed', '-o', 'json']);
    expect(paced.code, paced.stderr).toBe(0);
    expect(resends()).toEqual([429, 201]);
    expect(clock.slept).toEqual([60_000]);
    expect(paced.stderr).toContain('waiting 60s: the service answered 429 (too many requests) without saying how long: a whole minute, the window of its limit; then attempt 2 of 4');
    clock.advance(60_000);

    // A wait longer than forgectl waits: nothing more is sent, and the run says when to try again.
    await failures(Number(id), 1);
    receiver.answer(200);
    sandbox.fault({ ...tooMany, retry_after: 300 });
    sandbox.clearRequests();
    clock.slept.length = 0;
    const later = await cli(['hooks', 'resend', id, ...P, '--failed', '-o', 'json']);
    expect(later.code).toBe(9);
    expect(resends()).toEqual([429]);
    expect(clock.slept).toEqual([]);
    expect(later.json().map((r: { result: string }) => r.result)).toEqual(['not sent']);
    expect(later.stderr).toMatch(/the server asks to wait 5 min before retrying; forgectl waits at most 60 s; nothing was changed \(the server refused the request\): run it again after 5 min \(after 2026-/);
    clock.advance(300_000);

    await failures(Number(id), 1);
    const [event] = (await cli(['hooks', 'events', id, ...P, '--status', 'failed', '--limit', '1', '-o', 'json'])).json();
    receiver.answer(503);
    const failing = await cli(['hooks', 'resend', id, String(event.id), ...P]);
    expect(failing.code).toBe(9);
    expect(failing.stderr).toContain('1 of 1 deliveries still failed');
    expect(failing.stdout).toContain('failed');
  });

  it('an event id the hook does not have is "not found" (exit 5, naming where the ids are), not a failed delivery', async () => {
    const id = String(await createHook());
    await failures(Number(id), 1);
    const [event] = (await cli(['hooks', 'events', id, ...P, '--status', 'failed', '--limit', '1', '-o', 'json'])).json();
    receiver.answer(200);
    const missing = await cli(['hooks', 'resend', id, '99999', ...P]);
    expect(missing.code, missing.stderr).toBe(5);
    expect(missing.stdout).toContain('not found');
    expect(missing.stderr).toBe(`webhook ${id} has no delivery 99999: forgectl hooks events ${id} --project acme/api lists those of the last 7 days\n`);
    // With one that exists: it is delivered, the missing one is named, and the run is not a success.
    clock.advance(60_000);
    const mixed = await cli(['hooks', 'resend', id, String(event.id), '99999', ...P, '-o', 'json']);
    expect(mixed.json().map((r: { result: string }) => r.result)).toEqual(['delivered', 'not found']);
    // The one named by id says when it happened and what triggered it, as --failed does.
    expect(mixed.json()[0]).toMatchObject({ event_id: event.id, created_at: event.created_at, trigger: event.trigger });
    expect(event.created_at).toBeTruthy();
    expect(mixed.code).toBe(5);
  });

  it('refuses to resend to a disabled hook, naming the test that re-enables it', async () => {
    const id = String(await createHook());
    receiver.answer(500);
    for (let i = 0; i < 4; i++) await comment();
    sandbox.clearRequests();
    const refused = await cli(['hooks', 'resend', id, ...P, '--failed']);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain(`hooks test ${id}`);
    expect(sandbox.requests().filter((r) => r.method === 'POST')).toEqual([]);
    expect((await cli(['hooks', 'resend', id, ...P])).code).toBe(2);
  });

  it('audits: failed deliveries, paused hooks, TLS off and plain http are findings (exit 9); healthy hooks exit 0', async () => {
    const id = await createHook();
    await comment();
    const healthy = await cli(['hooks', 'audit', ...P]);
    expect(healthy.code).toBe(0);
    expect(healthy.stderr).toContain('look healthy');
    receiver.answer(500);
    for (let i = 0; i < 4; i++) await comment();
    await cli(['hooks', 'create', ...P, '--url', 'http://hooks.example.com/x', '--no-ssl-verify']);
    const audit = await cli(['hooks', 'audit', ...P, '-o', 'json']);
    expect(audit.code).toBe(9);
    const findings = audit.json().map((row: { hook_id: number; finding: string }) => `${row.hook_id === id ? 'first' : 'second'}: ${row.finding}`);
    expect(findings).toEqual([
      expect.stringMatching(/^first: disabled until /),
      'first: 4 of 5 deliveries since 24h failed',
      'second: TLS certificate verification is off',
      'second: deliveries to hooks.example.com are not encrypted (http)',
    ]);
  });

  it('audits a fleet: the same URL twice, hooks the desired state does not declare; --fix turns TLS on and re-enables', async () => {
    const url = `${receiver.url}/hook`;
    const id = await createHook();
    receiver.answer(500);
    for (let i = 0; i < 4; i++) await comment();
    receiver.answer(200);
    const web = ['--project', 'acme/web', '--url', url, '--events', 'push', '-o', 'json'];
    const insecure = (await cli(['hooks', 'create', ...web, '--no-ssl-verify'])).json().id as number;
    expect((await cli(['hooks', 'create', ...web])).code).toBe(0);
    const desired = join(tempDir(), 'desired.yaml');
    writeFileSync(desired, `projects:\n  acme/api:\n    hooks: [{url: "${url}"}]\n`);

    const audit = await cli(['hooks', 'audit', '--group', 'acme', '--desired', desired, '--fields', 'project,hook_id,finding', '-o', 'json']);
    expect(audit.code).toBe(9);
    const rows = audit.json<Array<{ project: string; hook_id: number; finding: string }>>().map((r) => `${r.project} ${r.hook_id === id ? 'api' : r.hook_id === insecure ? 'insecure' : 'twin'}: ${r.finding}`);
    expect(rows).toEqual([
      expect.stringMatching(/^acme\/api api: disabled until /),
      'acme/api api: 4 of 4 deliveries since 24h failed',
      'acme/web insecure: TLS certificate verification is off',
      `acme/web insecure: not declared in ${desired}`,
      `acme/web twin: the same URL as webhook ${insecure}`,
      `acme/web twin: not declared in ${desired}`,
    ]);

    expect((await cli(['hooks', 'audit', '--group', 'acme', '--fix', 'ssl-on'])).code).toBe(2); // confirmation needed off a terminal
    expect(storedHooks(sandbox.db).find((h) => h.id === insecure)!.enable_ssl_verification).toBe(false);
    const fixed = await cli(['hooks', 'audit', '--group', 'acme', '--fix', 'ssl-on,reenable', '--yes', '--fields', 'project,finding,fixed', '-o', 'json']);
    expect(fixed.code).toBe(9);
    expect(fixed.json()).toEqual(expect.arrayContaining([
      { project: 'acme/api', finding: expect.stringMatching(/^disabled until /), fixed: 'fixed' },
      { project: 'acme/web', finding: 'TLS certificate verification is off', fixed: 'fixed' },
      { project: 'acme/web', finding: `the same URL as webhook ${insecure}`, fixed: null },
    ]));
    expect(storedHooks(sandbox.db).find((h) => h.id === insecure)!.enable_ssl_verification).toBe(true);
    expect((await cli(['hooks', 'get', String(id), ...P, '-o', 'json'])).json().alert_status).toBe('executable');
    expect((await cli(['hooks', 'audit', '--project', 'acme/api', '--fix', 'tls'])).stderr).toContain('--fix tls: unknown; choose from ssl-on, reenable');
  });
});
