// `npm run demo`: a tour of real forgectl commands against a sandbox on a free port, in a temporary config
// folder (your own profiles are never touched). Each command line is printed before its output.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = new URL('../bin/forgectl.cjs', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'forgectl-demo-'));
const bold = (text) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);

const sandbox = spawn(process.execPath, [bin, 'sandbox', '--print-env', '--users', '3'], { stdio: ['ignore', 'pipe', 'ignore'] });
const exports = await new Promise((resolve, reject) => {
  let text = '';
  sandbox.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  sandbox.stdout.on('data', (chunk) => {
    text += chunk;
    if (/FORGECTL_TOKEN=.*\n/.test(text)) resolve(text);
  });
});
// However the tour ends (finished, a pipe closed early as by `| head`, Ctrl-C or kill), the processes it started and
// its folder go too.
const children = [sandbox];
const cleanUp = () => {
  for (const child of children) child.kill();
  rmSync(work, { recursive: true, force: true });
};
process.on('exit', cleanUp);
process.stdout.on('error', (error) => process.exit(error.code === 'EPIPE' ? 0 : 1));
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));
const sandboxEnv = Object.fromEntries([...exports.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1], m[2].replace(/^'(.*)'$/, '$1')]));
const env = { ...process.env, FORGECTL_CONFIG_DIR: join(work, 'config'), ...sandboxEnv };
delete env.FORGECTL_URL; // the tour uses a logged-in profile, as a user would
delete env.FORGECTL_TOKEN;
delete env.FORGECTL_PROFILE;

/**
 * A webhook receiver in its own process (the tour's steps block this one while they run): it answers 200 and
 * appends what it got to a file.
 */
async function startReceiver(log) {
  const code = `
    const { createServer } = require('node:http');
    const { appendFileSync } = require('node:fs');
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const payload = JSON.parse(body || '{}');
        appendFileSync(${JSON.stringify(log)}, JSON.stringify({ method: req.method, path: req.url, event: req.headers['x-gitlab-event'], token: req.headers['x-gitlab-token'], ref: payload.ref, commits: payload.total_commits_count }) + '\\n');
        res.end('{"ok":true}');
      });
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const port = await new Promise((resolve) => child.stdout.once('data', (chunk) => resolve(String(chunk).trim())));
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line)) : []),
    stop: () => child.kill(),
  };
}

/**
 * An AI agent's view: `forgectl mcp serve` over stdio, spoken to in JSON-RPC as an MCP client does (initialize,
 * list the tools, call one); each request and a summary of its answer printed.
 */
async function mcpRoundTrip(toolsets, tool, args) {
  console.log(`$ forgectl mcp serve --toolsets ${toolsets}    # what an agent starts; it speaks JSON-RPC on stdin and stdout`);
  const server = spawn(process.execPath, [bin, 'mcp', 'serve', '--toolsets', toolsets], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(server);
  const waiting = new Map();
  let buffered = '';
  server.stdout.on('data', (chunk) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      waiting.get(message.id)?.(message);
    }
  });
  const exited = new Promise((resolve) => server.on('exit', resolve));
  let id = 0;
  const request = (method, params) => {
    const message = { jsonrpc: '2.0', id: ++id, method, params };
    const answer = new Promise((resolve, reject) => {
      waiting.set(message.id, resolve);
      exited.then(() => reject(new Error(`the server exited before answering ${method}`)));
      setTimeout(() => reject(new Error(`no answer to ${method} within 20 s`)), 20_000).unref();
    });
    server.stdin.write(`${JSON.stringify(message)}\n`);
    return answer;
  };
  try {
    const hello = await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'forgectl-demo', version: '1' } });
    server.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    console.log(`→ initialize\n← ${hello.result.serverInfo.name} ${hello.result.serverInfo.version}`);
    const { tools } = (await request('tools/list', {})).result;
    const reads = tools.filter((t) => t.annotations?.readOnlyHint).length;
    console.log(`→ tools/list\n← ${tools.length} tools, ${reads} of them read-only (writes need --allow-write): ${tools.map((t) => t.name).join(', ')}`);
    console.log(`→ tools/call ${tool} ${JSON.stringify(args)}`);
    const called = (await request('tools/call', { name: tool, arguments: args })).result;
    for (const record of called.structuredContent.result) console.log(`← ${JSON.stringify(record)}`);
    if (called.isError) throw new Error(called.content[0].text);
  } catch (error) {
    failures++;
    console.log(`!! ${error.message}`);
  } finally {
    server.stdin.end();
    await exited;
  }
}

