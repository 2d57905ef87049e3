#!/usr/bin/env node
'use strict';
// The command-line entry. CommonJS on purpose: `forgectl --version` answers here without starting the ES module
// loader or loading any of dist/ (start-up time); everything else runs main() from the bundle.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`forgectl ${require('../package.json').version}\n`);
} else {
  // Reuse compiled code between runs where Node offers it (22.1+), and compile undici's HTTP parser
  // (WebAssembly) with the baseline compiler only: optimising it costs a CLI run more than it saves.
  require('node:module').enableCompileCache?.();
  require('node:v8').setFlagsFromString('--liftoff-only');
  // The first SIGINT or SIGTERM asks main() to stop (it says what was left undone); a second one kills at once.
  const interrupted = new Promise((resolve) => {
    const stop = (signal) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  // A reader that went away (`| head -1`) must not crash the final flush below with EPIPE.
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
  import('../dist/main.js').then(async ({ main }) => {
    const code = await main(argv, { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, interrupted });
    // Flush stdout and stderr, then exit at once: idle keep-alive sockets must not hold the process open.
    process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
  });
}
