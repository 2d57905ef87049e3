import { describe, expect, it } from 'vitest';
import { tempDir, tempFile, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();
const dir = tempDir();

const file = (name: string, text: string): string => tempFile(text, name, dir);

describe('desired state: what the file says is what is checked and made', () => {
  it('a bad field of a section that may be null reports the field, not "must be null"', async () => {
    const path = file('push-rule.yaml', 'version: 1\nprojects:\n  acme/api:\n    push_rule: {max_file_size: "30", deny_delete_tag: "yes"}\n');
    for (const command of ['validate', 'plan']) {
      const result = await sandbox.run([command, '-f', path]);
      expect(result.code, command).toBe(2);
      const said = result.stdout + result.stderr;
      expect(said).toContain(`${path}:4:32: projects."acme/api".push_rule.max_file_size: must be a whole number`);
      expect(said).toContain('push_rule.deny_delete_tag: must be true or false');
      expect(said).not.toContain('must be null');
    }
    // null itself is still a push rule's removal, and a record of the right types is fine.
    expect((await sandbox.run(['validate', '-f', file('null.yaml', 'version: 1\nprojects:\n  acme/api:\n    push_rule: null\n')])).code).toBe(0);
    expect((await sandbox.run(['validate', '-f', file('ok.yaml', 'version: 1\nprojects:\n  acme/api:\n    push_rule: {max_file_size: 30}\n')])).code).toBe(0);
  });

  it('a badge named with the [forgectl] marker gets it once, and then plans no changes', async () => {
    const path = file('badges.yaml', [
      'version: 1',
      'projects:',
      '  acme/web:',
      '    badges:',
      '      - {name: "coverage [forgectl]", link_url: "https://ci.example.com/%{project_path}", image_url: "https://ci.example.com/c.svg"}',
      '',
    ].join('\n'));
    const applied = await sandbox.run(['apply', '-f', path, '--yes']);
    expect(applied.code, applied.stderr).toBe(0);
    const badges = (await sandbox.call('GET', '/projects/acme%2Fweb/badges')).body as Array<{ name: string; kind: string }>;
    expect(badges.filter((b) => b.kind === 'project').map((b) => b.name)).toEqual(['coverage [forgectl]']);
    const plan = await sandbox.run(['plan', '-f', path]);
    expect(plan.code, plan.stdout).toBe(0);
    // Applying again changes nothing: still one badge, one marker.
    expect((await sandbox.run(['apply', '-f', path, '--yes'])).code).toBe(0);
    const again = (await sandbox.call('GET', '/projects/acme%2Fweb/badges')).body as Array<{ name: string; kind: string }>;
    expect(again.filter((b) => b.kind === 'project').map((b) => b.name)).toEqual(['coverage [forgectl]']);
  });
});