let failures = 0;
const quote = (a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`);
/** util-linux `script` gives a command a pseudo-terminal, so a tour read in a file or a pipe shows what you would see. */
const hasScript = spawnSync('script', ['-qec', 'true', '/dev/null'], { stdio: 'ignore' }).status === 0;

/** What a terminal shows of a pseudo-terminal's output: each line as last redrawn (spinners), no control codes. */
function asShown(text) {
  return text
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '') // eslint-disable-line no-control-regex
    .split('\n')
    .map((line) => line.replace(/\r+$/, '').split('\r').pop())
    .join('\n');
}

/** Runs one tour step: prints the command line, then its output as it looks on a terminal. */
function step(title, args, { input, expect = 0, show, capture = false } = {}) {
  // A pipe closed early (| head): the last write failed. Its error event waits for a turn of the event loop, which
  // these steps, run synchronously, would not give it until the end of the tour.
  if (process.stdout.errored) process.exit(0);
  console.log(`${title ? `\n${bold(`# ${title}`)}\n` : ''}$ ${show ?? `forgectl ${args.map(quote).join(' ')}`}`);
  // On a terminal the commands draw their tables as they would for you. Read elsewhere (a file, a pipe), the steps
  // run on a pseudo-terminal 100 columns wide, so their tables look the same. Steps whose output the tour needs,
  // or that read stdin, run in a pipe.
  const direct = process.stdout.isTTY && !capture;
  const onPty = !process.stdout.isTTY && !capture && input === undefined && hasScript;
  let result;
  if (onPty) {
    const command = `stty cols 100 rows 50 2>/dev/null; exec ${[process.execPath, bin, ...args].map(quote).join(' ')}`;
    result = spawnSync('script', ['-qec', command, '/dev/null'], { env: { ...env, NO_COLOR: '1' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    process.stdout.write(asShown(result.stdout));
  } else {
    result = spawnSync(process.execPath, [bin, ...args], { env, input, encoding: 'utf8', stdio: [input === undefined ? 'inherit' : 'pipe', direct ? 'inherit' : 'pipe', direct ? 'inherit' : 'pipe'] });
    if (!direct) {
      process.stdout.write(result.stdout);
      process.stdout.write(result.stderr);
    }
  }
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
  step('The whole path checked: configuration, network, TLS, service, clock, token', ['doctor']);
  step('Profiles', ['profile', 'list']);
  step('A raw API call, as JSON', ['api', '/projects/acme%2Fapi', '--fields', 'id,path_with_namespace,default_branch']);
  step('Errors are one line and an exit code (5: not found)', ['api', '/users/987654321'], { expect: 5 });
  step('Changes can be previewed: --dry-run prints the request and sends nothing', ['--dry-run', 'api', '-X', 'PUT', '/application/settings', '-F', 'signup_enabled=false']);

  // Access tokens: the flagship is rotation that cron can run unattended.
  step('Access tokens of a group (access level by name)', ['tokens', 'list', '--group', 'acme']);
  const groupTokens = JSON.parse(step('The same as JSON, for scripts', ['tokens', 'list', '--group', 'acme', '-o', 'json', '--fields', 'id,name,expires_at'], { capture: true }).stdout);
  const ciToken = groupTokens.find((t) => t.name === 'acme-ci');
  const tokenFile = join(work, 'acme-ci.token');
  step('Rotate it as cron would: locked, saved atomically to a 0600 file, verified, never printed', ['tokens', 'rotate', String(ciToken.id), '--group', 'acme', '--expires-in', '30d', '--output-file', tokenFile, '--yes']);
  step('Tokens expiring within 60 days (exit 9 tells cron that some do)', ['tokens', 'audit', '--group', 'acme', '--project', 'acme/api', '--expiring-within', '60d'], { expect: 9 });

  // CI/CD variables: secrets in, never out.
  step('A masked CI/CD variable: its value from stdin (never an argument)', ['variables', 'set', 'RELEASE_TOKEN', '--project', 'acme/api', '--masked', '--protected', '--value-stdin', '--fields', 'key,masked,protected,value'], {
    input: 'demo-release-token-8c1f\n',
    show: `printf '%s\\n' "$RELEASE_TOKEN" | forgectl variables set RELEASE_TOKEN --project acme/api --masked --protected --value-stdin`,
  });
  step('Masked and hidden values are never printed (in a table, JSON, a pipe or a log)', ['variables', 'list', '--project', 'acme/api']);
  step('', ['variables', 'get', 'RELEASE_TOKEN', '--project', 'acme/api', '-o', 'json', '--fields', 'key,masked,protected,value']);

  // Review workflow.
  step('Approving at a SHA that is not HEAD is refused (exit 6)', ['approvals', 'approve', '--project', 'acme/api', '--mr', '1', '--sha', '0000000000000000000000000000000000000000'], { expect: 6 });
  step('Approve at HEAD', ['approvals', 'approve', '--project', 'acme/api', '--mr', '1']);
  step('A draft review, published in one go', ['draft-notes', 'create', '--project', 'acme/api', '--mr', '1', '--note', 'looks good']);
  step('', ['draft-notes', 'publish-all', '--project', 'acme/api', '--mr', '1', '--yes']);

  // Project settings.
  step('Pull mirroring: credentials in the URL are never shown', ['mirror', 'pull', 'set', '--project', 'acme/api', '--url', 'https://u:pw@src.example.com/x.git', '--enabled', '--yes']);
  step('', ['mirror', 'pull', 'get', '--project', 'acme/api', '-o', 'json']);
  step('Badges, with placeholders rendered (group badges included)', ['badges', 'list', '--project', 'acme/api']);
  step('Protect release tags', ['protected-tags', 'protect', '--project', 'acme/api', '--name', 'v*', '--create-access-level', 'maintainer']);
  step('Protected branches: nobody pushes to hotfix/*, maintainers merge', ['protected-branches', 'protect', '--project', 'acme/api', '--name', 'hotfix/*', '--push-access-level', 'no-access', '--merge-access-level', 'maintainer', '--fields', 'id,name']);
  step('', ['protected-branches', 'list', '--project', 'acme/api']);
  step('Members of a project, and who may do what', ['members', 'list', '--project', 'acme/api']);

  // Repositories.
  step('The repository tree (keyset pages, followed for you)', ['repo', 'tree', '--project', 'acme/api', '--recursive', '--all']);
  const site = join(work, 'site');
  mkdirSync(join(site, 'img'), { recursive: true });
  for (let i = 1; i <= 20; i++) writeFileSync(join(site, `page${i}.md`), `# Page ${i}\n`);
  writeFileSync(join(site, 'img', 'logo.bin'), Buffer.from([0, 1, 2, 3, 255]));
  step('Commit a local folder in one commit (binary files as base64)', ['commits', 'create', '--project', 'acme/api', '--branch', 'feature', '-m', 'Publish the site', '--from-dir', site, '--to', 'site/', '--fields', 'short_id,title,stats.total']);
  writeFileSync(join(site, 'page3.md'), '# Page 3, revised\n');
  step('Run it again after changing one file: only that file is sent', ['commits', 'create', '--project', 'acme/api', '--branch', 'feature', '-m', 'Revise page 3', '--from-dir', site, '--to', 'site/', '--fields', 'short_id,title,stats.total']);
  step('And again: unchanged files are recognised by their git blob id, so nothing to commit (exit 0)', ['commits', 'create', '--project', 'acme/api', '--branch', 'feature', '-m', 'Nothing', '--from-dir', site, '--to', 'site/']);
  step('The branch\'s latest commits', ['commits', 'list', '--ref', 'feature', '--project', 'acme/api', '--limit', '3']);
  step('What a release changed, as a patch git apply accepts', ['repo', 'compare', 'v1.0.0', 'v1.1.0', '--project', 'acme/api', '--patch']);
  step('A verified download: size and sha256 checked against what the service announces', ['files', 'raw', 'README.md', '--ref', 'main', '--project', 'acme/api', '-O', join(work, 'README.md')]);
  step('The repository as a zip, extracted safely into a new folder', ['repo', 'archive', '--project', 'acme/api', '--format', 'zip', '--extract', join(work, 'api')]);

  // Webhooks and job artifacts.
  const receiver = await startReceiver(join(work, 'deliveries.ndjson'));
  try {
    const hook = step('A webhook whose secret comes from stdin (never an argument)', ['hooks', 'create', '--project', 'acme/api', '--url', `${receiver.url}/hook`, '--events', 'push', '--token-stdin', '-o', 'json', '--fields', 'id,url,push_events,alert_status'], {
      capture: true,
      input: 'demo-webhook-secret\n',
      show: `printf '%s\\n' "$SECRET" | forgectl hooks create --project acme/api --url ${receiver.url}/hook --events push --token-stdin`,
    });
    writeFileSync(join(work, 'CHANGELOG.md'), '# Changes\n\n- the tour was here\n');
    step('A push: the sandbox delivers it to the receiver', ['commits', 'create', '--project', 'acme/api', '--branch', 'main', '-m', 'Add the changelog', '--add', `${join(work, 'CHANGELOG.md')}:CHANGELOG.md`, '--fields', 'short_id,title']);
    await fetch(`${sandboxEnv.FORGECTL_URL}/-/sandbox/deliveries`);
    for (const delivery of receiver.deliveries()) {
      console.log(`(the receiver got ${delivery.method} ${delivery.path}: ${delivery.event}, secret ${delivery.token === 'demo-webhook-secret' ? 'correct' : 'WRONG'}, ${delivery.commits} commit(s) to ${delivery.ref})`);
    }
    const hookId = String(JSON.parse(hook.stdout).id);
    step('Its status and its delivery history', ['hooks', 'list', '--project', 'acme/api']);
    step('', ['hooks', 'events', hookId, '--project', 'acme/api']);
  } finally {
    receiver.stop();
  }
  step('Build artifacts of the latest successful pipeline of main: streamed, verified, extracted safely', ['artifacts', 'download', '--project', 'acme/api', '--ref', 'main', '--job-name', 'build', '--extract', join(work, 'artifacts')]);
  step('One file out of the artifacts, without the archive', ['artifacts', 'file', 'dist/VERSION', '--project', 'acme/api', '--ref', 'main', '--job-name', 'build'], { capture: true });
  step('Why a download is not found (report artifacts only: exit 5)', ['artifacts', 'download', '--project', 'acme/api', '--ref', 'main', '--job-name', 'test', '-O', join(work, 'test.zip')], { expect: 5 });

  step('Runners nobody has heard from in 30 days, and the command that deals with each (exit 9: some need attention)', ['runners', 'audit', '--instance', '--stale', '30d'], { expect: 9 });

  // Instance administration.
  step('Users, all pages (fetched concurrently), as NDJSON', ['users', 'list', '--all', '-o', 'ndjson', '--fields', 'id,username,state']);
  step('Instance settings: typed, previewed as current → new, confirmed', ['settings', 'set', 'signup_enabled=false', 'max_attachment_size=200', '--yes']);
  step('A value of the wrong type never reaches the server (exit 2)', ['settings', 'set', 'max_attachment_size=lots', '--yes'], { expect: 2 });
  const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const licenseKey = Buffer.from(JSON.stringify({ plan: 'premium', licensee: { Name: 'Demo', Email: 'demo@example.com', Company: 'Demo Inc' }, starts_at: day(0), expires_at: day(365), user_limit: 50 })).toString('base64');
  step('Add a license (the key from a file or stdin, never an argument)', ['license', 'add', '--file', '-'], { input: licenseKey, show: 'forgectl license add --file - < company.license' });
  step('', ['license', 'list']);
  step('Move every project off storage "default" (previewed and confirmed)', ['storage-move', 'schedule', '--type', 'project', '--from', 'default', '--to', 'storage2', '--yes']);
  step('', ['storage-move', 'list', '--type', 'project']);
  const alertKey = join(work, 'alert.key');
  writeFileSync(alertKey, sandboxEnv.FORGECTL_SANDBOX_ALERT_KEY ?? '', { mode: 0o600 });
  step('Send an alert to a project\'s alert endpoint (its key, never your token)', ['alerts', 'send', '--url', sandboxEnv.FORGECTL_SANDBOX_ALERT_URL, '--key-file', alertKey, '--title', 'disk full', '--severity', 'high', '-o', 'json']);

  console.log(`\n${bold('# AI assistants: the same commands as tools, read-only by default, no secret in a result')}`);
  await mcpRoundTrip('projects,ci', 'variables_list', { project: 'acme/api', fields: ['key', 'environment_scope', 'masked', 'value'] });
} finally {
  cleanUp();
}
if (failures) {
  console.log(`\n${failures} step(s) did not end as expected`);
  process.exit(1);
}
console.log(`\n${bold('Tour complete.')} Start your own sandbox with: forgectl sandbox`);
