/**
 * `npm run demo` (scripts/demo.mjs) against the built bin: every step ends with the exit it expects, in a pipe and at
 * a terminal, and a pipe closed early ends it at once, leaving nothing running.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILT, tempDir } from '../helpers/cli.js';
import { needs, ptyRunner } from '../helpers/system.js';
import { ROOT, runProcess } from './package.js';

const homes: string[] = [];
const env = (): NodeJS.ProcessEnv => {
  homes.push(tempDir('forgectl-demo-home-'));
  return { PATH: process.env.PATH, HOME: homes[homes.length - 1], LANG: 'C.UTF-8' };
};
afterAll(() => homes.forEach((home) => rmSync(home, { recursive: true, force: true })));

/** What every run of the tour shows. */
function expectTour(output: string): void {
  expect(output, output.slice(-3000)).toContain('Tour complete.');
  expect(output).not.toContain('!!');
  // The masked variable's value goes in from stdin and never comes out, not even to the agent.
  expect(output).not.toContain('demo-release-token-8c1f');
  expect(output).toMatch(/\$ forgectl doctor\r?\npass {2}configuration: file modes/);
  expect(output).toMatch(/\$ forgectl variables list --project acme\/api\r?\n.*key +environme/);
  expect(output).toMatch(/\$ forgectl protected-branches list --project acme\/api\r?\n[\s\S]*hotfix\/\* +false +no-access +maintainer/);
  expect(output).toMatch(/\$ forgectl members list --project acme\/api\r?\n/);
  expect(output).toMatch(/\$ forgectl runners audit --instance --stale 30d\r?\n[\s\S]*?\(exit 9, as expected\)/);
  expect(output).toMatch(/→ tools\/list\r?\n← \d+ tools, \d+ of them read-only/);
  expect(output).toContain('← {"key":"RELEASE_TOKEN","environment_scope":"*","masked":true,"value":null}');
}

describe.skipIf(!BUILT).concurrent('npm run demo', () => {
  it('in a pipe: every step as expected, the masked value never shown, an MCP round trip', async () => {
    const result = await runProcess(process.execPath, ['scripts/demo.mjs'], { cwd: ROOT, env: env(), timeoutMs: 170_000 });
    expectTour(result.stdout);
    expect(result.code).toBe(0);
  }, 180_000);

  it('at a terminal: the same tour', async (context) => {
    needs(context, 'pty');
    const [command, args] = ptyRunner()!(`stty cols 100 rows 50 2>/dev/null; exec "${process.execPath}" scripts/demo.mjs`);
    const result = await runProcess(command, args, { cwd: ROOT, env: { ...env(), TERM: 'xterm' }, timeoutMs: 170_000 });
    // eslint-disable-next-line no-control-regex
    expectTour(result.stdout.replace(/\x1b\[[0-9;]*m/g, ''));
    expect(result.code).toBe(0);
  }, 180_000);

  it('a pipe closed early (| head) ends it at once with exit 0, its sandbox stopped', async () => {
    const started = Date.now();
    const result = await runProcess('bash', ['-c', `"${process.execPath}" scripts/demo.mjs | head -1; echo "exit \${PIPESTATUS[0]}"`], { cwd: ROOT, env: env(), timeoutMs: 60_000 });
    // After a step or two, not after the whole tour (twenty seconds and more).
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.stdout).toMatch(/^forgectl demo — sandbox at (http:\/\/127\.0\.0\.1:\d+), config in .*\nexit 0\n$/);
    const url = /sandbox at (\S+),/.exec(result.stdout)![1];
    await expect(fetch(`${url}/api/v4/version`)).rejects.toThrow();
  }, 60_000);
});
