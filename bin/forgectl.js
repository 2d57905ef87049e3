#!/usr/bin/env node
import module from 'node:module';
import { setFlagsFromString } from 'node:v8';

// Start-up: reuse compiled code between runs where Node offers it (22.1+), and compile undici's HTTP parser
// (WebAssembly) with the baseline compiler only — optimising it costs a CLI run more than it saves.
module.enableCompileCache?.();
setFlagsFromString('--liftoff-only');

const { main } = await import('../dist/main.js');
const code = await main(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
// Flush stdout and stderr, then exit at once: idle keep-alive sockets must not hold the process open.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
