// The sandbox as its own process for benchmarks, so that it competes with neither side for an event loop. Its
// stderr is not shown (it logs requests a CLI leaves in flight when it exits or is killed).
import { spawn } from 'node:child_process';

/** Starts `forgectl sandbox --print-env …`; resolves with the process and the environment it printed. */
export async function startSandboxProcess(bin, args = []) {
  const child = spawn(process.execPath, [bin, 'sandbox', '--print-env', ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  const text = await new Promise((resolve, reject) => {
    let printed = '';
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
    child.stdout.on('data', (d) => {
      printed += d;
      if (printed.includes('FORGECTL_TOKEN')) resolve(printed);
    });
  });
  const env = Object.fromEntries([...text.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1], m[2].replace(/^'|'$/g, '')]));
  return { process: child, env };
}

/**
 * Runs the CLI against a sandbox's environment with its own config folder (and any extra variables); resolves with
 * its exit code, wall time in ms, stdout and stderr.
 */
export function runForgectl(bin, sandboxEnv, configDir, args, extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env.PATH, FORGECTL_URL: sandboxEnv.FORGECTL_URL, FORGECTL_TOKEN: sandboxEnv.FORGECTL_TOKEN, FORGECTL_CONFIG_DIR: configDir, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, ms: Number(process.hrtime.bigint() - start) / 1e6, stdout, stderr }));
  });
}
