// Users benchmark: `forgectl users list --all -o ndjson` against the network floor, one curl process fetching the
// same pages 8 at a time (`curl --parallel --parallel-max 8`, every page URL known in advance, nothing parsed or
// written but the bytes). For each list size (1,000 / 10,000 / 20,000 / 50,000 extra users) and latency (0 and 20 ms per
// answer), runs alternate pairwise; reported: medians of the pairwise wall and CPU ratios, forgectl's peak RSS,
// and the requests forgectl sent past the last page. Needs curl and GNU time (/usr/bin/time).
// Goals: at most 2.0x the floor's wall time at latency 0 and 1.3x at 20 ms, peak RSS at most 100 MiB and flat in N
// (the 50,000-user run at most 20 MiB above the 1,000-user one), no request past the last page. A third side, the
// transport's own floor: a script fetching the same URLs 8 at a time with undici (forgectl's HTTP client) and a
// keep-alive Agent, each body read whole and dropped (what forgectl pays before looking at a byte).
// Run: npm run bench:users   (RUNS=3 SIZES=1000,10000,20000,50000 LATENCIES=0,20 to change the defaults; FORGECTL_BIN=path/to/bin/forgectl.cjs measures another build)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { startSandboxProcess } from './sandbox.mjs';

const RUNS = Number(process.env.RUNS ?? 3);
const SIZES = (process.env.SIZES ?? '1000,10000,20000,50000').split(',').map(Number);
const LATENCIES = (process.env.LATENCIES ?? '0,20').split(',').map(Number);
const CONCURRENCY = 8;
const bin = process.env.FORGECTL_BIN ?? new URL('../bin/forgectl.cjs', import.meta.url).pathname;
/** The sandbox is always this checkout's: FORGECTL_BIN changes the CLI measured, not the server it talks to. */
const sandboxBin = new URL('../bin/forgectl.cjs', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'forgectl-bench-users-'));
if (!existsSync('/usr/bin/time')) throw new Error('this benchmark needs GNU time (/usr/bin/time): apt-get install time');

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * The transport's floor: the page URLs (one a line, in a file) fetched 8 at a time over undici (this checkout's, as
 * forgectl bundles it) with a keep-alive Agent, bodies read whole and dropped; run with --liftoff-only, as the bin is.
 */
const undici = createRequire(import.meta.url).resolve('undici');
const undiciFloor = join(work, 'undici-floor.mjs');
writeFileSync(undiciFloor, `import { readFileSync } from 'node:fs';
import undici from ${JSON.stringify(undici)};
const urls = readFileSync(process.argv[2], 'utf8').trim().split('\\n');
const agent = new undici.Agent({ keepAliveTimeout: 10000 });
const get = async (url) => {
  const { origin, pathname, search } = new URL(url);
  const answer = await agent.request({ origin, path: pathname + search, method: 'GET', headers: { 'PRIVATE-TOKEN': process.env.FORGECTL_TOKEN }, headersTimeout: 30000, bodyTimeout: 30000 });
  const body = await answer.body.bytes();
  if (answer.statusCode !== 200) throw new Error(String(answer.statusCode));
  return body;
};
let next = 0;
await Promise.all(Array.from({ length: ${CONCURRENCY} }, async () => {
  while (next < urls.length) await get(urls[next++]);
}));
await agent.close();
`);

/** Runs a command with its stdout read here; returns wall and CPU seconds, peak RSS (MiB), stdout lines and bytes. */
function measure(command, args, env = {}) {
  return new Promise((resolve, reject) => {
    const out = join(work, 'time.txt');
    const started = process.hrtime.bigint();
    const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', out, command, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let lines = 0;
    let bytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 10) lines++;
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = Number(process.hrtime.bigint() - started) / 1e9;
      if (code !== 0) return reject(new Error(`${command} exited with ${code}: ${stderr}`));
      const [user, system, rssKiB] = readFileSync(out, 'utf8').trim().split('\n').pop().split(' ').map(Number);
      resolve({ wall, cpu: user + system, rssMiB: rssKiB / 1024, lines, bytes });
    });
  });
}

async function startSandbox(users, latency) {
  const { process: child, env } = await startSandboxProcess(sandboxBin, ['--users', String(users), '--latency', String(latency)]);
  return { child, url: env.FORGECTL_URL, token: env.FORGECTL_TOKEN };
}

async function get(sandbox, path) {
  const response = await fetch(`${sandbox.url}${path}`, { headers: { 'PRIVATE-TOKEN': sandbox.token } });
  return { headers: response.headers, body: await response.json() };
}

/**
 * Every page of the list, as URLs, and how many users it has: offset pages up to the service's offset limit
 * (50,000 records), then keyset pages, their cursors looked up here before anything is timed, as a client that
 * knew the list in advance would fetch them.
 */
