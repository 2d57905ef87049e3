// Access report benchmark (issue 41): `forgectl access report --group acme --recursive` over the tree of
// `forgectl sandbox --fleet 2000 --latency 20` (acme, 40 team groups, 200 squad groups, 2,000 projects), at several
// concurrencies. Each run is checked (a row for every project, the effective levels of a sample of projects equal to
// the sandbox's /members/all) and set against the floor of what it must read: the pages of every list it reads (the
// members of each group and project, the tree, the projects), each answered after LATENCY ms, at CONCURRENCY at a time.
// Run: npm run bench:access   (PROJECTS=2000 LATENCY=20 CONCURRENCIES=16,8,4 to change the defaults)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runForgectl, startSandboxProcess } from './sandbox.mjs';

const PROJECTS = Number(process.env.PROJECTS ?? 2000);
const LATENCY = Number(process.env.LATENCY ?? 20);
const CONCURRENCIES = (process.env.CONCURRENCIES ?? '16,8,4').split(',').map(Number);
const bin = new URL('../bin/forgectl.cjs', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'forgectl-bench-access-'));

const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const box = await startSandboxProcess(bin, ['--fleet', String(PROJECTS), '--latency', String(LATENCY)]);
const sandboxUrl = box.env.FORGECTL_URL;
const api = async (path) => (await fetch(`${sandboxUrl}/api/v4${path}`, { headers: { 'PRIVATE-TOKEN': box.env.FORGECTL_TOKEN } })).json();
try {
  for (const concurrency of CONCURRENCIES) {
    await fetch(`${sandboxUrl}/-/sandbox/requests`, { method: 'DELETE' });
    const run = await runForgectl(bin, box.env, work, ['access', 'report', '--group', 'acme', '--recursive', '--concurrency', String(concurrency), '-o', 'ndjson']);
    if (run.code !== 0) throw new Error(`access report exited ${run.code}:\n${run.stderr.slice(-2000)}`);
    const log = (await (await fetch(`${sandboxUrl}/-/sandbox/requests`)).json()).filter((entry) => entry.path.startsWith('/api/v4'));
    const rows = run.stdout.trim().split('\n').map((line) => JSON.parse(line));
    const projects = new Set(rows.filter((row) => row.place_type === 'project').map((row) => row.place));
    if (projects.size !== PROJECTS + 2) throw new Error(`rows for ${projects.size} projects, expected ${PROJECTS + 2}`);
    // A sample of projects: the report's effective levels are those the service answers.
    for (const path of [...projects].filter((_, i) => i % 250 === 0)) {
      const all = await api(`/projects/${encodeURIComponent(path)}/members/all?per_page=100`);
      const mine = Object.fromEntries(rows.filter((row) => row.place === path && row.effective).map((row) => [row.user, row.access_level]));
      const theirs = Object.fromEntries(all.map((member) => [member.username, member.access_level]));
      if (JSON.stringify(Object.entries(mine).sort()) !== JSON.stringify(Object.entries(theirs).sort())) throw new Error(`${path}: ${JSON.stringify(mine)} against /members/all ${JSON.stringify(theirs)}`);
    }
    // The floor: the list pages it must read (members of each place, the tree and the projects), LATENCY ms each, CONCURRENCY at once.
    const pages = log.filter((entry) => /\/members$|\/descendant_groups$|\/projects$/.test(entry.path.split('?')[0])).length;
    const floor = (pages * LATENCY) / concurrency;
    console.log(`concurrency ${String(concurrency).padStart(2)}: ${seconds(run.ms)} for ${rows.length.toLocaleString('en-US')} rows; ${log.length.toLocaleString('en-US')} requests (${pages.toLocaleString('en-US')} list pages, ${log.length - pages} reads of groups and users); floor ${seconds(floor)} (${(run.ms / floor).toFixed(2)}× the floor)`);
  }
} finally {
  box.process.kill();
}
