// `npm run demo`: a tour of real forgectl commands against a sandbox on a free port, in a temporary config
// folder (your own profiles are never touched). Each command line is printed before its output.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = new URL('../bin/forgectl.js', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'forgectl-demo-'));
const bold = (text) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);

const sandbox = spawn(process.execPath, [bin, 'sandbox', '--print-env', '--users', '3'], { stdio: ['ignore', 'pipe', 'inherit'] });
const exports = await new Promise((resolve, reject) => {
  let text = '';
  sandbox.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  sandbox.stdout.on('data', (chunk) => {
    text += chunk;
    if (/FORGECTL_TOKEN=.*\n/.test(text)) resolve(text);
  });
});
const sandboxEnv = Object.fromEntries([...exports.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1], m[2].replace(/^'(.*)'$/, '$1')]));
const env = { ...process.env, FORGECTL_CONFIG_DIR: join(work, 'config'), ...sandboxEnv };
delete env.FORGECTL_URL; // the tour uses a logged-in profile, as a user would
delete env.FORGECTL_TOKEN;
delete env.FORGECTL_PROFILE;

/** Steps of the resource command groups: [title, argv, options]. */
const TOUR_EXTRAS = [];

let failures = 0;
/** Runs one tour step: prints the command line, then its output. */
function step(title, args, { input, expect = 0, show } = {}) {
  console.log(`\n${bold(`# ${title}`)}\n$ ${show ?? `forgectl ${args.map((a) => (/[\s'"$*]/.test(a) ? `'${a}'` : a)).join(' ')}`}`);
  const result = spawnSync(process.execPath, [bin, ...args], { env, input, encoding: 'utf8' });
  process.stdout.write(result.stdout);
  process.stdout.write(result.stderr);
  if (result.status !== expect) {
    failures++;
    console.log(`!! exit ${result.status}, expected ${expect}`);
  } else if (expect !== 0) {
    console.log(`(exit ${result.status}, as expected)`);
  }
  return result;
}

try {
  console.log(bold(`forgectl demo — sandbox at ${sandboxEnv.FORGECTL_URL}, config in ${env.FORGECTL_CONFIG_DIR}`));
  step('Log in (the token comes from stdin, never from the command line)', ['auth', 'login', '--profile', 'demo', '--url', sandboxEnv.FORGECTL_URL, '--token-stdin'], {
    input: `${sandboxEnv.FORGECTL_TOKEN}\n`,
    show: `printf '%s\\n' "$TOKEN" | forgectl auth login --profile demo --url ${sandboxEnv.FORGECTL_URL} --token-stdin`,
  });
  step('Who am I, and when does my token expire?', ['auth', 'status']);
  step('Profiles', ['profile', 'list']);
  step('A raw API call, as JSON', ['api', '/projects/acme%2Fapi', '--fields', 'id,path_with_namespace,default_branch']);
  step('Every user, as NDJSON (pages fetched concurrently)', ['api', '/users', '--paginate', '-o', 'ndjson', '--fields', 'id,username']);
  step('Errors are one line and an exit code (5: not found)', ['api', '/users/987654321'], { expect: 5 });
  step('Changes can be previewed: --dry-run prints the request and sends nothing', ['--dry-run', 'api', '-X', 'PUT', '/application/settings', '-F', 'signup_enabled=false']);
  for (const extra of TOUR_EXTRAS) step(...extra);
} finally {
  sandbox.kill();
  rmSync(work, { recursive: true, force: true });
}
if (failures) {
  console.log(`\n${failures} step(s) did not end as expected`);
  process.exit(1);
}
console.log(`\n${bold('Tour complete.')} Start your own sandbox with: forgectl sandbox`);
