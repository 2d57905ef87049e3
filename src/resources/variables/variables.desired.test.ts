import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, tempFile, useTestSandbox, type RunResult } from '../../../test/helpers/cli.js';
import { SEEDED_KUBECONFIG } from './sandbox.js';

const sandbox = useTestSandbox();
const dir = tempDir();

/** The masked and hidden values of the demo seed, and those this file sets: no output or plan file may hold one. */
const SECRETS = ['dpl-stg-41b8e0d6c2', 'dpl-prod-7f3a9c2e55', 'sk_live_9Qx2LmP4vR7tWz', 'cdn-9d1e7b3a4f', 'rg-Zt8qW2nV5xK1', 'sqa_5e1f0c9b7a2d', 'nexus-token-first', 'nexus-token-second'];
const KUBECONFIG_SERVER = 'https://k8s.acme.example.com';
/** The seeded kubeconfig, as the reference export writes for it expects it (the test sandbox's env gives it too). */
const KUBE = { KUBECONFIG__PRODUCTION: SEEDED_KUBECONFIG };
const outputs: RunResult[] = [];
async function cli(argv: string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  const result = await sandbox.run(argv, { env });
  outputs.push(result);
  return result;
}
const file = (name: string, text: string): string => tempFile(text, name, dir);
const stored = (key: string, scope = '*') => sandbox.db.table<{ key: string; environment_scope: string; value: string; owner: string }>('ci_variables').find((v) => v.key === key && v.environment_scope === scope);

