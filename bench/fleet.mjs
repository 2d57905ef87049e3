// Fleet benchmark (issue 15): a desired state that sets a push rule, two protected tags, a badge and a webhook with a
// secret from the environment on "*", applied to every project of `forgectl sandbox --fleet 500` (acme and 500
// projects in nested subgroups), with --concurrency 16 against the same work one project at a time. Each mode gets a
// fresh sandbox answering every request after LATENCY ms, and is timed for plan (reads only) and apply; a plan after
// the apply must show no changes.
//
// Then the rate limit: the same apply against a sandbox that throttles (RATE requests per PERIOD seconds, 429 with
// Retry-After beyond it) and injects application 429s with Retry-After; the sandbox's request log is checked so that
// no 429 went unhonoured (no request from the CLI during a Retry-After, beyond those already in flight).
// Run: npm run bench:fleet   (PROJECTS=500 LATENCY=20 CONCURRENCY=16 RATE=600 PERIOD=5 to change the defaults)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runForgectl, startSandboxProcess } from './sandbox.mjs';

const PROJECTS = Number(process.env.PROJECTS ?? 500);
const LATENCY = Number(process.env.LATENCY ?? 20);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const RATE = Number(process.env.RATE ?? 600);
const PERIOD = Number(process.env.PERIOD ?? 5);
const SECRET = 'bench-hook-secret-5b0e1f';
const bin = new URL('../bin/forgectl.cjs', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'forgectl-bench-fleet-'));
const desired = join(work, 'fleet.yaml');
writeFileSync(desired, `version: 1
target: acme/**
projects:
  "*":
    push_rule: {max_file_size: 20, deny_delete_tag: true, commit_message_regex: "^(feat|fix|docs|chore)(\\\\(.+\\\\))?: "}
    protected_tags:
      - {name: "v*", create_access_level: maintainer}
      - {name: "release-*", create_access_level: developer}
    badges:
      - {name: pipeline, link_url: "https://ci.example.com/%{project_path}", image_url: "https://ci.example.com/%{project_path}/badge.svg"}
    hooks:
      - {url: "https://hooks.example.com/ci", events: [push, merge_requests, pipeline], token: {env: CI_HOOK_TOKEN}}
`);

const forgectl = (env, args) => runForgectl(bin, env, work, args, { CI_HOOK_TOKEN: SECRET });

async function sandbox(args) {
  const started = await startSandboxProcess(bin, ['--fleet', String(PROJECTS), '--latency', String(LATENCY), ...args]);
  return { ...started, stop: () => started.process.kill() };
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const check = (what, result, code) => {
  if (result.code !== code) throw new Error(`${what} exited ${result.code}, expected ${code}:\n${result.stderr.slice(-2000)}`);
  if (result.stdout.includes(SECRET) || result.stderr.includes(SECRET)) throw new Error(`${what} printed the secret`);
};

const rows = [];
for (const concurrency of [CONCURRENCY, 1]) {
  const box = await sandbox([]);
  try {
    const plan = await forgectl(box.env, ['plan', '-f', desired, '--concurrency', String(concurrency)]);
    check('plan', plan, 9);
    const apply = await forgectl(box.env, ['apply', '-f', desired, '--concurrency', String(concurrency), '--yes', '-o', 'ndjson']);
    check('apply', apply, 0);
    const after = await forgectl(box.env, ['plan', '-f', desired, '--concurrency', String(concurrency)]);
    check('plan after apply', after, 0);
    const objects = apply.stdout.trim().split('\n').length;
    rows.push({ concurrency, plan: plan.ms, apply: apply.ms, after: after.ms, objects });
    console.log(`concurrency ${String(concurrency).padStart(2)}: plan ${seconds(plan.ms)}, apply ${seconds(apply.ms)} (${objects} objects), plan after ${seconds(after.ms)}`);
  } finally {
    box.stop();
  }
}
const [fast, slow] = rows;
console.log(`\n${PROJECTS} projects + 2, ${LATENCY} ms per answer: apply at concurrency ${CONCURRENCY} takes ${seconds(fast.apply)} against ${seconds(slow.apply)} one project at a time (${(slow.apply / fast.apply).toFixed(1)}× faster); plan ${seconds(fast.plan)} against ${seconds(slow.plan)}.`);

// The rate limit: a throttle the run must stay within, and application 429s with Retry-After it must honour.
const box = await sandbox(['--rate-limit', `${RATE}/${PERIOD}`]);
try {
  const faults = [{ method: 'POST', path: 'badges$', status: 429, retry_after: 2, times: 3 }];
  for (const fault of faults) await fetch(`${box.env.FORGECTL_URL}/-/sandbox/faults`, { method: 'POST', body: JSON.stringify(fault) });
  const apply = await forgectl(box.env, ['apply', '-f', desired, '--concurrency', String(CONCURRENCY), '--yes', '-o', 'ndjson']);
  check('throttled apply', apply, 0);
  const log = (await (await fetch(`${box.env.FORGECTL_URL}/-/sandbox/requests`)).json()).map((entry) => ({ ...entry, ms: Date.parse(entry.at) }));
  const limited = log.filter((entry) => entry.status === 429);
  // A request that arrives during a Retry-After (after the 250 ms those already on the wire may take, and before the
  // last whole second the header rounds to) means the 429 went unhonoured.
  const unhonoured = limited.filter((hit) => log.some((entry) => entry.ms > hit.ms + 250 && entry.ms < hit.ms + (hit.retry_after - 1) * 1000));
  const windows = new Map();
  for (const entry of log.filter((e) => e.path.startsWith('/api/v4'))) windows.set(Math.floor(entry.ms / (PERIOD * 1000)), (windows.get(Math.floor(entry.ms / (PERIOD * 1000))) ?? 0) + 1);
  console.log(`\nthrottled at ${RATE} requests per ${PERIOD} s, 3 application 429s with Retry-After 2 injected: apply ${seconds(apply.ms)}, ${log.length} requests, ${limited.length} answered 429 (${limited.filter((e) => /badges/.test(e.path)).length} injected), ${unhonoured.length} unhonoured; busiest window ${Math.max(...windows.values())} requests.`);
  console.log(apply.stderr.trim().split('\n').filter((line) => /Applied|rate limit/.test(line)).join('\n'));
  if (unhonoured.length) process.exitCode = 1;
} finally {
  box.stop();
}
