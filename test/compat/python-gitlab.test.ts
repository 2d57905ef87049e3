import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/cli.js';

/**
 * python-gitlab (the library, as Debian packages it: python3-gitlab) driven through the calls of its own functional
 * tests, against the sandbox: users, keys, groups, projects (create, update, archive, share, delete, restore), members, access tokens, badges, push rules, protected tags,
 * protected branches, approvals, merge requests (approval rules and state), audit events, deploy tokens, runners, variables,
 * branches and commits on a new project, personal snippets, and its command line creating access tokens and branches
 * (python_gitlab_check.py). Where no
 * Python with python-gitlab is installed (CI has only the npm registry) the check is skipped with a note; install
 * it with `apt-get install -y python3-gitlab`.
 */

const SCRIPT = fileURLToPath(new URL('./python_gitlab_check.py', import.meta.url));

/** A Python that can import gitlab: the one on PATH, or Debian's (a pyenv or venv python3 may shadow it). */
function findPython(): string | undefined {
  for (const candidate of ['python3', '/usr/bin/python3']) {
    const probe = spawnSync(candidate, ['-c', 'import gitlab, requests'], { stdio: 'ignore' });
    if (probe.status === 0) return candidate;
  }
  return undefined;
}

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

const python = findPython();
const SKIPPED = 'python-gitlab compatibility check skipped: no python3 with python-gitlab here (apt-get install -y python3-gitlab)';
// The describe below is skipped then (its test shows as skipped); this line says why.
if (!python) process.stderr.write(`${SKIPPED}\n`);

describe.skipIf(!python)('a third-party client (python-gitlab) against the sandbox', () => {
  const sandbox = useTestSandbox();

  it('passes the calls of python-gitlab\'s functional tests for every resource python_gitlab_check.py lists', async () => {
    const { code, output } = await runScript(python!, { GITLAB_URL: sandbox.rootUrl, GITLAB_TOKEN: sandbox.adminToken });
    const failures = output.split('\n').filter((line) => line.startsWith('FAIL'));
    expect(failures).toEqual([]);
    expect(output).toMatch(/^\d+ checks, 0 failed$/m);
    expect(code).toBe(0);
  }, 120_000);
});