describe('desired state: variables', () => {
  it('exports plain values inline and secrets as references; plan exits 0 and says what it did not compare', async () => {
    const exported = await cli(['export', '--group', 'acme', '--kinds', 'variables']);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('- key: LOG_LEVEL\n        value: info\n');
    expect(exported.stdout).toMatch(/- key: DEPLOY_TOKEN\n\s+value:\n\s+env: DEPLOY_TOKEN__PRODUCTION\n/);
    expect(exported.stdout).toMatch(/- key: REGISTRY_PASSWORD\n\s+value:\n\s+env: REGISTRY_PASSWORD\n/);
    // A protected file variable (a kubeconfig) is a reference too: the exported file is committed.
    expect(exported.stdout).toMatch(/- key: KUBECONFIG\n\s+value:\n\s+env: KUBECONFIG__PRODUCTION\n\s+variable_type: file\n\s+protected: true\n/);
    expect(exported.stdout).not.toContain(KUBECONFIG_SERVER);
    expect(exported.stderr).toContain('note: variables of project acme/api: KUBECONFIG__PRODUCTION is written as an {env: …} reference, not a value (a plan shows it by size only): plan compares it when it is set, and counts what is not set as not compared\n');
    const desired = file('acme.yaml', exported.stdout);
    expect((await cli(['validate', '-f', desired])).code).toBe(0);
    // Right after an export the reference is not set: that value is not compared, as a masked one's, and counted.
    const unset = await cli(['plan', '-f', desired], { KUBECONFIG__PRODUCTION: undefined });
    expect(unset.stdout).toBe('No changes: the file matches 2 projects and 1 group.\n');
    expect(unset.code).toBe(0);
    expect(unset.stderr).toContain('7 secret values not compared');
    const plan = await cli(['plan', '-f', desired], KUBE);
    expect(plan.stdout).toBe('No changes: the file matches 2 projects and 1 group.\n');
    expect(plan.code).toBe(0);
    expect(plan.stderr).toContain('6 secret values not compared: masked and hidden variable values cannot be read back');
    // The referenced kubeconfig is compared: another one is drift, named by its size only.
    const other = await cli(['plan', '-f', desired], { KUBECONFIG__PRODUCTION: 'apiVersion: v1\nkind: Config\n' });
    expect(other.code).toBe(9);
    expect(other.stdout).toContain('  ~ variable KUBECONFIG … production\n      value changed (115 characters → 27 characters)\n');
    expect(other.stdout + other.stderr).not.toContain('kind: Config');
  });

  it('a variable changed by hand is drift naming it (exit 9); apply puts it back; plan exits 0 again', async () => {
    const desired = join(dir, 'acme.yaml');
    expect((await cli(['variables', 'set', 'LOG_LEVEL', '--project', 'acme/api', '--value', 'debug'])).code).toBe(0);
    expect((await cli(['variables', 'set', 'DEPLOY_TOKEN', '--project', 'acme/api', '--scope', 'production', '--no-protected'])).code).toBe(0);
    const saved = join(dir, 'plan.json');
    const drift = await cli(['plan', '-f', desired, '--out', saved], KUBE);
    expect(drift.code).toBe(9);
    expect(drift.stdout).toBe([
      'project acme/api',
      '  ~ variable LOG_LEVEL … *',
      '      value: "debug" → "info"',
      '  ~ variable DEPLOY_TOKEN … production',
      '      protected: false → true',
      '',
      'Plan: 2 to change in 1 of 2 projects.',
      '',
    ].join('\n'));
    const applied = await cli(['apply', '-f', saved, '--yes'], KUBE);
    expect(applied.code).toBe(0);
    expect(stored('LOG_LEVEL')!.value).toBe('info');
    expect(stored('DEPLOY_TOKEN', 'production')).toMatchObject({ protected: true, value: 'dpl-prod-7f3a9c2e55' });
    expect((await cli(['plan', '-f', desired], KUBE)).code).toBe(0);
    const planFile = readFileSync(saved, 'utf8');
    expect(SECRETS.filter((secret) => planFile.includes(secret))).toEqual([]);
  });

  it('creates a masked variable from a reference, never compares it, and rewrites it on every apply when asked', async () => {
    const desired = file('nexus.yaml', `version: 1
projects:
  acme/web:
    variables:
      - key: NEXUS_TOKEN
        value: {env: NEXUS_TOKEN}
        masked: true
        protected: true
        environment_scope: production
`);
    const plan = await cli(['plan', '-f', desired]);
    expect(plan.code).toBe(9);
    expect(plan.stdout).toContain('  + variable NEXUS_TOKEN … production\n      key: "NEXUS_TOKEN"\n      value: (write-only)\n      masked: true\n');
    expect((await cli(['apply', '-f', desired, '--yes'], { NEXUS_TOKEN: 'nexus-token-first' })).code).toBe(0);
    expect(stored('NEXUS_TOKEN', 'production')).toMatchObject({ masked: true, protected: true, value: 'nexus-token-first' });
    // The value changes elsewhere: never drift.
    const unchanged = await cli(['plan', '-f', desired], { NEXUS_TOKEN: 'nexus-token-second' });
    expect(unchanged.code).toBe(0);
    expect(unchanged.stderr).toContain('1 secret value not compared');
    // rewrite: always writes it on every apply: the plan shows it, apart, and it is not drift (exit 0), so a drift job stays green.
    const always = file('nexus-always.yaml', readFileSync(desired, 'utf8').replace('        protected: true\n', '        protected: true\n        rewrite: always\n'));
    const rewrite = await cli(['plan', '-f', always]);
    expect(rewrite.code).toBe(0);
    expect(rewrite.stdout).toBe([
      'project acme/web',
      '  ~ variable NEXUS_TOKEN … production   (rewrite: always: written by every apply, not drift)',
      '      value: (write-only)',
      '',
      'No changes: the file matches 1 project. 1 secret value is written again by every apply (rewrite: always).',
      '3 objects not in the file were left alone: prune: managed deletes only what forgectl created.',
      '',
    ].join('\n'));
    const json = (await cli(['plan', '-f', always, '-o', 'json'])).json();
    expect(json.summary).toMatchObject({ update: 0, rewrite: 1 });
    expect(json.changes[0]).toMatchObject({ action: 'update', rewrite: true });
    // Real drift beside it still exits 9, and the summary counts only the drift as changes.
    expect((await cli(['variables', 'set', 'NEXUS_TOKEN', '--project', 'acme/web', '--scope', 'production', '--no-protected'])).code).toBe(0);
    const drift = await cli(['plan', '-f', always]);
    expect(drift.code).toBe(9);
    expect(drift.stdout).toContain('  ~ variable NEXUS_TOKEN … production\n      protected: false → true\n      value: (write-only)\n\nPlan: 1 to change in 1 of 1 project.\n');
    const dry = await cli(['apply', '-f', always, '--yes', '--dry-run'], { NEXUS_TOKEN: 'nexus-token-second' });
    expect(dry.stdout).toContain('"value": "[REDACTED]"');
    expect((await cli(['apply', '-f', always, '--yes'], { NEXUS_TOKEN: 'nexus-token-second' })).code).toBe(0);
    expect(stored('NEXUS_TOKEN', 'production')!.value).toBe('nexus-token-second');
  });

  it('refuses a masked or hidden value written in the file (exit 2), and hidden changes by delete and create', async () => {
    const literal = file('literal.yaml', 'version: 1\nprojects:\n  acme/web:\n    variables:\n      - {key: LEAKED, value: not-a-reference, masked: true}\n');
    const refused = await cli(['validate', '-f', literal]);
    expect(refused.code).toBe(2);
    expect(refused.stdout + refused.stderr).toContain('value of LEAKED is masked and must not be written in the file');
    expect(refused.stdout + refused.stderr).not.toContain('not-a-reference');
    const hidden = file('hidden.yaml', 'version: 1\nprojects:\n  acme/web:\n    variables:\n      - {key: CDN_PURGE_KEY, value: {env: CDN_KEY}, masked: true, hidden: true}\n');
    const plan = await cli(['plan', '-f', hidden]);
    expect(plan.stdout).toContain('      hidden: false → true');
    expect((await cli(['apply', '-f', hidden, '--yes'], { CDN_KEY: 'cdn-rotated-key-1' })).code).toBe(0);
    expect(stored('CDN_PURGE_KEY')).toMatchObject({ hidden: true, value: 'cdn-rotated-key-1' });
    expect((await cli(['plan', '-f', hidden])).code).toBe(0);
  });

  it('manages instance variables by key (no scope)', async () => {
    const desired = file('instance.yaml', 'version: 1\ninstance:\n  variables:\n    - {key: HTTP_PROXY, value: "http://proxy2.acme.example.com:3128"}\n    - {key: SONAR_TOKEN, value: {env: SONAR_TOKEN}, masked: true, protected: true}\n');
    const plan = await cli(['plan', '-f', desired]);
    expect(plan.stdout).toContain('instance\n  ~ variable "HTTP_PROXY"\n      value: "http://proxy.acme.example.com:3128" → "http://proxy2.acme.example.com:3128"\n');
    expect((await cli(['apply', '-f', desired, '--yes'])).code).toBe(0);
    expect((await cli(['plan', '-f', desired])).code).toBe(0);
    const scoped = file('instance-scoped.yaml', 'version: 1\ninstance:\n  variables:\n    - {key: X, value: y, environment_scope: production}\n');
    expect((await cli(['validate', '-f', scoped])).code).toBe(2);
  });

  it('names a protected file variable\'s values by their size in every form of plan and apply, never by their text', async () => {
    const live = 'server: https://k8s.acme.example.com';
    const fromFile = 'apiVersion: v1\nkind: Config\nclusters: [{name: production, cluster: {server: https://k8s-new.acme.example.com}}]\n';
    const desired = file('kube.yaml', `version: 1\nprojects:\n  acme/api:\n    variables:\n      - {key: KUBECONFIG, value: ${JSON.stringify(fromFile)}, variable_type: file, protected: true, environment_scope: production}\n`);
    const saved = join(dir, 'kube-plan.json');
    const text = await cli(['plan', '-f', desired, '--out', saved]);
    expect(text.code).toBe(9);
    expect(text.stdout).toContain('  ~ variable KUBECONFIG … production\n      value changed (115 characters → 112 characters)\n');
    const json = await cli(['plan', '-f', desired, '-o', 'json']);
    const dryRun = await cli(['apply', '-f', desired, '--dry-run', '--yes']);
    expect(dryRun.stdout).toContain('"value": "[REDACTED]"');
    for (const shown of [text.stdout + text.stderr, json.stdout + json.stderr, dryRun.stdout + dryRun.stderr, readFileSync(saved, 'utf8')]) expect(shown).not.toContain(live);
    for (const shown of [text, dryRun]) expect(shown.stdout + shown.stderr).not.toContain('k8s-new');
    expect((await cli(['apply', '-f', saved, '--yes'])).code).toBe(0);
    expect(stored('KUBECONFIG', 'production')!.value).toBe(fromFile);
  });

  it('never printed a masked or hidden value', () => {
    const all = outputs.map((result) => result.stdout + result.stderr).join('\n');
    expect(SECRETS.filter((secret) => all.includes(secret))).toEqual([]);
  });
});
