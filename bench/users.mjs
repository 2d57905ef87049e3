// Users benchmark (issue 4): `forgectl users list --all -o ndjson` over 20,000 users of a sandbox answering every
// request after 20 ms, against a sequential page-by-page baseline at per_page=100 (how python-gitlab's CLI pages:
// one request after another, following the next page). Goal: at most 0.25x the baseline's wall time and under
// 150 MiB peak memory (RSS) for the CLI. Runs are interleaved pairwise; medians are reported.
// Run: npm run bench:users   (RUNS=5 USERS=20000 LATENCY=20 to change the defaults)
import { spawn } from 'node:child_process';
import { writeFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandboxProcess } from './sandbox.mjs';

const RUNS = Number(process.env.RUNS ?? 3);
const USERS = Number(process.env.USERS ?? 20_000);
const LATENCY = Number(process.env.LATENCY ?? 20);
const bin = new URL('../bin/forgectl.cjs', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'forgectl-bench-users-'));

// Its stderr is not shown: it logs the speculative page requests --all leaves in flight when the CLI exits.
const { process: sandbox, env } = await startSandboxProcess(bin, ['--users', String(USERS), '--latency', String(LATENCY)]);

/** The baseline: page after page, each request sent when the previous one has been read, records printed as NDJSON. */
function baseline() {
  const agent = new http.Agent({ keepAlive: true });
  const get = (page) =>
    new Promise((resolve, reject) => {
      const url = `${env.FORGECTL_URL}/api/v4/users?per_page=100&page=${page}`;
      http.get(url, { agent, headers: { 'PRIVATE-TOKEN': env.FORGECTL_TOKEN } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ next: res.headers['x-next-page'], users: JSON.parse(body) }));
      }).on('error', reject);
    });
  return async () => {
    const start = process.hrtime.bigint();
    let count = 0;
    let bytes = 0;
    for (let page = 1; page; ) {
      const { next, users } = await get(page);
      for (const user of users) bytes += JSON.stringify(user).length + 1;
      count += users.length;
      page = next ? Number(next) : 0;
    }
    agent.destroy();
    return { ms: Number(process.hrtime.bigint() - start) / 1e6, count, bytes };
  };
}

// Peak memory of the CLI process: a preload reports process.resourceUsage().maxRSS (KiB) when it exits.
const rssFile = join(work, 'rss.txt');
const preload = join(work, 'rss.cjs');
writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)));\n`);

function forgectl() {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--require', preload, bin, 'users', 'list', '--all', '-o', 'ndjson'], {
      env: { PATH: process.env.PATH, FORGECTL_URL: env.FORGECTL_URL, FORGECTL_TOKEN: env.FORGECTL_TOKEN, FORGECTL_CONFIG_DIR: work },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let count = 0;
    let bytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 10) count++;
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 0) return reject(new Error(`forgectl exited with ${code}: ${stderr}`));
      resolve({ ms, count, bytes, rssMiB: Number(readFileSync(rssFile, 'utf8')) / 1024 });
    });
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

try {
  console.log(`node ${process.version}; sandbox with ${USERS.toLocaleString('en-US')} extra users, ${LATENCY} ms latency; ${RUNS} interleaved runs`);
  const runBaseline = baseline();
  const ours = [];
  const base = [];
  for (let i = 0; i < RUNS; i++) {
    const b = await runBaseline();
    const o = await forgectl();
    if (o.count !== b.count) throw new Error(`forgectl printed ${o.count} users, the baseline fetched ${b.count}`);
    base.push(b);
    ours.push(o);
    console.log(`run ${i + 1}: forgectl ${o.ms.toFixed(0)} ms (${o.count} users, peak RSS ${o.rssMiB.toFixed(1)} MiB)   baseline ${b.ms.toFixed(0)} ms   ratio ${(o.ms / b.ms).toFixed(3)}x`);
  }
  const oursMs = median(ours.map((r) => r.ms));
  const baseMs = median(base.map((r) => r.ms));
  const ratio = median(ours.map((r, i) => r.ms / base[i].ms));
  const rss = Math.max(...ours.map((r) => r.rssMiB));
  console.log(`\nusers list --all -o ndjson (${ours[0].count.toLocaleString('en-US')} users)`);
  console.log(`  forgectl  median ${oursMs.toFixed(0)} ms, peak RSS ${rss.toFixed(1)} MiB (goal < 150 MiB: ${rss < 150 ? 'met' : 'MISSED'})`);
  console.log(`  baseline  median ${baseMs.toFixed(0)} ms (sequential, per_page=100)`);
  console.log(`  ratio     median ${ratio.toFixed(3)}x (goal <= 0.25x: ${ratio <= 0.25 ? 'met' : 'MISSED'})`);
} finally {
  sandbox.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
