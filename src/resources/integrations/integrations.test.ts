import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../../../test/helpers/cli.js';
import { integrationTable } from '../../sandbox/model.js';
import { tokens } from '../../sandbox/model.js';

const sandbox = useTestSandbox();
const dir = tempDir();

describe('integrations', () => {
  it('lists the active integrations of a group, as TSV in a pipe', async () => {
    const result = await sandbox.run(['integrations', 'list', '--group', 'acme']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^bugzilla\tBugzilla\ttrue\tfalse\t\S+\n$/);
  });

  it('sets up an integration from params and a secret on stdin; the secret is stored, never shown', async () => {
    const result = await sandbox.run(['integrations', 'set', 'asana', '--group', 'acme', '--secret-stdin', 'api_key', '--param', 'restrict_to_branch=main', '--param', 'push_events=false', '-o', 'json'], { input: 'asana-secret\n' });
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ slug: 'asana', active: true, push_events: false, properties: { restrict_to_branch: 'main' } });
    expect(result.stdout).not.toContain('asana-secret');
    expect(integrationTable(sandbox.db).find((i) => i.slug === 'asana')?.properties.api_key).toBe('asana-secret');
  });

  it('asks for a secret with a hidden prompt when stdin is a terminal (never echoed)', async () => {
    const result = await sandbox.run(['integrations', 'set', 'asana', '--group', 'acme', '--secret-stdin', 'api_key'], { tty: true, input: 'typed-secret\n' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('--secret-stdin api_key');
    expect(result.stdout + result.stderr).not.toContain('typed-secret');
    expect(integrationTable(sandbox.db).find((i) => i.slug === 'asana')?.properties.api_key).toBe('typed-secret');
  });

  it('reads secrets from files, and --use-inherited-settings', async () => {
    const file = join(dir, 'bamboo.pw');
    writeFileSync(file, 'bamboo-pass\n');
    const result = await sandbox.run([
      'integrations', 'set', 'bamboo', '--group', 'acme', '--param', 'bamboo_url=https://ci.example.com', '--param', 'build_key=KEY',
      '--param', 'username=ci', '--secret-file', `password=${file}`, '--use-inherited-settings', '-o', 'json',
    ]);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ slug: 'bamboo', inherited: true, properties: { username: 'ci' } });
    expect(result.json().properties.password).toBeUndefined();
    expect(integrationTable(sandbox.db).find((i) => i.slug === 'bamboo')?.properties.password).toBe('bamboo-pass');
  });

  it("a chat integration's webhook is a credential: never on argv, never returned, masked in every output and export even when a service returns it", async () => {
    const hook = 'https://hooks.slack.example.com/services/T0/B0/chat-webhook-5e1f';
    const file = join(dir, 'slack.webhook');
    writeFileSync(file, `${hook}\n`);
    const refused = await sandbox.run(['integrations', 'set', 'slack', '--group', 'acme', '--param', `webhook=${hook}`]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('use --secret-file webhook=PATH');
    const set = await sandbox.run(['integrations', 'set', 'slack', '--group', 'acme', '--secret-file', `webhook=${file}`, '--param', 'channel=#ci', '-o', 'json']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.json().properties).toEqual(expect.not.objectContaining({ webhook: expect.anything() }));
    expect(integrationTable(sandbox.db).find((i) => i.slug === 'slack')?.properties.webhook).toBe(hook);
    // A service that returns it anyway: every way out masks it.
    const answer = { id: 9, slug: 'slack', title: 'Slack notifications', active: true, properties: { webhook: hook, channel: '#ci' } };
    const shown: string[] = [];
    for (const format of ['json', 'yaml', 'table', 'csv']) {
      sandbox.fault({ method: 'GET', path: 'integrations/slack$', status: 200, body: answer, times: 1 });
      const got = await sandbox.run(['integrations', 'get', 'slack', '--group', 'acme', '-o', format]);
      expect(got.code, got.stderr).toBe(0);
      shown.push(got.stdout);
    }
    sandbox.fault({ method: 'GET', path: 'integrations/slack$', status: 200, body: answer, times: 1 });
    shown.push((await sandbox.run(['integrations', 'get', 'slack', '--group', 'acme', '--jq', '.properties.webhook'])).stdout);
    sandbox.fault({ method: 'GET', path: 'integrations/slack$', status: 200, body: answer, times: 1 });
    const exported = await sandbox.run(['export', '--group', 'acme', '--kinds', 'integrations']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('slack:');
    shown.push(exported.stdout + exported.stderr);
    expect(shown.join('')).toContain('#ci');
    expect(shown.join('')).not.toContain('chat-webhook-5e1f');
  });

  it('refuses secrets as arguments, before sending', async () => {
    sandbox.clearRequests();
    for (const key of ['token', 'api_key', 'password', 'webhook_token']) {
      const result = await sandbox.run(['integrations', 'set', 'assembla', '--group', 'acme', '--param', `${key}=s3cret`]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--secret-file');
      expect(result.stderr).not.toContain('s3cret');
    }
    // Settings the service keeps write-only though their names do not say so.
    for (const [slug, key] of [['pushover', 'user_key'], ['google-play', 'service_account_key'], ['diffblue-cover', 'diffblue_license_key']]) {
      const result = await sandbox.run(['integrations', 'set', slug!, '--group', 'acme', '--param', `${key}=s3cret`]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`use --secret-file ${key}=PATH`);
    }
    expect((await sandbox.run(['integrations', 'set', 'not a slug', '--group', 'acme'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });

  it('a desired-state file with a setting the kind does not take: validate, plan and apply refuse it at its line, with the closest one, before any write', async () => {
    const desired = join(dir, 'integrations-typo.yaml');
    writeFileSync(desired, [
      'version: 1',
      'groups:',
      '  acme:',
      '    integrations:',
      '      bugzilla:',
      '        issues_url: https://bugs.example.com/:id',
      '        new_isue_url: https://bugs.example.com/new',
      '        push_events: false',
      '      pushover: {api_key: {env: PUSHOVER_KEY}, user_key: plain-user-key, priority: "0"}',
      '',
    ].join('\n'));
    const lines = [
      `${desired}:7:23: groups.acme.integrations.bugzilla.new_isue_url: bugzilla has no setting new_isue_url (did you mean new_issue_url?)`,
      // A setting the service keeps write-only is a credential whatever its name.
      expect.stringMatching(/:9:17: groups\.acme\.integrations\.pushover: user_key is a credential: give it as \{env: VARIABLE\}/),
    ];
    sandbox.clearRequests();
    for (const command of ['validate', 'plan', 'apply']) {
      const result = await sandbox.run([command, '-f', desired, '--yes'], { env: { PUSHOVER_KEY: 'k' } });
      expect(result.code, `${command}: ${result.stderr}`).toBe(2);
      expect((result.stdout + result.stderr).split('\n').filter((line) => /^:\d/.test(line.slice(desired.length))), command).toEqual(lines);
      expect(result.stdout + result.stderr).not.toContain('plain-user-key');
    }
    expect(sandbox.requests().filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it('refuses a setting the kind does not take, with the closest one, before sending (the service would drop it silently)', async () => {
    sandbox.clearRequests();
    const typo = await sandbox.run(['integrations', 'set', 'bugzilla', '--group', 'acme', '--param', 'isues_url=https://bugs.example.com/:id']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe('error: bugzilla has no setting isues_url\nhint: did you mean issues_url?\n');
    const unknown = await sandbox.run(['integrations', 'set', 'bugzilla', '--group', 'acme', '--param', 'nosuch=1']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: bugzilla has no setting nosuch\nhint: its settings: new_issue_url, issues_url, project_url\n/);
    const secretFile = join(dir, 'assembla.token');
    writeFileSync(secretFile, 't\n');
    const misnamedSecret = await sandbox.run(['integrations', 'set', 'assembla', '--group', 'acme', '--secret-file', `tokn=${secretFile}`]);
    expect(misnamedSecret.stderr).toContain('hint: did you mean token?');
    expect(sandbox.requests()).toEqual([]);
    // Event flags are every kind's settings.
    const urls = ['new_issue_url', 'issues_url', 'project_url'].flatMap((name) => ['--param', `${name}=https://bugs.example.com/${name}`]);
    const flagged = await sandbox.run(['integrations', 'set', 'bugzilla', '--group', 'acme', ...urls, '--param', 'push_events=false']);
    expect(flagged.code, flagged.stderr).toBe(0);
  });

  it('shows the missing required parameters of the service (exit 6)', async () => {
    const result = await sandbox.run(['integrations', 'set', 'buildkite', '--group', 'acme', '--param', 'project_url=https://b.example.com']);
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('token is missing');
  });

  it('disables with confirmation; get then answers 404', async () => {
    expect((await sandbox.run(['integrations', 'disable', 'asana', '--group', 'acme'])).code).toBe(2);
    expect((await sandbox.run(['integrations', 'disable', 'asana', '--group', 'acme', '--yes'])).code).toBe(0);
    expect((await sandbox.run(['integrations', 'get', 'asana', '--group', 'acme'])).code).toBe(5);
  });

  it('needs Maintainer (bob is a developer)', async () => {
    const bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
    expect((await sandbox.run(['integrations', 'list', '--group', 'acme'], { env: { FORGECTL_TOKEN: bob } })).code).toBe(4);
  });
});
