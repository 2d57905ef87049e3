// Start-up benchmark: what one short forgectl run costs over bare Node. Commands that send no request are compared
// with `node -e 0`; commands that send one are compared with a minimal node:http script doing the same GET and
// printing the JSON (the floor for one request from Node), one command per family of commands. Every round runs
// the baselines and each command once, interleaved, so machine noise hits both sides of a pair alike; reported are
// the medians of the pairwise CPU (user + system) and wall ratios. CPU ratios are the robust figure on a busy
// machine. Goals: `<any group> --help` at most 1.2x `node -e 0`, `api /user` at most 1.3x the node:http script
// (the CommonJS one; the ES module's ratio is printed beside it).
// Run: npm run bench:startup   (RUNS=20 to change the default; FORGECTL_BIN=path/to/bin/forgectl.cjs measures another build)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandboxProcess } from './sandbox.mjs';

const RUNS = Number(process.env.RUNS ?? 20);
const bin = process.env.FORGECTL_BIN ?? new URL('../bin/forgectl.cjs', import.meta.url).pathname;
/** The sandbox is always this checkout's: FORGECTL_BIN changes the CLI measured, not the server it talks to. */
const sandboxBin = new URL('../bin/forgectl.cjs', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'forgectl-bench-'));

/**
 * CPU and wall time of one run, measured by bash around it (`times` reports the CPU of the finished child to the
 * millisecond, $EPOCHREALTIME the wall clock): the same for every command measured.
 */
function time(argv, env) {
  const script = 'start=$EPOCHREALTIME; "$@" >/dev/null 2>/dev/null; status=$?; end=$EPOCHREALTIME; times; echo "$status $start $end"';
  const child = spawnSync('bash', ['-c', script, 'bash', process.execPath, ...argv], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'], // stdin from /dev/null: a pipe there costs Node's start-up 3x its CPU
  });
  const lines = child.stdout.trim().split('\n');
  const [status, start, end] = lines.pop().split(' ');
  if (status !== '0') throw new Error(`${argv.join(' ')} exited with ${status}`);
  const seconds = (text) => {
    const match = /(\d+)m([\d.]+)s/.exec(text);
    return Number(match[1]) * 60 + Number(match[2]);
  };
  const [user, system] = lines.pop().split(' ').map(seconds);
  return { cpu: (user + system) * 1000, wall: (Number(end) - Number(start)) * 1000 };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const { process: sandbox, env: sandboxEnv } = await startSandboxProcess(sandboxBin);
// The same GET as an ES module and as a CommonJS script: on Node 22 and 24 the ES module loader alone costs about
// 25 ms of CPU more than CommonJS (on Node 20 about 3 ms), so the CommonJS script is the bare GET on every Node.
const getSource = `http.get(process.env.FORGECTL_URL + '/api/v4/user', { headers: { 'PRIVATE-TOKEN': process.env.FORGECTL_TOKEN } }, (res) => {
  let body = '';
  res.on('data', (c) => (body += c));
  res.on('end', () => console.log(JSON.stringify(JSON.parse(body), null, 2)));
});
`;
const getModule = join(work, 'get-user.mjs');
writeFileSync(getModule, `import http from 'node:http';\n${getSource}`);
const getScript = join(work, 'get-user.cjs');
writeFileSync(getScript, `const http = require('node:http');\n${getSource}`);
// The code cache in a folder of this run's own: another build run meanwhile (another checkout) cannot remove it.
const env = { FORGECTL_URL: sandboxEnv.FORGECTL_URL, FORGECTL_TOKEN: sandboxEnv.FORGECTL_TOKEN, FORGECTL_CONFIG_DIR: work, XDG_CACHE_HOME: join(work, 'cache') };

const local = { name: 'node -e 0', argv: ['-e', '0'] };
const network = { name: 'node:http GET (CommonJS script)', argv: [getScript] };
const networkModule = { name: 'node:http GET (ES module)', argv: [getModule] };
const cases = [
  { argv: ['--version'], baseline: local },
  { argv: ['--help'], baseline: local },
  { argv: ['users', '--help'], baseline: local },
  { argv: ['tokens', '--help'], baseline: local },
  { argv: ['freeze-periods', 'create', '--help'], baseline: local },
  { argv: ['api', '/user'], baseline: network },
  { argv: ['users', 'get', '1'], baseline: network },
  { argv: ['auth', 'status'], baseline: network },
  { argv: ['projects', 'list'], baseline: network },
  { argv: ['tokens', 'list', '--personal', '-o', 'json'], baseline: network },
  { argv: ['settings', 'get', '-o', 'yaml'], baseline: network },
  { argv: ['freeze-periods', 'list', '--project', 'acme/api'], baseline: network },
  { argv: ['commits', 'list', '--project', 'acme/api'], baseline: network },
  { argv: ['files', 'raw', 'README.md', '--project', 'acme/api', '--ref', 'main'], baseline: network },
];

try {
  console.log(`node ${process.version}, ${RUNS} interleaved rounds; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (const c of cases) time([bin, ...c.argv], env); // a first run writes the code cache
  const samples = new Map([local, network, networkModule, ...cases].map((c) => [c, []]));
  for (let round = 0; round < RUNS; round++) {
    const base = Object.fromEntries([local, network, networkModule].map((b) => [b.name, time(b.argv, env)]));
    for (const b of [local, network, networkModule]) samples.get(b).push(base[b.name]);
    for (const c of cases) samples.get(c).push({ ...time([bin, ...c.argv], env), base: base[c.baseline.name], module: base[networkModule.name] });
  }
  for (const b of [local, network, networkModule]) {
    const s = samples.get(b);
    console.log(`${b.name.padEnd(52)} ${median(s.map((x) => x.cpu)).toFixed(0).padStart(4)} ms CPU ${median(s.map((x) => x.wall)).toFixed(0).padStart(4)} ms wall`);
  }
  for (const c of cases) {
    const s = samples.get(c);
    const cpuRatio = median(s.map((x) => x.cpu / x.base.cpu));
    const wallRatio = median(s.map((x) => x.wall / x.base.wall));
    console.log(
      `forgectl ${c.argv.join(' ')}`.slice(0, 52).padEnd(52) +
        ` ${median(s.map((x) => x.cpu)).toFixed(0).padStart(4)} ms CPU ${median(s.map((x) => x.wall)).toFixed(0).padStart(4)} ms wall   ` +
        `${cpuRatio.toFixed(2)}x CPU ${wallRatio.toFixed(2)}x wall vs ${c.baseline.name}` +
        (c.baseline === network ? ` (${median(s.map((x) => x.cpu / x.module.cpu)).toFixed(2)}x CPU vs the ES module)` : ''),
    );
  }
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  sandbox.kill();
  rmSync(work, { recursive: true, force: true });
}
