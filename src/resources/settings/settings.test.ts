import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestSandbox, tempDir, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

const puts = () => sandbox.requests().filter((r) => r.method === 'PUT');

describe('settings get', () => {
  it('shows the record, --fields picks settings, and credentials stay masked unless named', async () => {
    const all = await sandbox.run(['settings', 'get', '-o', 'json']);
    expect(all.code).toBe(0);
    expect(all.json()).toMatchObject({ signup_enabled: true, max_attachment_size: 100, default_project_visibility: 'private', restricted_visibility_levels: [] });
    const piped = await sandbox.run(['settings', 'get', '--fields', 'signup_enabled,max_attachment_size']);
    expect(piped.stdout).toBe('signup_enabled\ttrue\nmax_attachment_size\t100\n');
    expect((await sandbox.run(['settings', 'get', '--fields', 'no_such_setting'])).code).toBe(2);
  });
});

describe('settings set', () => {
  it('changes a boolean, previews it on stderr and mentions the settings cache', async () => {
    const result = await sandbox.run(['settings', 'set', 'signup_enabled=false', '--yes', '-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json()).toEqual({ signup_enabled: false });
    expect(result.stderr).toContain('signup_enabled: true → false');
    expect(result.stderr).toContain('60 seconds');
    expect((await sandbox.run(['settings', 'get', '-o', 'json'])).json().signup_enabled).toBe(false);
  });

  it('parses every type of the settings table', async () => {
    const result = await sandbox.run([
      'settings', 'set', 'max_attachment_size=250', 'polling_interval_multiplier=1.5', 'home_page_url=https://home.example.com', 'after_sign_out_path=null',
      'domain_allowlist=example.com, example.org', 'restricted_visibility_levels=["public"]', 'repository_storages_weighted={"default":60,"storage2":40}',
      'default_branch_protection_defaults={"allowed_to_push":[{"access_level":30}],"allow_force_push":true,"allowed_to_merge":[{"access_level":40}]}',
      '--yes', '-o', 'json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const record = (await sandbox.run(['settings', 'get', '-o', 'json'])).json();
    expect(record).toMatchObject({
      max_attachment_size: 250, polling_interval_multiplier: 1.5, home_page_url: 'https://home.example.com', after_sign_out_path: null,
      domain_allowlist: ['example.com', 'example.org'], restricted_visibility_levels: ['public'], repository_storages_weighted: { default: 60, storage2: 40 },
      default_branch_protection_defaults: { allowed_to_push: [{ access_level: 30 }], allow_force_push: true },
    });
  });

  it('exits 2 before anything is sent on unknown keys, wrong types, read-only and removed settings, and credentials on argv', async () => {
    sandbox.clearRequests();
    const cases: Array<[string, RegExp]> = [
      ['max_attachment_size=lots', /max_attachment_size must be an integer, got "lots"/],
      ['max_attachment_sise=5', /unknown setting "max_attachment_sise" \(did you mean max_attachment_size\?\)/],
      ['signup_enabled=maybe', /signup_enabled must be true or false/],
      ['polling_interval_multiplier=fast', /must be a number/],
      ['default_project_visibility=secret', /must be one of private, internal, public/],
      ['restricted_visibility_levels=public,hidden', /must be a list of private, internal, public/],
      ['repository_storages_weighted=[1]', /must be a JSON object/],
      ['default_branch_protection_defaults={"allowed_to_push":true}', /allowed_to_push/],
      ['max_attachment_size=0', /greater than or equal to 1/],
      ['max_attachment_size=99999999999999999999', /max_attachment_size is too large \(at most 9007199254740991\)/],
      ['max_attachment_size=null', /must be an integer/],
      ['id=5', /read-only/],
      ['repository_storages=default', /removed/],
      ['external_pipeline_validation_service_token=s3cret', /credential/],
      ['signup_enabled', /expected key=value/],
    ];
    for (const [pair, message] of cases) {
      const result = await sandbox.run(['settings', 'set', pair, '--yes']);
      expect(result.code, pair).toBe(2);
      expect(result.stderr, pair).toMatch(message);
      expect(result.stderr).not.toContain('s3cret');
    }
    expect(sandbox.requests()).toEqual([]);
  });

  it('needs --yes without a terminal, and sends nothing without it', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['settings', 'set', 'max_login_attempts=5']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('max_login_attempts: null → 5');
    expect(puts()).toEqual([]);
  });

  it('asks on a terminal after showing the diff, and sends nothing when declined', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['settings', 'set', 'first_day_of_week=1'], { tty: true, input: 'n\n' });
    expect(result.stderr).toContain('first_day_of_week: 0 → 1');
    expect(result.code).toBe(2);
    expect(puts()).toEqual([]);
  });

  it('reads credentials from a file and never prints them', async () => {
    const file = join(tempDir(), 'token');
    writeFileSync(file, 'pipeline-s3cret\n');
    const result = await sandbox.run(['settings', 'set', `external_pipeline_validation_service_token=@${file}`, '--yes', '-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain('pipeline-s3cret');
    expect(result.json()).toEqual({ external_pipeline_validation_service_token: '[REDACTED]' });
    const shown = await sandbox.run(['settings', 'get', '--fields', 'external_pipeline_validation_service_token', '-o', 'json']);
    expect(shown.json()).toEqual({ external_pipeline_validation_service_token: 'pipeline-s3cret' });
    expect((await sandbox.run(['settings', 'get', '-o', 'json'])).stdout).not.toContain('pipeline-s3cret');
    // KEY=@- on a terminal: a hidden prompt naming the key, never echoed.
    const typed = await sandbox.run(['settings', 'set', 'external_pipeline_validation_service_token=@-', '--yes'], { tty: true, input: 'typed-s3cret\n' });
    expect(typed.code, typed.stderr).toBe(0);
    expect(typed.stderr).toMatch(/external_pipeline_validation_service_token.*\[input is masked\]/);
    expect(typed.stderr).not.toContain('*');
    expect(typed.stdout + typed.stderr).not.toContain('typed-s3cret');
  });

  it('sends nothing when the values are already set, and prints the PUT under --dry-run', async () => {
    sandbox.clearRequests();
    const same = await sandbox.run(['settings', 'set', 'default_projects_limit=100000', '--yes']);
    expect(same.code).toBe(0);
    expect(same.stderr).toContain('nothing to change');
    expect(puts()).toEqual([]);
    const dry = await sandbox.run(['settings', 'set', 'default_projects_limit=10', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('PUT ');
    expect(dry.stdout).toContain('"default_projects_limit": 10');
    expect(puts()).toEqual([]);
  });

  it('refuses Premium settings on a free instance, and 403 for non-administrators exits 4', async () => {
    const free = await startTestSandbox({ tier: 'free' });
    try {
      const result = await free.run(['settings', 'set', 'disable_personal_access_tokens=true', '--yes']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('Premium');
    } finally {
      await free.close();
    }
    const { tokens } = await import('../../sandbox/model.js');
    const alice = tokens(sandbox.db).find((t) => t.name === 'alice-token')!.token;
    expect((await sandbox.run(['settings', 'get'], { env: { FORGECTL_TOKEN: alice } })).code).toBe(4);
  });
});