async function listPages(sandbox, extraUsers) {
  const base = `${sandbox.url}/api/v4/users?per_page=100`;
  let page = Math.min(500, Math.max(1, Math.floor(extraUsers / 100)));
  let answer = await get(sandbox, `/api/v4/users?per_page=100&page=${page}`);
  while (answer.headers.get('x-next-page') && page < 500) answer = await get(sandbox, `/api/v4/users?per_page=100&page=${++page}`);
  const urls = Array.from({ length: page }, (_, i) => `${base}&page=${i + 1}`);
  let total = (page - 1) * 100 + answer.body.length;
  while (answer.body.length === 100 && (answer.headers.get('x-next-page') || answer.headers.get('link')?.includes('rel="next"'))) {
    const url = `${base}&pagination=keyset&order_by=id&sort=desc&id_after=${answer.body.at(-1).id}`;
    answer = await get(sandbox, url.slice(sandbox.url.length));
    if (!answer.body.length) break;
    urls.push(url);
    total += answer.body.length;
  }
  return { urls, total };
}

const rows = [];
console.log(`node ${process.version}; ${RUNS} interleaved runs per row; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
try {
  for (const size of SIZES) {
    for (const latency of LATENCIES) {
      const sandbox = await startSandbox(size, latency);
      try {
        const { urls, total: users } = await listPages(sandbox, size);
        const curlArgs = ['-s', '-f', '--parallel', '--parallel-max', String(CONCURRENCY), '-H', `PRIVATE-TOKEN: ${sandbox.token}`, ...urls];
        // The code cache in a folder of this run's own: another build run meanwhile cannot remove it.
        const cliEnv = { FORGECTL_URL: sandbox.url, FORGECTL_TOKEN: sandbox.token, FORGECTL_CONFIG_DIR: work, HOME: process.env.HOME, XDG_CACHE_HOME: join(work, 'cache') };
        const urlFile = join(work, 'urls.txt');
        writeFileSync(urlFile, urls.join('\n'));
        const ours = [];
        const floor = [];
        const undiciSide = [];
        const past = [];
        for (let run = 0; run < RUNS; run++) {
          await fetch(`${sandbox.url}/-/sandbox/requests`, { method: 'DELETE' });
          const o = await measure(process.execPath, [bin, 'users', 'list', '--all', '-o', 'ndjson'], cliEnv);
          const log = await (await fetch(`${sandbox.url}/-/sandbox/requests`)).json();
          past.push(log.filter((r) => r.path.startsWith('/api/v4/users')).length - urls.length);
          const f = await measure('curl', curlArgs);
          undiciSide.push(await measure(process.execPath, ['--liftoff-only', undiciFloor, urlFile], { FORGECTL_TOKEN: sandbox.token }));
          if (o.lines !== users) throw new Error(`forgectl printed ${o.lines} users of ${users}`);
          ours.push(o);
          floor.push(f);
        }
        const row = {
          users,
          latency,
          pages: urls.length,
          oursWall: median(ours.map((r) => r.wall)),
          floorWall: median(floor.map((r) => r.wall)),
          wallRatio: median(ours.map((r, i) => r.wall / floor[i].wall)),
          oursCpu: median(ours.map((r) => r.cpu)),
          floorCpu: median(floor.map((r) => r.cpu)),
          cpuRatio: median(ours.map((r, i) => r.cpu / Math.max(floor[i].cpu, 0.01))),
          undiciWall: median(undiciSide.map((r) => r.wall)),
          undiciCpu: median(undiciSide.map((r) => r.cpu)),
          undiciWallRatio: median(ours.map((r, i) => r.wall / undiciSide[i].wall)),
          rss: Math.max(...ours.map((r) => r.rssMiB)),
          past: Math.max(...past),
        };
        rows.push(row);
        console.log(
          `${String(users).padStart(6)} users, ${String(latency).padStart(2)} ms: forgectl ${row.oursWall.toFixed(2)} s wall ${row.oursCpu.toFixed(2)} s CPU, ` +
            `peak RSS ${row.rss.toFixed(1)} MiB, ${row.past} request(s) past the last page | curl floor ${row.floorWall.toFixed(2)} s wall ${row.floorCpu.toFixed(2)} s CPU | ` +
            `ratio ${row.wallRatio.toFixed(2)}x wall, ${row.cpuRatio.toFixed(1)}x CPU | undici floor ${row.undiciWall.toFixed(2)} s wall ${row.undiciCpu.toFixed(2)} s CPU ` +
            `(forgectl ${row.undiciWallRatio.toFixed(2)}x its wall) | load ${loadavg()[0].toFixed(1)}`,
        );
      } finally {
        sandbox.child.kill('SIGTERM');
      }
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const worst = (pick) => Math.max(...rows.map(pick));
console.log(`\nload average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
for (const [latency, goal] of [[0, 2.0], [20, 1.3]]) {
  const at = rows.filter((r) => r.latency === latency);
  if (at.length) console.log(`wall ratio at latency ${latency}: ${at.map((r) => `${r.wallRatio.toFixed(2)}x (${r.users})`).join(', ')} (goal <= ${goal.toFixed(1)}x)`);
}
const spread = worst((r) => r.rss) - Math.min(...rows.map((r) => r.rss));
console.log(`peak RSS: ${rows.map((r) => `${r.rss.toFixed(0)} MiB (${r.users}, ${r.latency} ms)`).join(', ')} (goal <= 100 MiB: ${worst((r) => r.rss) <= 100 ? 'met' : 'MISSED'}; flat, at most 20 MiB apart: ${spread <= 20 ? 'met' : 'MISSED'})`);
console.log(`requests past the last page: at most ${worst((r) => r.past)} (goal 0)`);
