import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DesiredFileError, parseDesiredState } from '../../src/desired/file.js';
import { desiredStateSchema } from '../../src/desired/schema.js';
import { effectiveSections, mergeValues, specificity } from '../../src/desired/scopes.js';
import { redactBody } from '../../src/http/redact.js';
import { run, tempDir } from '../helpers/cli.js';

/** The problems of a file, as validate prints them. */
async function problems(text: string, name = 'd.yaml'): Promise<string[]> {
  try {
    await parseDesiredState(name, text);
  } catch (error) {
    if (error instanceof DesiredFileError) return error.lines();
    throw error;
  }
  return [];
}

describe('reading a desired-state file', () => {
  it('refuses a file that declares nothing (an empty file would plan as "no changes", exit 0)', async () => {
    const nothing = ['d.yaml: declares nothing: no projects, groups or instance (start from what the instance has: forgectl export --group GROUP --recursive)'];
    expect(await problems('')).toEqual(nothing);
    expect(await problems('# only a comment\n')).toEqual(nothing);
    expect(await problems('version: 1\n')).toEqual(nothing);
    expect(await problems('version: 1\ngroups: {}\n')).toEqual([]);
  });

  it('refuses a masked placeholder from forgectl\'s output as a value (a saved export would send it as the secret)', async () => {
    const found = await problems([
      'groups:',
      '  acme:',
      '    integrations:',
      '      bugzilla:',
      '        issues_url: "[REDACTED]"',
      'projects:',
      '  acme/api:',
      '    hooks:',
      '      - url: https://*****:*****@hooks.example.com/ci',
      '        events: [push]',
      '',
    ].join('\n'));
    expect(found).toEqual([
      'd.yaml:5:21: groups.acme.integrations.bugzilla.issues_url: holds [REDACTED], a masked value from forgectl\'s output, not the value itself (give the secret as a reference instead: {env: VARIABLE}, {file: PATH} or {command: …})',
      'd.yaml:9:14: projects."acme/api".hooks[0].url: holds a URL whose user or password is *****, a masked value from forgectl\'s output, not the value itself (give the secret as a reference instead: {env: VARIABLE}, {file: PATH} or {command: …})',
    ]);
  });

  it('reports YAML errors with their line and column, and a bare * as the alias it is', async () => {
    expect(await problems('version: 1\nprojects:\n  acme/api:\n    push_rule: {max_file_size: 10\n')).toEqual([expect.stringMatching(/^d\.yaml:5:1: Flow map in block collection/)]);
    const alias = await problems('projects:\n  *:\n    push_rule: null\n');
    expect(alias).toEqual(['d.yaml:2:3: a bare * starts an alias in YAML (quote it: "*")']);
  });

  it('checks the file against the schema: unknown keys (with a guess), types, required fields, all at once and in order, and the values beside them', async () => {
    const found = await problems([
      'version: 1',
      'projects:',
      '  "*":',
      '    push_rule:',
      '      max_fil_size: 10',
      '    badges:',
      '      - name: ci',
      '        link_url: https://ci.example.com',
      '    freeze_periods:',
      '      - freeze_start: "0 23 * * 5"',
      '        freeze_end: 7',
      '      - {freeze_start: "0 25 * * 5", freeze_end: "0 7 * * 1"}',
      '    hooks:',
      '      - {url: "not a url", events: [push], colour: red}',
    ].join('\n'));
    // Values next to what the schema refused (in the same section, the same item) are checked too.
    expect(found).toEqual([
      'd.yaml:5:7: projects."*".push_rule.max_fil_size: unknown key "max_fil_size" (did you mean max_file_size?) (known here: commit_message_regex, commit_message_negative_regex, branch_name_regex, deny_delete_tag, member_check, prevent_secrets, author_email_regex, file_name_regex, max_file_size, commit_committer_check, commit_committer_name_check, reject_unsigned_commits, reject_non_dco_commits)',
      'd.yaml:7:9: projects."*".badges[0]: needs image_url',
      'd.yaml:11:21: projects."*".freeze_periods[0].freeze_end: must be text',
      'd.yaml:12:24: projects."*".freeze_periods[1].freeze_start: freeze_start is not a valid cron expression ("0 25 * * 5"): Constraint error, got value 25 expected range 0-23 (example: \'0 23 * * 5\' is Friday 23:00)',
      'd.yaml:14:15: projects."*".hooks[0].url: url must be an http(s) URL with a literal host name, got "not a url"',
      'd.yaml:14:44: projects."*".hooks[0].colour: unknown key "colour" (known here: url, name, description, events, push_events_branch_filter, branch_filter_strategy, enable_ssl_verification, custom_webhook_template, token, url_variables, custom_headers)',
    ]);
  });

  it('parses values with the field kinds of the flags: a bad cron expression is the same message as freeze-periods create gives', async () => {
    const flag = await run(['freeze-periods', 'create', '--project', 'acme/api', '--freeze-start', '0 25 * * 5', '--freeze-end', '0 7 * * 1'], { env: { FORGECTL_URL: 'http://127.0.0.1:9', FORGECTL_TOKEN: 'x' } });
    expect(flag.code).toBe(2);
    const fromFlag = /error: --freeze-start (.*)/.exec(flag.stderr)![1];
    const found = await problems('projects:\n  acme/api:\n    freeze_periods:\n      - freeze_start: "0 25 * * 5"\n        freeze_end: "0 7 * * 1"\n');
    expect(found).toEqual([`d.yaml:4:23: projects."acme/api".freeze_periods[0].freeze_start: freeze_start ${fromFlag} (example: '0 23 * * 5' is Friday 23:00)`]);
    expect(await problems('projects:\n  acme/api:\n    freeze_periods:\n      - {freeze_start: "0 23 * * 5", freeze_end: "0 7 * * 1", cron_timezone: Europe/Berln}\n')).toEqual([
      expect.stringMatching(/^d\.yaml:4:\d+: .*cron_timezone: cron_timezone "Europe\/Berln" is not an IANA time zone name \(did you mean Europe\/Berlin/),
    ]);
    expect(await problems('projects:\n  acme/api:\n    push_rule: {branch_name_regex: "(?=x)"}\n')).toEqual([expect.stringMatching(/branch_name_regex "\(\?=x\)" is not a valid regular expression: lookahead/)]);
    expect(await problems('projects:\n  acme/api:\n    protected_tags: [{name: "v*", create_access_level: owner}]\n')).toEqual([
      'd.yaml:3:56: projects."acme/api".protected_tags[0].create_access_level: must be one of "no-access", "developer", "maintainer", 0, 30, 40',
    ]);
  });

  it('reports the values of sections the schema accepts beside the problems it found elsewhere, at once', async () => {
    const found = await problems([
      'target: 7',
      'projects:',
      '  acme/api:',
      '    protected_tags: [{name: "v*", create_access_level: wizard}]',
      '    freeze_periods:',
      '      - {freeze_start: "61 * * * *", freeze_end: "0 7 * * 1", cron_timezone: Mars/Olympus}',
      '    unknown_section: 1',
      '  acme/web: just text',
      'groups: [acme]',
      'instance:',
      '  plan_limits: 5',
    ].join('\n'));
    expect(found).toEqual([
      expect.stringMatching(/^d\.yaml:1:9: target: must be text or a list$/),
      expect.stringMatching(/^d\.yaml:4:56: .*create_access_level: must be one of "no-access"/),
      expect.stringMatching(/^d\.yaml:6:\d+: .*freeze_start: freeze_start is not a valid cron expression/),
      expect.stringMatching(/^d\.yaml:6:\d+: .*cron_timezone: cron_timezone "Mars\/Olympus" is not an IANA time zone name/),
      expect.stringMatching(/^d\.yaml:7:5: .*unknown key "unknown_section"/),
      expect.stringMatching(/^d\.yaml:8:13: projects."acme\/web": must be/),
      expect.stringMatching(/^d\.yaml:9:9: groups: must be/),
      expect.stringMatching(/^d\.yaml:11:16: instance.plan_limits: must be/),
    ]);
  });

  it('never repeats a secret written where a reference belongs', async () => {
    const secret = 'plain-text-secret-4711';
    const found = await problems(`projects:\n  acme/api:\n    hooks:\n      - url: https://h.example.com\n        token: ${secret}\n        url_variables: {room: ${secret}}\n`);
    expect(found).toEqual([
      'd.yaml:5:16: projects."acme/api".hooks[0].token: must be a secret reference, not a value (write {env: VARIABLE}, {file: PATH} or {command: …})',
      'd.yaml:6:31: projects."acme/api".hooks[0].url_variables.room: must be a secret reference, not a value (write {env: VARIABLE}, {file: PATH} or {command: …})',
    ]);
    expect(found.join('\n')).not.toContain(secret);
    const integration = await problems(`groups:\n  acme:\n    integrations:\n      asana: {api_key: ${secret}}\n`);
    expect(integration).toEqual([expect.stringMatching(/api_key is a credential: give it as \{env: VARIABLE\}/)]);
    expect(integration.join('\n')).not.toContain(secret);
    const mirror = await problems(`projects:\n  acme/api:\n    pull_mirror: {url: "https://bot:${secret}@src.example.com/x.git", enabled: true}\n`);
    expect(mirror).toEqual([expect.stringMatching(/url holds credentials/)]);
    expect(mirror.join('\n')).not.toContain(secret);
  });

  it('refuses the same object twice, files it cannot read, and targets that name nothing', async () => {
    expect(await problems('projects:\n  acme/api:\n    badges:\n      - {name: ci, link_url: "https://a.example.com", image_url: "https://a.example.com/b.svg"}\n      - {name: ci, link_url: "https://b.example.com", image_url: "https://b.example.com/b.svg"}\n')).toEqual([
      expect.stringMatching(/^d\.yaml:5:9: projects."acme\/api".badges\[1\]: declares the same badge as item 0 \(name\)/),
    ]);
    const dir = tempDir();
    const file = join(dir, 'd.yaml');
    expect(await problems('projects:\n  acme/api:\n    files:\n      - {path: CODEOWNERS, source: owners.txt}\n', file)).toEqual([expect.stringMatching(/files\[0\]: cannot read owners.txt: no such file/)]);
    expect(await problems('target: "*"\n')).toEqual([expect.stringMatching(/target: cannot be "\*"/)]);
  });

  it('validate prints every problem and exits 2, says so when the file is good, and prints the schema', async () => {
    const dir = tempDir();
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'projects:\n  acme/api:\n    push_rule: {max_file_size: -1}\n    badges: [{name: x}]\n');
    const result = await run(['validate', '-f', bad]);
    expect(result.code).toBe(2);
    expect(result.stdout.trim().split('\n')).toEqual([`${bad}:3:32: projects."acme/api".push_rule.max_file_size: must be at least 0`, `${bad}:4:14: projects."acme/api".badges[0]: needs link_url`]);
    const good = join(dir, 'good.yaml');
    writeFileSync(good, 'version: 1\ntarget: acme/**\nprojects:\n  "*":\n    push_rule: {max_file_size: 10}\n');
    const ok = await run(['validate', '-f', good]);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toContain('is valid: 1 project scope');
    const schema = await run(['validate', '--schema']);
    expect(JSON.parse(schema.stdout)).toEqual(desiredStateSchema());
  });

  it('validate -o json prints what it found as one object: valid or not, the scopes, every problem; ndjson the problems', async () => {
    const dir = tempDir();
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'projects:\n  acme/api:\n    push_rule: {max_file_size: -1}\n    badges: [{name: x}]\n');
    const failed = await run(['validate', '-f', bad, '-o', 'json']);
    expect(failed.code).toBe(2);
    expect(failed.json()).toEqual({
      file: bad,
      valid: false,
      scopes: null,
      problems: [
        { line: 3, column: 32, at: 'projects."acme/api".push_rule.max_file_size', message: 'must be at least 0', hint: null },
        { line: 4, column: 14, at: 'projects."acme/api".badges[0]', message: 'needs link_url', hint: null },
      ],
    });
    expect(failed.stderr).toBe(`${bad}: 2 problems\n`);
    const lines = await run(['validate', '-f', bad, '-o', 'ndjson']);
    expect(lines.stdout.trim().split('\n').map((line) => JSON.parse(line))).toEqual(failed.json().problems.map((problem: object) => ({ file: bad, ...problem })));
    const good = join(dir, 'good.yaml');
    writeFileSync(good, 'version: 1\ntarget: acme/**\nprojects:\n  "*":\n    push_rule: {max_file_size: 10}\n');
    const passed = await run(['validate', '-f', good, '-o', 'json']);
    expect(passed.code).toBe(0);
    expect(passed.json()).toEqual({ file: good, valid: true, scopes: { projects: 1, groups: 0, instance: false }, problems: [] });
  });

  it('ships the schema editors use, in step with the sections (run `npm run schema` when this fails)', () => {
    const shipped = JSON.parse(readFileSync(new URL('../../schema/desired-state.schema.json', import.meta.url), 'utf8'));
    expect(shipped).toEqual(desiredStateSchema());
  });
});

