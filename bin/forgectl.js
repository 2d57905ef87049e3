#!/usr/bin/env node
import { main } from '../dist/main.js';

const code = await main(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
// Flush stdout and stderr, then exit at once: idle keep-alive sockets must not hold the process open.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
