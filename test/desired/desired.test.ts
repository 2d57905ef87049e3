import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { schemaModeline } from '../../src/desired/export.js';
import { describe, expect, it, vi } from 'vitest';
import { storedHooks } from '../../src/sandbox/model.js';
import { fleetProjectPath } from '../../src/sandbox/seed.js';
import { tempDir, tempFile, useTestSandbox, type RunResult } from '../helpers/cli.js';

// Twenty fleet projects (acme/team-01/squad-1 and squad-2) beside the demo's acme/api and acme/web.
const sandbox = useTestSandbox({ fleet: 20 });
const dir = tempDir();
const SECRET = 'hook-secret-value-9f3a1c77';
const env = { CI_HOOK_TOKEN: SECRET };
const fleet = Array.from({ length: 20 }, (_, i) => fleetProjectPath(i + 1));

/** Every output of every run of this file, searched for the secret at the end. */
const outputs: RunResult[] = [];
async function cli(argv: string[], options: { input?: string } = {}): Promise<RunResult> {
  const result = await sandbox.run(argv, { env, ...options });
  outputs.push(result);
  return result;
}

const file = (name: string, text: string): string => tempFile(text, name, dir);

const FLEET_FILE = `version: 1
target: acme/team-01/**
projects:
  "*":
    push_rule:
      max_file_size: 20
      deny_delete_tag: true
    protected_tags:
      - {name: "v*", create_access_level: maintainer}
      - {name: "release-*", create_access_level: developer}
    badges:
      - name: pipeline-status
        link_url: "https://ci.example.com/%{project_path}"
        image_url: "https://ci.example.com/%{project_path}/badge.svg"
    hooks:
      - url: https://hooks.example.com/ci
        events: [push, merge_requests, pipeline]
        token: {env: CI_HOOK_TOKEN}
`;