describe('scopes and inheritance', () => {
  const scope = (pattern: string, sections: Record<string, unknown>, order: number, inherit = true) => ({ pattern, sections, order, inherit });

  it('orders scopes from "*" to a full path; deeper ones override, records merge, lists and null replace', () => {
    expect(['acme/api', '*', 'acme/**', 'acme/team/**'].sort((a, b) => specificity(a) - specificity(b))).toEqual(['*', 'acme/**', 'acme/team/**', 'acme/api']);
    expect(mergeValues({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 4 }, e: [1] })).toEqual({ a: 1, b: { c: 2, d: 4 }, e: [1] });
    expect(mergeValues({ token: { env: 'A' } }, { token: { file: 'b' } })).toEqual({ token: { file: 'b' } });
    const scopes = [
      scope('acme/team/api', { push_rule: { max_file_size: 1 } }, 0),
      scope('*', { push_rule: { max_file_size: 10, deny_delete_tag: true }, badges: [{ name: 'a' }] }, 1),
      scope('acme/team/**', { badges: [{ name: 'b' }], approvals: { reset_approvals_on_push: true } }, 2),
      scope('acme/legacy/**', { push_rule: null }, 3),
    ];
    expect(effectiveSections(scopes, 'acme/team/api')).toEqual({ push_rule: { max_file_size: 1, deny_delete_tag: true }, badges: [{ name: 'b' }], approvals: { reset_approvals_on_push: true } });
    expect(effectiveSections(scopes, 'acme/web')).toEqual({ push_rule: { max_file_size: 10, deny_delete_tag: true }, badges: [{ name: 'a' }] });
    expect(effectiveSections(scopes, 'acme/legacy/x')).toMatchObject({ push_rule: null });
    // inherit: false cuts off every scope before it, the same path's earlier ones too.
    expect(effectiveSections([...scopes, scope('acme/team/api', { badges: [] }, 4, false)], 'acme/team/api')).toEqual({ badges: [] });
  });
});

describe('redaction of write-only values', () => {
  it('hides the values of URL variables and custom headers in --dry-run and --verbose output', () => {
    expect(redactBody({ url: 'https://x', token: 't', url_variables: [{ key: 'room', value: 'v1' }], custom_headers: [{ key: 'X-K', value: 'v2' }] })).toEqual({
      url: 'https://x',
      token: '[REDACTED]',
      url_variables: [{ key: 'room', value: '[REDACTED]' }],
      custom_headers: [{ key: 'X-K', value: '[REDACTED]' }],
    });
  });
});
