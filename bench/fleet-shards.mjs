// Sharded fleet benchmark (issue 25): `forgectl sandbox --fleet 10000` answering every request after LATENCY ms, and
// `plan` of a desired state that changes the push rule of every project (one read per project after the listing):
// one process against SHARDS processes started together (`--shard I/N`), each at --concurrency CONCURRENCY. For
// each mode: wall time, requests the sandbox received, 429s, the request floor (requests × latency / total
// concurrency), and whether `plan merge` of the shards' plans equals the single plan exactly (changes and summary).
// Then the same under a shared throttle (`--rate-limit RATE/PERIOD` on the sandbox, which sends RateLimit headers):
// 429s received and unhonoured (a request from the CLI during a Retry-After, beyond those already in flight).
// Run: npm run bench:fleet-shards   (PROJECTS=10000 LATENCY=20 CONCURRENCY=16 SHARDS=4,8 RATE=1500 PERIOD=5)
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runForgectl, startSandboxProcess } from './sandbox.mjs';

const PROJECTS = Number(process.env.PROJECTS ?? 10_000);
const LATENCY = Number(process.env.LATENCY ?? 20);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const SHARDS = (process.env.SHARDS ?? '4,8').split(',').map(Number);
const RATE = Number(process.env.RATE ?? 1500);
const PERIOD = Number(process.env.PERIOD ?? 5);
const bin = new URL('../bin/forgectl.cjs', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'forgectl-bench-shards-'));
const desired = join(work, 'fleet.yaml');
writeFileSync(desired, 'version: 1\ntarget: acme/**\nprojects:\n  "*":\n    push_rule: {max_file_size: 20, deny_delete_tag: true}\n');

const forgectl = (env, args) => runForgectl(bin, env, work, args);

const control = async (box, method = 'GET') => (await fetch(`${box.env.FORGECTL_URL}/-/sandbox/requests`, { method })).json().catch(() => undefined);
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const load = () => loadavg()[0].toFixed(1);

/** Runs `n` shards of plan together (n = 0: one process without --shard); returns the wall time and the plans. */
async function planRun(box, n, extra = []) {
  await control(box, 'DELETE');
  const outs = n ? Array.from({ length: n }, (_, i) => join(work, `plan-${n}-${i + 1}.json`)) : [join(work, 'plan-whole.json')];
  const started = performance.now();
  const results = await Promise.all(outs.map((out, i) => forgectl(box.env, ['plan', '-f', desired, '--concurrency', String(CONCURRENCY), '--out', out, ...(n ? ['--shard', `${i + 1}/${n}`] : []), ...extra])));
  const ms = performance.now() - started;
  for (const result of results) if (result.code !== 9) throw new Error(`plan exited ${result.code}:\n${result.stderr.slice(-2000)}`);
  const log = (await control(box)).map((entry) => ({ ...entry, ms: Date.parse(entry.at) }));
  return { ms, outs, log, results };
}

function unhonoured(log) {
  const limited = log.filter((entry) => entry.status === 429);
  return limited.filter((hit) => log.some((entry) => entry.ms > hit.ms + 250 && entry.ms < hit.ms + (hit.retry_after - 1) * 1000)).length;
}

async function mode(box, label, n, single) {
  const run = await planRun(box, n);
  const requests = run.log.filter((entry) => entry.path.startsWith('/api/v4')).length;
  const limited = run.log.filter((entry) => entry.status === 429).length;
  const floor = (requests * LATENCY) / (CONCURRENCY * Math.max(1, n));
  let same = 'the single plan';
  if (n) {
    const merged = join(work, `merged-${n}.json`);
    const merge = await forgectl(box.env, ['plan', 'merge', ...run.outs, '--out', merged]);
    if (merge.code !== 9) throw new Error(`plan merge exited ${merge.code}: ${merge.stderr}`);
    const a = JSON.parse(readFileSync(merged, 'utf8'));
    const b = JSON.parse(readFileSync(single.outs[0], 'utf8'));
    same = JSON.stringify(a.changes) === JSON.stringify(b.changes) && JSON.stringify(a.summary) === JSON.stringify(b.summary) ? 'merged plan equals the single plan' : 'MERGED PLAN DIFFERS';
    if (!same.startsWith('merged plan equals')) process.exitCode = 1;
  }
  console.log(`${label.padEnd(28)} ${seconds(run.ms).padStart(7)}  ${String(requests).padStart(6)} requests  floor ${seconds(floor).padStart(6)}  ${limited} × 429 (${unhonoured(run.log)} unhonoured)  ${same}  [load ${load()}]`);
  return run;
}

console.log(`${PROJECTS} projects, ${LATENCY} ms per answer, --concurrency ${CONCURRENCY} per process; plan touching every project\n`);
const box = await startSandboxProcess(bin, ['--fleet', String(PROJECTS), '--latency', String(LATENCY)]);
try {
  const single = await mode(box, 'one process', 0);
  for (const n of SHARDS) await mode(box, `${n} shards together`, n, single);
} finally {
  box.process.kill();
}

console.log(`\nunder a shared throttle: ${RATE} requests per ${PERIOD} s on the sandbox (RateLimit headers, 429 with Retry-After beyond)\n`);
const throttled = await startSandboxProcess(bin, ['--fleet', String(PROJECTS), '--latency', String(LATENCY), '--rate-limit', `${RATE}/${PERIOD}`]);
try {
  const single = await mode(throttled, 'one process', 0);
  for (const n of SHARDS) await mode(throttled, `${n} shards together`, n, single);
  const n = SHARDS[0];
  const rate = Math.floor(RATE * 0.9);
  const run = await planRun(throttled, n, ['--rate-limit', `${rate}/${PERIOD}`]);
  const requests = run.log.filter((entry) => entry.path.startsWith('/api/v4')).length;
  console.log(`${`${n} shards, --rate-limit ${rate}/${PERIOD}`.padEnd(28)} ${seconds(run.ms).padStart(7)}  ${String(requests).padStart(6)} requests  ${run.log.filter((e) => e.status === 429).length} × 429 (${unhonoured(run.log)} unhonoured)  [load ${load()}]`);
} finally {
  throttled.process.kill();
}
