// --jq benchmark: `forgectl users list --all --jq '.username'` against `forgectl users list --all -o json | jq -r
// '.[].username'` (the pipe it replaces, with Debian's jq) on a sandbox with 50,000 extra users, timed by
// farm-bench (whole processes, A and B in turn, the ratio taken pair by pair; peak RSS is the largest single
// process). First checks that both print the same lines; then measures peak RSS at 5,000 users too, to show that
// memory stays flat in N, and times an expression that reads whole records (`.username | ascii_upcase`) the same
// way. Needs farm-bench and jq on PATH.
// Run: npm run bench:jq   (RUNS=5 USERS=50000 to change the defaults)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandboxProcess } from './sandbox.mjs';

const RUNS = Number(process.env.RUNS ?? 5);
const USERS = Number(process.env.USERS ?? 50_000);
const bin = new URL('../bin/forgectl.cjs', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'forgectl-bench-jq-'));
if (spawnSync('jq', ['--version']).status !== 0) throw new Error('this benchmark needs jq: apt-get install jq');

async function measure(users) {
  const { process: sandbox, env: sandboxEnv } = await startSandboxProcess(bin, ['--users', String(users)]);
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, FORGECTL_URL: sandboxEnv.FORGECTL_URL, FORGECTL_TOKEN: sandboxEnv.FORGECTL_TOKEN, FORGECTL_CONFIG_DIR: work };
  try {
    const ours = spawnSync(process.execPath, [bin, 'users', 'list', '--all', '--jq', '.username'], { env, encoding: 'utf8', maxBuffer: 1 << 28 });
    const pipe = spawnSync('sh', ['-c', `node ${bin} users list --all -o json | jq -r '.[].username'`], { env, encoding: 'utf8', maxBuffer: 1 << 28 });
    if (ours.status !== 0 || pipe.status !== 0) throw new Error(`a run failed: ${ours.stderr}${pipe.stderr}`);
    const lines = ours.stdout.split('\n').length - 1;
    console.log(`${users} extra users: --jq printed ${lines} lines, ${ours.stdout === pipe.stdout ? 'the same as' : 'NOT THE SAME AS'} -o json | jq -r`);
    if (ours.stdout !== pipe.stdout) process.exitCode = 1;
    const report = spawnSync(
      'farm-bench',
      ['-n', String(RUNS), '--timeout', '900', '--vs', `sh -c 'exec node ${bin} users list --all -o json | jq -r ".[].username" >/dev/null'`, '--', 'sh', '-c', `exec node ${bin} users list --all --jq .username >/dev/null`],
      { env, encoding: 'utf8' },
    );
    console.log(report.stdout + report.stderr);
    if (users === USERS) {
      // An expression that reads whole records (not a plain path: jq parses all of each record).
      const whole = spawnSync(
        'farm-bench',
        ['-n', String(RUNS), '--timeout', '900', '--vs', `sh -c 'exec node ${bin} users list --all -o json | jq -r ".[] | .username | ascii_upcase" >/dev/null'`, '--', 'sh', '-c', `exec node ${bin} users list --all --jq '.username | ascii_upcase' >/dev/null`],
        { env, encoding: 'utf8' },
      );
      console.log(whole.stdout + whole.stderr);
    }
  } finally {
    sandbox.kill('SIGTERM');
  }
}

try {
  for (const users of [USERS, Math.round(USERS / 10)]) await measure(users);
} finally {
  rmSync(work, { recursive: true, force: true });
}