describe('plan and apply a fleet-wide desired state', () => {
  it('plan --fields shows the changes with those fields where the text plan was; an unknown field exits 2', async () => {
    const desired = file('fields.yaml', 'version: 1\nprojects:\n  acme/api:\n    push_rule: {max_file_size: 77}\n');
    const piped = await cli(['plan', '-f', desired, '--fields', 'action,path,section']);
    expect(piped.code).toBe(9);
    expect(piped.stdout).toBe('create\tacme/api\tpush_rule\n');
    const unknown = await cli(['plan', '-f', desired, '--fields', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: unknown field: nope\nhint: known fields: target, path, id, default_branch, section, key, action, /);
  });

  it('plans every object to create, applies them all, and then plans no changes', async () => {
    const desired = file('fleet.yaml', FLEET_FILE);
    const plan = await cli(['plan', '-f', desired, '--concurrency', '8']);
    expect(plan.code).toBe(9);
    expect(plan.stdout).toContain(`project ${fleet[0]}\n  ~ push rule\n      max_file_size: 100 → 20\n  + protected tag "v*"\n      name: "v*"\n      create_access_level: "maintainer"\n`);
    expect(plan.stdout).toContain('  + webhook "https://hooks.example.com/ci"\n      url: "https://hooks.example.com/ci"\n      events: ["push","merge_requests","pipeline"]\n      token: (write-only)\n');
    // The fleet projects already have a push rule (from the seed): those are updates.
    expect(plan.stdout).toMatch(/Plan: 80 to create, 20 to change in 20 of 20 projects\.\n$/);

    sandbox.clearRequests();
    const applied = await cli(['apply', '-f', desired, '--concurrency', '8', '--yes', '-o', 'json']);
    expect(applied.code).toBe(0);
    const rows = applied.json<Array<{ target: string; object: string; action: string; result: string }>>();
    expect(rows).toHaveLength(100);
    expect(rows.every((row) => row.result === 'done')).toBe(true);
    // One result per object, in the order of the fleet however the work interleaved.
    expect(rows.map((row) => row.target)).toEqual(fleet.flatMap((path) => Array(5).fill(`project ${path}`)));
    expect(applied.stderr).toContain('Applied: 100 done.');

    const hooks = storedHooks(sandbox.db).filter((hook) => hook.url === 'https://hooks.example.com/ci');
    expect(hooks).toHaveLength(20);
    expect(hooks.every((hook) => hook.token === SECRET && hook.description === '[forgectl]')).toBe(true);

    const again = await cli(['plan', '-f', desired]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('No changes: the file matches 20 projects.\n');
  });

  it('export, plan 0; a change made with another command is drift showing exactly that field; apply fixes it', async () => {
    const exported = await cli(['export', '--group', 'acme/team-01', '--recursive', '--concurrency', '8']);
    expect(exported.code).toBe(0);
    // On stdout the schema line is relative to the current folder, here the project that holds this forgectl's schema.
    expect(exported.stdout.startsWith('# yaml-language-server: $schema=./schema/desired-state.schema.json\n# Exported by forgectl from ')).toBe(true);
    expect(exported.stdout).toContain('target: acme/team-01/**');
    expect(exported.stderr).toMatch(/hooks: token, url_variables, custom_headers are write-only and not exported/);
    const desired = file('exported.yaml', exported.stdout);
    expect((await cli(['validate', '-f', desired])).code).toBe(0);
    expect((await cli(['plan', '-f', desired])).stdout).toBe('No changes: the file matches 20 projects and 3 groups.\n');

    const project = fleet[6];
    expect((await cli(['push-rule', 'set', '--project', project, '--max-file-size', '99'])).code).toBe(0);
    const hookId = String(storedHooks(sandbox.db).find((h) => h.url === 'https://hooks.example.com/ci' && h.project_id === projectId(project))!.id);
    expect((await cli(['hooks', 'update', hookId, '--project', project, '--events', 'push,job'])).code).toBe(0);

    const drift = await cli(['plan', '-f', desired]);
    expect(drift.code).toBe(9);
    expect(drift.stdout).toBe([
      `project ${project}`,
      '  ~ push rule',
      '      max_file_size: 99 → 20',
      '  ~ webhook "https://hooks.example.com/ci"',
      '      events: ["push","job"] → ["push","merge_requests","pipeline"]',
      '',
      'Plan: 2 to change in 1 of 20 projects.',
      '',
    ].join('\n'));
    const fixed = await cli(['apply', '-f', desired, '--yes']);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toBe(`project ${project}\tpush rule\tupdate\tdone\t\nproject ${project}\twebhook "https://hooks.example.com/ci"\tupdate\tdone\t\n`);
    expect((await cli(['plan', '-f', desired])).code).toBe(0);
    // The write-only token survived the update (events only were sent).
    expect(storedHooks(sandbox.db).find((h) => String(h.id) === hookId)!.token).toBe(SECRET);
  });

  it('prunes only with --prune, and with prune: managed only what forgectl created', async () => {
    const project = fleet[0];
    expect((await cli(['badges', 'create', '--project', project, '--name', 'by-hand', '--link-url', 'https://x.example.com', '--image-url', 'https://x.example.com/b.svg'])).code).toBe(0);
    const without = file('no-badge.yaml', `target: ${project}\nprojects:\n  ${project}:\n    badges: []\n`);
    const plan = await cli(['plan', '-f', without]);
    expect(plan.code).toBe(9);
    expect(plan.stdout).toContain('  - badge "pipeline-status"   (prune: needs apply --prune)');
    expect(plan.stdout).not.toContain('by-hand');
    expect(plan.stdout).toContain('1 object not in the file was left alone: prune: managed deletes only what forgectl created.');

    const skipped = await cli(['apply', '-f', without, '--yes']);
    expect(skipped.code).toBe(9);
    expect(skipped.stdout).toContain('skipped\ta deletion: pass --prune to delete it');
    expect(skipped.stderr).toContain('attention: Applied: 0 done, 1 deletion skipped (pass --prune).');
    const pruned = await cli(['apply', '-f', without, '--prune', '--yes']);
    expect(pruned.code).toBe(0);
    const names = (await cli(['badges', 'list', '--project', project, '-o', 'json'])).json<Array<{ name: string; kind: string }>>().filter((b) => b.kind === 'project').map((b) => b.name);
    expect(names).toEqual(['by-hand']);

    const all = file('prune-all.yaml', `prune: all\ntarget: ${project}\nprojects:\n  ${project}:\n    badges: []\n`);
    expect((await cli(['plan', '-f', all])).stdout).toContain('  - badge "by-hand"   (prune: needs apply --prune)');
    expect((await cli(['apply', '-f', all, '--prune', '--yes'])).code).toBe(0);
    expect((await cli(['plan', '-f', all])).code).toBe(0);
  });

  it('takes deeper scopes over shallower ones, and inherit: false cuts them off', async () => {
    const desired = file('scopes.yaml', `target: acme/team-01/**
projects:
  "*":
    push_rule: {max_file_size: 20, deny_delete_tag: true}
  acme/team-01/squad-2/**:
    push_rule: {max_file_size: 50}
  ${fleet[19]}:
    inherit: false
    freeze_periods: []
`);
    const plan = await cli(['plan', '-f', desired]);
    expect(plan.stdout).toContain(`project ${fleet[10]}\n  ~ push rule\n      max_file_size: 20 → 50\n`);
    expect(plan.stdout).not.toContain(`project ${fleet[19]}`);
    expect(plan.stdout).not.toContain(`project ${fleet[9]}\n`);
    expect(plan.stdout).toContain('Plan: 9 to change in 9 of 20 projects.');
    const excluded = await cli(['plan', '-f', desired, '--exclude', '**/svc-00?']);
    expect(excluded.stdout).toContain('Plan: 9 to change in 9 of 11 projects.');
  });

  it('refuses a saved plan when an object changed since, and applies it when none did', async () => {
    const desired = file('saved.yaml', `target: acme/team-01/squad-1/**\nprojects:\n  "*":\n    push_rule: {max_file_size: 30}\n`);
    const saved = join(dir, 'plan.json');
    const plan = await cli(['plan', '-f', desired, '--out', saved]);
    expect(plan.code).toBe(9);
    const document = JSON.parse(readFileSync(saved, 'utf8'));
    expect(document).toMatchObject({ format: 'forgectl-plan', version: 2, server: sandbox.url, summary: { update: 10 } });
    expect(document.changes[0]).toMatchObject({ target: 'project', path: fleet[0], section: 'push_rule', action: 'update', fields: [{ field: 'max_file_size', from: 20, to: 30 }], digest: expect.stringMatching(/^[0-9a-f]{64}$/) });

    await cli(['push-rule', 'set', '--project', fleet[3], '--deny-delete-tag', '--no-deny-delete-tag']);
    sandbox.clearRequests();
    const stale = await cli(['apply', '-f', saved, '--yes']);
    expect(stale.code).toBe(6);
    expect(stale.stderr).toContain(`changed since the plan: project ${fleet[3]}: push rule`);
    expect(stale.stderr).toMatch(/error: the plan is stale: 1 of its objects changed since it was made .*; nothing was applied/);
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);

    await cli(['plan', '-f', desired, '--out', saved]);
    const applied = await cli(['apply', '-f', saved, '--yes']);
    expect(applied.code).toBe(0);
    expect(applied.stdout.trim().split('\n')).toHaveLength(10);
    expect((await cli(['plan', '-f', desired])).code).toBe(0);

    // Applied again (a retried CI job): the objects hold what the plan asked for, so that is done, not stale.
    sandbox.clearRequests();
    const again = await cli(['apply', '-f', saved, '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('10 changes of the plan were applied already (by an earlier apply of it): left out\nnothing left to apply\n');
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);

    // Half applied, and one object moved elsewhere meanwhile: that one is stale, and nothing is applied.
    await cli(['plan', '-f', file('saved.yaml', `target: acme/team-01/squad-1/**\nprojects:\n  "*":\n    push_rule: {max_file_size: 40}\n`), '--out', saved]);
    await cli(['push-rule', 'set', '--project', fleet[0], '--max-file-size', '40']);
    await cli(['push-rule', 'set', '--project', fleet[1], '--max-file-size', '41']);
    sandbox.clearRequests();
    const half = await cli(['apply', '-f', saved, '--yes']);
    expect(half.code).toBe(6);
    expect(half.stderr).toContain(`changed since the plan: project ${fleet[1]}: push rule\n`);
    expect(half.stderr).not.toContain(`changed since the plan: project ${fleet[0]}:`);
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('commits the changed files of a branch in one commit per project, skipping unchanged ones by blob id', async () => {
    const sources = join(dir, 'templates');
    const names = Array.from({ length: 10 }, (_, i) => `conf/file-${i}.txt`);
    const write = (changed: number[]) => {
      const entries = names.map((name, i) => `      - {path: ${name}, content: "${changed.includes(i) ? 'new' : 'same'} ${i}\\n"}`).join('\n');
      return file('files.yaml', `target: acme/team-01/squad-1/**\nprojects:\n  "*":\n    files:\n${entries}\n      - {path: README.md, source: templates/readme.md, commit_message: "docs: managed files"}\n`);
    };
    writeFileSync(join(dir, 'templates-dir-placeholder'), '');
    await import('node:fs').then((fs) => fs.mkdirSync(sources, { recursive: true }));
    writeFileSync(join(sources, 'readme.md'), '# managed\n');
    expect((await cli(['apply', '-f', write([]), '--yes'])).code).toBe(0);

    const desired = write([2, 5, 7]);
    const plan = await cli(['plan', '-f', desired]);
    expect(plan.code).toBe(9);
    expect(plan.stdout).toContain('Plan: 30 to change in 10 of 10 projects.');
    expect(plan.stdout).toMatch(/ {2}~ file main:conf\/file-2\.txt\n {6}blob: "[0-9a-f]{12}" → "[0-9a-f]{12}"/);
    sandbox.clearRequests();
    const applied = await cli(['apply', '-f', desired, '--yes']);
    expect(applied.code).toBe(0);
    const commits = sandbox.requests().filter((r) => r.method === 'POST' && /\/repository\/commits$/.test(r.path));
    expect(commits).toHaveLength(10);
    const history = (await cli(['commits', 'list', '--project', fleet[0], '--ref', 'main', '-o', 'json'])).json<Array<{ title: string }>>();
    expect(history[0].title).toBe('docs: managed files');
    const changed = (await cli(['commits', 'get', 'main', '--project', fleet[0], '-o', 'json'])).json<{ stats: { total: number } }>();
    expect(changed.stats.total).toBe(6); // three files, one line out and one in each
    expect((await cli(['plan', '-f', desired])).code).toBe(0);
  });

  it('does not undo a push that lands after the last check and before the commit: the project fails naming the file, nothing committed', async () => {
    const project = fleet[4];
    const encoded = encodeURIComponent(project);
    const desired = (content: string) => file('race.yaml', `target: ${project}\nprojects:\n  ${project}:\n    files:\n      - {path: conf/race.txt, content: "${content}\\n"}\n`);
    expect((await cli(['apply', '-f', desired('ours 1'), '--yes'])).code).toBe(0);
    // The teammate's change is processed just before the commit request: after every check apply makes.
    sandbox.fault({ method: 'POST', path: '/repository/commits$', interleave: { method: 'PUT', path: `/projects/${encoded}/repository/files/conf%2Frace.txt`, body: { branch: 'main', commit_message: 'teammate', content: 'theirs\n' } } });
    const applied = await cli(['apply', '-f', desired('ours 2'), '--yes']);
    // The project's change failed (exit 9, as a fleet apply says of its failed items), saying why.
    expect(applied.code, applied.stderr).toBe(9);
    expect(applied.stdout).toMatch(new RegExp(`^project ${project}\tfile main:conf/race\\.txt\tupdate\tfailed\tbranch main moved while this commit was sent \\([0-9a-f]{8} → [0-9a-f]{8}\\) and the new commits change conf/race\\.txt$`, 'm'));
    const raw = await sandbox.call('GET', `/projects/${encoded}/repository/files/conf%2Frace.txt/raw?ref=main`);
    expect(raw.text).toBe('theirs\n');
    expect((await cli(['apply', '-f', desired('ours 2'), '--yes'])).code).toBe(0);
  });

  it('compares the instance and a group as the file declares them, credentials only as references', async () => {
    const desired = file('admin.yaml', `groups:
  acme:
    integrations:
      bugzilla:
        issues_url: https://bugs.example.org/show_bug.cgi?id=:id
      asana:
        api_key: {env: CI_HOOK_TOKEN}
        restrict_to_branch: main
instance:
  application_settings:
    signup_enabled: false
    max_attachment_size: 200
  plan_limits:
    default: {ci_pipeline_size: 500}
`);
    const plan = await cli(['plan', '-f', desired]);
    expect(plan.code).toBe(9);
    expect(plan.stdout).toContain('group acme\n  ~ integration bugzilla\n      issues_url: "https://bugs.acme.example.com/show_bug.cgi?id=:id" → "https://bugs.example.org/show_bug.cgi?id=:id"\n  + integration asana\n      api_key: (write-only)\n      restrict_to_branch: "main"\n');
    expect(plan.stdout).toContain('instance\n  ~ application settings\n      signup_enabled: true → false\n      max_attachment_size: 100 → 200\n  ~ plan limits default\n      ci_pipeline_size: 0 → 500\n');
    expect((await cli(['apply', '-f', desired, '--yes'])).code).toBe(0);
    expect((await cli(['plan', '-f', desired])).stdout).toBe('No changes: the file matches 1 group and the instance.\n');
    const asana = await sandbox.call('GET', '/groups/acme/integrations/asana');
    expect(asana.body.properties).toEqual({ restrict_to_branch: 'main' });
  });

  it('audits access tokens against a policy: a breach is drift that apply reports and never fixes', async () => {
    const project = fleet[1];
    const created = await cli(['tokens', 'create', '--project', project, '--name', 'deployer', '--scopes', 'api,write_repository', '--access-level', 'maintainer', '--expires-in', '300d', '-o', 'json']);
    expect(created.code).toBe(0);
    outputs.pop(); // the point of tokens create is to print the new token; it is not the secret this file guards
    const desired = file('tokens.yaml', `target: ${project}\nprojects:\n  ${project}:\n    access_tokens: {allowed_scopes: [read_api, read_repository], max_lifetime_days: 90, max_access_level: developer}\n`);
    const plan = await cli(['plan', '-f', desired]);
    expect(plan.code).toBe(9);
    expect(plan.stdout).toMatch(/ {2}! access token "deployer" \(id \d+\): scopes api, write_repository not allowed; lives 30\d days \(until [\d-]+\), more than 90; role maintainer is above developer\n/);
    const applied = await cli(['apply', '-f', desired, '--yes']);
    expect(applied.code).toBe(9);
    expect(applied.stdout).toMatch(/access token "deployer" \(id \d+\)\tviolation\tnot fixed\t/);
  });

  it('says so when --target and --exclude leave nothing to compare, instead of "no changes"', async () => {
    const desired = file('nothing.yaml', 'version: 1\nprojects:\n  "*":\n    push_rule: {max_file_size: 30}\n');
    const plan = await cli(['plan', '-f', desired, '--target', 'acme/web', '--exclude', 'acme/**']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toBe('Nothing to compare: the file, --target and --exclude select no project, group or instance settings.\n');
    const apply = await cli(['apply', '-f', desired, '--target', 'acme/web', '--exclude', 'acme/**', '--yes']);
    expect(apply.stderr).toBe('Nothing to compare: the file, --target and --exclude select no project, group or instance settings.\n');
  });

  it('shows a plan on a terminal in its colours, with the text from the server made visible', async () => {
    const desired = file('terminal.yaml', 'version: 1\nprojects:\n  acme/web:\n    push_rule: {max_file_size: 30}\n');
    sandbox.fault({ method: 'GET', path: 'acme%2Fweb/push_rule$', status: 500, body: { message: '\u001b]0;pwned\u0007boom' }, times: 10 });
    vi.stubEnv('FORCE_COLOR', '1');
    try {
      const plan = await sandbox.run(['plan', '-f', desired, '--retries', '0'], { tty: true });
      expect(plan.code).toBe(9);
      expect(plan.stdout).toContain('\u001b[31mcould not read project acme/web (push_rule): \\x1b]0;pwned\\x07boom (GET /projects/acme%2Fweb/push_rule → 500)\u001b[39m\n');
      expect(plan.stdout).not.toContain('\u001b]');
      // Nothing else differs, but the project was not read: not an all-clear "nothing to change in nothing".
      expect(plan.stdout).toContain('Plan: nothing to change in what could be read; 1 failure to read.\n');
    } finally {
      vi.unstubAllEnvs();
      sandbox.faults.clear();
    }
  });

  it('shows apply --yes\'s preview on a terminal in its colours too', async () => {
    const desired = file('terminal-apply.yaml', 'version: 1\nprojects:\n  acme/web:\n    push_rule: {max_file_size: 31}\n');
    vi.stubEnv('FORCE_COLOR', '1');
    try {
      const applied = await sandbox.run(['apply', '-f', desired, '--yes'], { tty: true });
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stderr).toContain('\u001b[32m+ push');
      expect(applied.stderr).not.toContain('\\x1b[');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('colours plan and apply\'s preview in a pipe when FORCE_COLOR asks, and not with NO_COLOR', async () => {
    const ESC = '\u001b';
    const desired = file('forced.yaml', 'version: 1\nprojects:\n  acme/web:\n    push_rule: {max_file_size: 32}\n');
    vi.stubEnv('FORCE_COLOR', '1');
    try {
      const plan = await sandbox.run(['plan', '-f', desired], { env: { FORCE_COLOR: '1' } });
      expect(plan.stdout).toMatch(new RegExp(`${ESC}\\[3[23]m[+~] push`));
      const plain = await sandbox.run(['plan', '-f', desired], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
      expect(plain.stdout).toMatch(/[+~] push/);
      expect(plain.stdout).not.toContain('\u001b[');
      const applied = await sandbox.run(['apply', '-f', desired, '--yes'], { env: { FORCE_COLOR: '1' } });
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stderr).toMatch(new RegExp(`${ESC}\\[3[23]m[+~] push`));
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('refuses what cannot be planned before sending anything, and lists requests with --dry-run', async () => {
    sandbox.clearRequests();
    const star = file('star.yaml', 'projects:\n  "*":\n    push_rule: {max_file_size: 5}\n');
    const noTarget = await cli(['plan', '-f', star]);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain('"*" needs a target');
    const bad = await cli(['plan', '-f', file('bad.yaml', 'projects:\n  acme/api:\n    freeze_periods: [{freeze_start: "x", freeze_end: "0 7 * * 1"}]\n')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: .*bad\.yaml:3:37: freeze_start is not a valid cron expression \("x"\)/m);
    expect((await cli(['apply', '-f', star, '--target', 'acme/team-01/**'])).code).toBe(2); // no --yes off a terminal
    const missing = await cli(['plan', '-f', file('missing.yaml', 'projects:\n  acme/nope:\n    push_rule: null\n')]);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain('error: project acme/nope, named in the file, does not exist (or you cannot see it)');
    expect(missing.stderr).toContain('hint: leave it out of this run with --exclude acme/nope');
    // A group the file names that is missing here is said as such, and --exclude leaves it (or a project) out unread.
    const missingGroup = file('missing-group.yaml', 'groups:\n  acme/nope:\n    settings: {request_access_enabled: true}\nprojects:\n  acme/gone:\n    push_rule: null\n  acme/api:\n    push_rule: null\n');
    const group = await cli(['plan', '-f', missingGroup, '--exclude', 'acme/gone']);
    expect(group.code).toBe(5);
    expect(group.stderr).toMatch(/^error: group acme\/nope, named in the file, does not exist \(or you cannot see it\)\nhint: leave it out of this run with --exclude acme\/nope$/m);
    const left = await cli(['plan', '-f', missingGroup, '--exclude', 'acme/nope', '--exclude', 'acme/gone']);
    expect(left.code, left.stderr).toBe(0);
    expect(left.stdout).toContain('the file matches 1 project');
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);

    const dry = await cli(['apply', '-f', star, '--target', 'acme/team-01/squad-1/**', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout.split('\n').filter((line) => line.startsWith('PUT '))).toHaveLength(10);
    // A set in a target is a glob, not a project path to look up.
    const set = await cli(['apply', '-f', star, '--target', 'acme/team-01/squad-1/svc-00[12]', '--dry-run']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout.split('\n').filter((line) => line.startsWith('PUT ')).map((line) => decodeURIComponent(line))).toEqual([fleet[0], fleet[1]].map((path) => expect.stringContaining(`/projects/${path}/push_rule`)));
    expect((await cli(['plan', '-f', star, '--target', 'svc-00[12]'])).stderr).toContain('error: target svc-00[12] must start with a group path');
    expect(dry.stdout).toContain('dry run');
    expect(dry.stderr).toMatch(/^Dry run: 10 changes shown, none sent\.$/m);
    expect(dry.stderr).not.toContain('Applied');
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('a section of a paid tier refused while planning says so (the tier or the role), beside the refusal', async () => {
    const desired = file('tier.yaml', 'version: 1\nprojects:\n  acme/web:\n    push_rule: {max_file_size: 30}\n');
    sandbox.fault({ method: 'GET', path: 'acme%2Fweb/push_rule$', status: 403, times: 10 });
    try {
      const plan = await cli(['plan', '-f', desired]);
      expect(plan.code).toBe(9);
      expect(plan.stdout).toContain('could not read project acme/web (push_rule): 403 Injected fault (GET /projects/acme%2Fweb/push_rule → 403); push_rule needs premium, and a role that may read it\n');
    } finally {
      sandbox.faults.clear();
    }
  });

  it('changes refused with 403 get the hint their own command gives of one (its role), once; the run is a bulk: exit 9', async () => {
    const developer = { FORGECTL_TOKEN: sandbox.tokenWithRole('developer') };
    const desired = file('role.yaml', 'version: 1\nprojects:\n  acme/api:\n    settings: {description: by a developer}\n  acme/web:\n    settings: {description: by a developer}\n');
    const single = await sandbox.run(['projects', 'update', 'acme/api', '--description', 'by a developer'], { env: developer });
    expect(single.code).toBe(4);
    const needs = /^hint: (projects update needs .+)$/m.exec(single.stderr)![1];
    for (const format of ['table', 'json']) {
      const apply = await sandbox.run(['apply', '-f', desired, '--yes', '-o', format], { env: developer });
      expect(apply.code).toBe(9);
      expect(apply.stderr).toContain('attention: Applied: 0 done, 2 failed. Failed: acme/api, acme/web\n');
      expect(apply.stderr.split('\n').filter((line) => line.startsWith('hint:'))).toEqual([`hint: 2 changes were refused (403 Forbidden): ${needs}`]);
    }
  });

  it('says which objects prune: all leaves alone, in words that agree with their number', async () => {
    const plan = await cli(['plan', '-f', file('prune-all.yaml', 'version: 1\nprune: all\nprojects:\n  acme/web:\n    protected_branches: []\n')]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain("1 object not in the file was left alone: forgectl does not delete it, even with prune: all (a default branch's protection is one).\n");
  });

  it('export -O writes a schema line relative to the file when the schema is in the file\'s project, none when it is elsewhere', async () => {
    // A file outside the project of this forgectl (a global install's prefix, one machine's): no line, and plan reads it.
    const outside = join(tempDir(), 'config', 'acme');
    mkdirSync(outside, { recursive: true });
    const out = join(outside, 'api.yaml');
    const exported = await cli(['export', '--project', 'acme/api', '-O', out]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toMatch(/^# Exported by forgectl from /);
    expect((await cli(['plan', '-f', out])).code).toBe(0);
    // forgectl as a dependency of the repository: the line is relative, the same on every machine, and resolves.
    const repository = tempDir();
    writeFileSync(join(repository, 'package.json'), '{}');
    const schema = join(repository, 'node_modules', 'forgectl', 'schema', 'desired-state.schema.json');
    mkdirSync(dirname(schema), { recursive: true });
    writeFileSync(schema, '{}');
    mkdirSync(join(repository, 'config'));
    expect(schemaModeline(schema, join(repository, 'desired.yaml'))).toBe('# yaml-language-server: $schema=./node_modules/forgectl/schema/desired-state.schema.json\n');
    expect(schemaModeline(schema, join(repository, 'config', 'api.yaml'))).toBe('# yaml-language-server: $schema=../node_modules/forgectl/schema/desired-state.schema.json\n');
    expect(schemaModeline(schema, join(outside, 'api.yaml'))).toBe('');
    expect(schemaModeline(undefined, out)).toBe('');
    // A file exported before, whose line names an install's absolute path, still validates and plans.
    const before = join(outside, 'before.yaml');
    writeFileSync(before, readFileSync(out, 'utf8').replace(/^/, '# yaml-language-server: $schema=/usr/lib/node_modules/forgectl/schema/desired-state.schema.json\n'));
    expect((await cli(['validate', '-f', before])).code).toBe(0);
    expect((await cli(['plan', '-f', before])).code).toBe(0);
  });

  it('export refuses -o csv and -o ndjson (a desired-state file is one document) before anything is sent', async () => {
    sandbox.clearRequests();
    for (const format of ['csv', 'ndjson']) {
      const refused = await cli(['export', '--project', 'acme/api', '-o', format]);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(new RegExp(`^error: export writes a desired-state file, which -o ${format} cannot hold\nhint: leave out -o for YAML, or give -o json\n`));
    }
    expect(sandbox.requests()).toEqual([]);
  });

  it('exports all of acme (the demo projects, their mirror, rules, freeze periods, the group integration) and plans no changes', async () => {
    const exported = await cli(['export', '--group', 'acme', '--recursive', '--concurrency', '8']);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toMatch(/^exported 22 projects, 4 groups$/m);
    for (const section of ['pull_mirror:', 'freeze_periods:', 'approval_rules:', 'protected_tags:', 'integrations:', 'bugzilla:']) expect(exported.stdout).toContain(section);
    expect(exported.stdout).toContain('url: https://git.upstream.example.com/acme/web.git'); // credentials left out, not masked
    const desired = file('acme.yaml', exported.stdout);
    const plan = await cli(['plan', '-f', desired, '--concurrency', '8']);
    expect(plan.stdout).toMatch(/^No changes: the file matches 22 projects and 4 groups\.\n$/);
    expect(plan.code).toBe(0);
  });

  it('pairs freeze periods by start, end and time zone: the same window in two zones exports and plans as two, a zone left out is UTC', async () => {
    const second = await cli(['freeze-periods', 'create', '--project', 'acme/api', '--freeze-start', '0 23 * * 5', '--freeze-end', '0 7 * * 1', '-o', 'json']);
    expect(second.code).toBe(0);
    try {
      const exported = await cli(['export', '--project', 'acme/api', '--kinds', 'freeze_periods']);
      expect(exported.stdout.match(/freeze_start: 0 23 \* \* 5/g)).toHaveLength(2);
      expect((await cli(['plan', '-f', file('zones.yaml', exported.stdout)])).code).toBe(0);
      const utc = file('utc.yaml', 'version: 1\nprojects:\n  acme/api:\n    freeze_periods:\n      - {freeze_start: "0 23 * * 5", freeze_end: "0 7 * * 1"}\n');
      const plan = await cli(['plan', '-f', utc]);
      expect(plan.stdout).toMatch(/^No changes/);
      expect(plan.code).toBe(0);
      const twice = file('twice.yaml', 'version: 1\nprojects:\n  acme/api:\n    freeze_periods:\n      - {freeze_start: "0 23 * * 5", freeze_end: "0 7 * * 1"}\n      - {freeze_start: "0 23 * * 5", freeze_end: "0 7 * * 1", cron_timezone: UTC}\n');
      const refused = await cli(['validate', '-f', twice]);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toContain('declares the same freeze period as item 0 (freeze_start, freeze_end and cron_timezone)');
    } finally {
      await cli(['freeze-periods', 'delete', String(second.json<{ id: number }>().id), '--project', 'acme/api', '--yes']);
    }
  });

  it('uploads secure files by checksum, replaces one whose local file changed (downloading only the old one, to put it back), and puts it back when the upload fails', async () => {
    const project = fleet[8];
    writeFileSync(join(dir, 'release.keystore'), 'keystore v1');
    const desired = file('secure.yaml', `target: ${project}\nprojects:\n  ${project}:\n    secure_files:\n      - {name: release.keystore, file: release.keystore}\n`);
    expect((await cli(['plan', '-f', desired])).stdout).toMatch(/\+ secure file "release.keystore"\n {6}name: "release.keystore"\n {6}file: "release.keystore"\n {6}checksum: "[0-9a-f]{64}"/);
    expect((await cli(['apply', '-f', desired, '--yes'])).code).toBe(0);
    sandbox.clearRequests();
    expect((await cli(['plan', '-f', desired])).code).toBe(0);
    writeFileSync(join(dir, 'release.keystore'), 'keystore v2');
    const changed = await cli(['plan', '-f', desired]);
    expect(changed.stdout).toContain('-/+ secure file "release.keystore"   (deleted and created again: the service cannot change the content of a secure file)');
    expect(sandbox.requests().filter((r) => r.path.includes('/download'))).toEqual([]);
    // The upload fails: the old file is uploaded again.
    sandbox.fault({ method: 'POST', path: 'secure_files$', status: 500 });
    const failed = await cli(['apply', '-f', desired, '--yes']);
    expect(failed.code).toBe(9);
    expect(failed.stdout).toContain('the old secure file "release.keystore" was put back as it was');
    // The summary names where it failed, as every fleet run does.
    expect(failed.stderr).toMatch(/^attention: Applied: 0 done, 1 failed\. Failed: acme\/[\w/-]+$/m);
    const kept = sandbox.db.table<{ name: string; data: string }>('secure_files').filter((f) => f.name === 'release.keystore');
    expect(kept.map((f) => Buffer.from(f.data, 'base64').toString())).toEqual(['keystore v1']);
    expect((await cli(['plan', '-f', desired])).stdout).toContain('-/+ secure file "release.keystore"');
    sandbox.clearRequests();
    expect((await cli(['apply', '-f', desired, '--yes'])).code).toBe(0);
    expect(sandbox.requests().filter((r) => r.path.includes('/download'))).toHaveLength(1);
    expect((await cli(['plan', '-f', desired])).code).toBe(0);
  });

  it('sets up a pull mirror with credentials from a reference, compares its URL without them, and turns it off with null', async () => {
    const project = fleet[9];
    const desired = file('mirror.yaml', `target: ${project}\nprojects:\n  ${project}:\n    pull_mirror: {url: "https://src.example.com/x.git", enabled: true, auth_user: bot, auth_password: {env: CI_HOOK_TOKEN}, only_mirror_protected_branches: false}\n`);
    const plan = await cli(['plan', '-f', desired]);
    expect(plan.stdout).toContain('  + pull mirror\n      url: "https://src.example.com/x.git"\n      enabled: true\n      auth_user: "bot"\n      auth_password: (write-only)\n');
    expect((await cli(['apply', '-f', desired, '--yes'])).code).toBe(0);
    expect(sandbox.db.table<{ project_id: number; auth_password: string }>('pull_mirrors').find((m) => m.project_id === projectId(project))!.auth_password).toBe(SECRET);
    expect((await cli(['plan', '-f', desired])).code).toBe(0);
    const off = file('mirror-off.yaml', `target: ${project}\nprojects:\n  ${project}:\n    pull_mirror: null\n`);
    expect((await cli(['plan', '-f', off])).stdout).toContain('  - pull mirror\n');
    expect((await cli(['apply', '-f', off, '--yes'])).code).toBe(0);
    expect((await cli(['plan', '-f', off])).code).toBe(0);
  });

  it('pairs approval rules by name, with approvers by username resolved to IDs when applied', async () => {
    const desired = file('rules.yaml', `target: acme/api\nprojects:\n  acme/api:\n    approvals: {merge_requests_author_approval: false, reset_approvals_on_push: false}\n    approval_rules:\n      - {name: Maintainers, approvals_required: 2, users: [bob, alice]}\n      - {name: Security, approvals_required: 1, users: [alice], groups: [acme]}\n`);
    const plan = await cli(['plan', '-f', desired]);
    // The seeded audit history says alice last changed the rule.
    expect(plan.stdout).toMatch(/ {2}~ approval rule "Maintainers" {3}\(changed by alice \d{4}-\d\d-\d\d \d\d:\d\d\)\n {6}approvals_required: 1 → 2\n {6}users: \["alice"\] → \["alice","bob"\]\n {2}\+ approval rule "Security"\n/);
    expect((await cli(['apply', '-f', desired, '--yes'])).code).toBe(0);
    expect((await cli(['plan', '-f', desired])).code).toBe(0);
    const unknown = file('rules-bad.yaml', `target: acme/api\nprojects:\n  acme/api:\n    approval_rules:\n      - {name: Maintainers, approvals_required: 2, users: [nobody-here]}\n`);
    const failed = await cli(['apply', '-f', unknown, '--yes']);
    expect(failed.code).toBe(9);
    expect(failed.stdout).toContain('failed\tunknown user: nobody-here');
  });

  it('never shows the secret: not in plans, results, exports, logs, dry runs or errors', async () => {
    const hooked = file('secret.yaml', `target: ${fleet[4]}\nprojects:\n  ${fleet[4]}:\n    hooks:\n      - url: https://other.example.com/{room}\n        token: {env: CI_HOOK_TOKEN}\n        url_variables: {room: {env: CI_HOOK_TOKEN}}\n        custom_headers: {X-Key: {env: CI_HOOK_TOKEN}}\n      - {url: "https://hooks.example.com/ci", events: [push, merge_requests, pipeline]}\n`);
    await cli(['plan', '-f', hooked, '-o', 'json']);
    await cli(['plan', '-f', hooked, '-v']);
    await cli(['apply', '-f', hooked, '--dry-run', '-v']);
    expect((await cli(['apply', '-f', hooked, '--yes'])).code).toBe(0);
    await cli(['apply', '-f', hooked, '--yes', '-v']);
    expect(storedHooks(sandbox.db).find((h) => h.url === 'https://other.example.com/{room}')!.custom_headers).toEqual([{ key: 'X-Key', value: SECRET }]);
    await cli(['export', '--project', fleet[4], '-o', 'json']);
    sandbox.fault({ method: 'POST', path: 'hooks$', status: 422, times: 5 });
    const failing = file('fail.yaml', `target: ${fleet[5]}\nprojects:\n  ${fleet[5]}:\n    hooks:\n      - {url: "https://third.example.com/x", token: {env: CI_HOOK_TOKEN}}\n`);
    expect((await cli(['apply', '-f', failing, '--yes', '-o', 'json'])).code).toBe(9);
    expect(outputs.length).toBeGreaterThan(40);
    for (const result of outputs) {
      expect(result.stdout).not.toContain(SECRET);
      expect(result.stderr).not.toContain(SECRET);
    }
  });
});

function projectId(path: string): number {
  return sandbox.db.table<{ id: number; path_with_namespace: string }>('projects').find((p) => p.path_with_namespace === path)!.id;
}
