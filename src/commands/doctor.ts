import { defineCommand } from '../cli/command.js';
import { ResultWithExit, TextResult } from '../output/result.js';
import { doctorExitCode, runChecks, type CheckResult } from './doctor/check.js';
import { configurationChecks } from './doctor/local.js';
import { networkChecks } from './doctor/network.js';
import { remoteChecks } from './doctor/remote.js';

const label = (result: CheckResult): string => `${result.section}: ${result.check}`;

/** The checks as lines for the terminal: status, section and check (one column, as wide as the longest), what was found, and the fix. */
function lines(results: CheckResult[]): string {
  const width = Math.max(...results.map((result) => label(result).length));
  return results.map((result) => `${result.status.padEnd(4)}  ${label(result).padEnd(width)}  ${result.found}${result.fix ? `  → fix: ${result.fix}` : ''}\n`).join('');
}

export default defineCommand<{ fix?: boolean }>({
  description: [
    'Checks, in order: the configuration (file and folder modes, profiles, which profile is used and why, where its',
    'token lives, interrupted rotations, stale locks), the network (DNS, proxy, TCP, TLS chain, expiry and host name',
    'with the CA bundle in use, http→https, round trip), the service (version, features it lacks, rate-limit headers,',
    'clock skew against its Date header) and the token (valid, scopes and the command groups they allow, expiry,',
    'self_rotate when a cron line rotates it). One line per check: status, what was found, what fixes it. Exit 0 when',
    'all pass, 9 when some only warn, else the exit code of the first failing check. --fix repairs what is safe to',
    'repair here (file modes, stale locks).',
  ].join(' '),
  exits: { 9: 'a check gave a warning; a check that failed gives its own exit code (3 configuration, 4 the token, 8 the network or TLS …)' },
  examples: ['forgectl doctor', 'forgectl -p prod doctor -o json', 'forgectl doctor --fix'],
  options: [{ flags: '--fix', description: 'repair file and folder modes and remove stale locks; print how to fix the rest' }],
  columns: ['status', 'section', 'check', 'found', 'fix'],
  async run(opts, ctx) {
    const state = { ctx, fix: Boolean(opts.fix) };
    const results = await runChecks([...configurationChecks, ...networkChecks, ...remoteChecks], state);
    const code = doctorExitCode(results);
    const failed = results.filter((result) => result.status === 'fail').length;
    const warned = results.filter((result) => result.status === 'warn').length;
    const summary = failed || warned ? `${failed} failed, ${warned} to look at (exit ${code})` : undefined;
    // At a terminal, whole lines (a table would cut what was found); in a pipe and with -o, the records.
    const output = ctx.format === 'table' && ctx.io.stdoutIsTTY ? new TextResult(lines(results)) : results;
    return code ? new ResultWithExit(output, code, summary) : output;
  },
});
