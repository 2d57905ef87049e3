/**
 * Messages as a user reads them: what was wrong and what to do, in words of the tool (not of the library under it),
 * nothing said twice.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { run, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

describe('error wording', () => {
  it('an unknown option gets forgectl\'s hint at the nearest option, as an unknown command does; -o json has it as JSON', async () => {
    const typo = await sandbox.run(['projects', 'list', '--per-pag', '5']);
    expect(typo).toMatchObject({ code: 2, stdout: '', stderr: "error: unknown option '--per-pag'\nhint: did you mean --per-page?\n" });
    // The command's own options and the global ones, with a value attached or not.
    expect((await sandbox.run(['variables', 'list', '--projct=acme/api'])).stderr).toBe("error: unknown option '--projct'\nhint: did you mean --project?\n");
    expect((await sandbox.run(['--verbos', 'users', 'list'])).stderr).toBe("error: unknown option '--verbos'\nhint: did you mean --verbose?\n");
    expect((await sandbox.run(['users', 'list', '-Z'])).stderr).toBe("error: unknown option '-Z'\nhint: forgectl users list --help lists its options\n");
    const json = await sandbox.run(['users', 'list', '--per-pag', '5', '-o', 'json']);
    expect(json.code).toBe(2);
    expect(json.stderr.split('\n').map((line) => (line.startsWith('{') ? JSON.parse(line) : line))).toContainEqual({ error: { message: "unknown option '--per-pag'", exit_code: 2 } });
  });

  it('a bad variable key says what a key may hold', async () => {
    const bad = await sandbox.run(['variables', 'set', 'bad key', '--project', 'acme/api', '--value', 'x']);
    expect(bad).toMatchObject({ code: 2, stderr: 'error: variable key "bad key": a key holds only letters, digits and _ (1 to 255 of them)\n' });
  });

  it('an empty stdin where a secret was expected names what was missing and how to give it', async () => {
    const empty = await sandbox.run(['tokens', 'identify'], { input: '' });
    expect(empty).toMatchObject({ code: 2, stderr: "error: no token to identify: stdin is empty\nhint: pipe it in (printf '%s\\n' \"$VALUE\" | forgectl …), or run at a terminal to be asked for it\n" });
    const hook = await sandbox.run(['hooks', 'create', '--project', 'acme/api', '--url', 'https://ci.example.com/hook', '--token-stdin'], { input: '\n' });
    expect(hook.stderr).toMatch(/^error: no secret token: stdin is empty\n/);
  });

  it('deletions name the object once, with what makes them worth a second look', async () => {
    expect((await sandbox.run(['branches', 'delete', 'feature', '--project', 'acme/api'])).stderr).toBe('error: confirmation needed: Delete branch feature (not merged) of project acme/api?\nhint: pass --yes to confirm without a terminal\n');
    expect((await sandbox.run(['deploy-keys', 'delete', '3', '--project', 'acme/api'])).stderr).toBe('error: confirmation needed: Delete deploy key 3 ("CI deploy key") of project acme/api?\nhint: pass --yes to confirm without a terminal\n');
  });
});

describe('forgectl version', () => {
  it('prints what --version prints; as a record, the versions of forgectl and Node.js', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const [plain, flag, json, jq] = await Promise.all([run(['version']), run(['--version']), run(['version', '-o', 'json']), run(['version', '--jq', '.node'])]);
    expect(plain).toMatchObject({ code: 0, stdout: `forgectl ${version}\n`, stderr: '' });
    expect(flag.stdout).toBe(plain.stdout);
    expect(json.json()).toEqual({ forgectl: version, node: process.versions.node });
    expect(jq.stdout).toBe(`${process.versions.node}\n`);
  });
});
