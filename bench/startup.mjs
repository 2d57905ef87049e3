// Start-up benchmark (issue 2): forgectl --version vs bare `node -e 0`, and `forgectl api /user` vs a minimal
// node:http script doing the same GET and printing the JSON. Runs are interleaved pairwise and the median of the
// pairwise ratios is reported, so machine noise hits both sides alike. Run: npm run bench:startup
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RUNS = Number(process.env.RUNS ?? 30);
const bin = new URL('../bin/forgectl.cjs', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'forgectl-bench-'));

function time(argv, env = {}) {
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, argv, { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (child.status !== 0) throw new Error(`${argv.join(' ')} failed: ${child.stderr}`);
  return ms;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

function compare(name, ours, baseline) {
  const ratios = [];
  const a = [];
  const b = [];
  for (let i = 0; i < RUNS; i++) {
    const tb = baseline();
    const ta = ours();
    a.push(ta);
    b.push(tb);
    ratios.push(ta / tb);
  }
  console.log(`${name.padEnd(44)} forgectl ${median(a).toFixed(1)} ms   baseline ${median(b).toFixed(1)} ms   median ratio ${median(ratios).toFixed(2)}x`);
}

// The sandbox runs in a separate process so that it does not compete with the measured process for this one's loop.
const sandbox = spawn(process.execPath, [bin, 'sandbox', '--print-env'], { stdio: ['ignore', 'pipe', 'inherit'] });
const envText = await new Promise((resolve) => {
  let text = '';
  sandbox.stdout.on('data', (d) => {
    text += d;
    if (text.includes('FORGECTL_TOKEN')) resolve(text);
  });
});
const env = Object.fromEntries([...envText.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1], m[2].replace(/^'|'$/g, '')]));
const baselineScript = join(work, 'get-user.mjs');
writeFileSync(baselineScript, `import http from 'node:http';
http.get(process.env.FORGECTL_URL + '/api/v4/user', { headers: { 'PRIVATE-TOKEN': process.env.FORGECTL_TOKEN } }, (res) => {
  let body = '';
  res.on('data', (c) => (body += c));
  res.on('end', () => console.log(JSON.stringify(JSON.parse(body), null, 2)));
});
`);
const cliEnv = { ...env, FORGECTL_CONFIG_DIR: work };

console.log(`node ${process.version}, ${RUNS} interleaved runs each`);
compare('forgectl --version  vs  node -e 0', () => time([bin, '--version']), () => time(['-e', '0']));
compare('forgectl api /user  vs  node:http GET script', () => time([bin, 'api', '/user'], cliEnv), () => time([baselineScript], cliEnv));
sandbox.kill();
