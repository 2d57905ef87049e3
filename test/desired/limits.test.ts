/** Desired-state files: a size cap with a clear message, and no credentials in a webhook URL. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DESIRED_MAX_BYTES } from '../../src/commands/desired/shared.js';
import { tempDir, tempFile, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

const file = (text: string): string => tempFile(text);

describe('desired-state limits', () => {
  it('refuses a file over the size cap at once, from a file or stdin', async () => {
    const big = `target: acme/api\n# ${'x'.repeat(DESIRED_MAX_BYTES)}\n`;
    const result = await sandbox.run(['validate', '-f', file(big)]);
    expect(result).toMatchObject({ code: 2, stderr: expect.stringMatching(/desired\.yaml is 8\.0 MiB; a desired-state file may be at most 8 MiB/) });
    expect((await sandbox.run(['plan', '-f', '-'], { input: big })).stderr).toMatch(/stdin is 8\.0 MiB; a desired-state file may be at most 8 MiB/);
  });

  it('refuses credentials in a webhook URL in favour of URL variables given as secret references', async () => {
    const result = await sandbox.run(['validate', '-f', file('target: acme/api\nprojects:\n  acme/api:\n    hooks:\n      - url: https://user:pass@hooks.example.com/x\n')]);
    expect(result.code).toBe(2);
    const said = result.stdout + result.stderr;
    expect(said).toMatch(/url holds credentials, which a desired-state file must not/);
    expect(said).toMatch(/url_variables/);
    expect(said).not.toContain('user:pass');
    // Placeholders for URL variables are not credentials.
    const templated = file('target: acme/api\nprojects:\n  acme/api:\n    hooks:\n      - url: https://{user}:{password}@hooks.example.com/x\n        url_variables: {user: {env: HOOK_USER}, password: {env: HOOK_PASSWORD}}\n');
    expect((await sandbox.run(['validate', '-f', templated])).code).toBe(0);
  });

  it('a hook that has credentials in its URL on the service is shown masked by plan, the saved plan and apply', async () => {
    // Made on the service by another client: forgectl's own hooks create refuses credentials in --url.
    expect((await sandbox.run(['api', '-X', 'POST', '/projects/acme%2Fapi/hooks', '-f', 'url=https://user:hunter2@hooks.example.com/creds', '-F', 'push_events=true'])).code).toBe(0);
    const dir = tempDir();
    const desired = join(dir, 'desired.yaml');
    writeFileSync(desired, 'target: acme/api\nprune: all\nprojects:\n  acme/api:\n    hooks: []\n');
    const plan = await sandbox.run(['plan', '-f', desired, '--out', join(dir, 'plan.json')]);
    const shown = await sandbox.run(['plan', '-f', desired, '-o', 'json']);
    const applied = await sandbox.run(['apply', '-f', join(dir, 'plan.json'), '--yes', '--prune']);
    for (const text of [plan.stdout, plan.stderr, shown.stdout, applied.stdout, applied.stderr, (await import('node:fs')).readFileSync(join(dir, 'plan.json'), 'utf8')]) {
      expect(text).not.toContain('hunter2');
    }
    expect(plan.stdout).toContain('https://*****:*****@hooks.example.com/creds');
    expect(applied.code).toBe(0);
  });

  it('a token in a hook URL\'s query is a credential too: refused in a file, masked in an export, which then asks for a URL variable', async () => {
    const refused = await sandbox.run(['validate', '-f', file('target: acme/web\nprojects:\n  acme/web:\n    hooks:\n      - url: https://hooks.example.com/x?a=1&token=tok-in-query-5e1\n')]);
    expect(refused.code).toBe(2);
    expect(refused.stdout + refused.stderr).toMatch(/url holds credentials, which a desired-state file must not/);
    expect(refused.stdout + refused.stderr).not.toContain('tok-in-query-5e1');
    const templated = file('target: acme/web\nprojects:\n  acme/web:\n    hooks:\n      - url: https://hooks.example.com/x?token={token}\n        url_variables: {token: {env: HOOK_TOKEN}}\n');
    expect((await sandbox.run(['validate', '-f', templated])).code).toBe(0);
    // Made on the service by another client: the export masks it, and the exported file says to name it instead.
    expect((await sandbox.run(['api', '-X', 'POST', '/projects/acme%2Fweb/hooks', '-f', 'url=https://hooks.example.com/q?private_token=tok-on-service-77a', '-F', 'push_events=true'])).code).toBe(0);
    const exported = await sandbox.run(['export', '--project', 'acme/web', '--kinds', 'hooks']);
    expect(exported.code).toBe(0);
    expect(exported.stdout + exported.stderr).not.toContain('tok-on-service-77a');
    expect(exported.stdout).toContain('url: https://hooks.example.com/q?private_token=*****\n');
    expect((await sandbox.run(['validate', '-f', file(exported.stdout)])).code).toBe(2);
  });
});
