import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/cli.js';
import { needs, pythonWithGitlab } from '../helpers/system.js';

/**
 * python-gitlab (the library, as Debian packages it: python3-gitlab) driven through the calls of its own functional
 * tests, against the sandbox: users, keys, groups, projects (create, update, archive, share, delete, restore), members, access tokens, badges, push rules, protected tags,
 * protected branches, approvals, merge requests (approval rules and state), audit events, deploy tokens, runners, variables,
 * branches and commits on a new project, personal snippets, and its command line creating access tokens and branches
 * (python_gitlab_check.py). Where no Python with python-gitlab is installed the check is skipped, saying so (Debian's
 * python3-gitlab brings it).
 */

const SCRIPT = fileURLToPath(new URL('./python_gitlab_check.py', import.meta.url));

/** Runs the script without blocking: the sandbox answers from this process. */
function runScript(python: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [SCRIPT], { env: { ...process.env, ...env, PYTHONWARNINGS: 'ignore' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('a third-party client (python-gitlab) against the sandbox', () => {
  const sandbox = useTestSandbox();

  it('passes the calls of python-gitlab\'s functional tests for every resource python_gitlab_check.py lists', async (context) => {
    needs(context, 'python-gitlab');
    const { code, output } = await runScript(pythonWithGitlab()!, { GITLAB_URL: sandbox.rootUrl, GITLAB_TOKEN: sandbox.adminToken });
    const failures = output.split('\n').filter((line) => line.startsWith('FAIL'));
    expect(failures).toEqual([]);
    expect(output).toMatch(/^\d+ checks, 0 failed$/m);
    expect(code).toBe(0);
  }, 120_000);
});
