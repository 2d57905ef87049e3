// Download benchmark (issue 12): 1 GiB served by a loopback server, `forgectl files raw … -O FILE` against
// `curl -o FILE`, side by side in one run. forgectl also hashes every byte (sha256, checked against the header the
// server sends) and fsyncs before renaming; curl does neither. Goal: at least 0.9x curl's throughput and under
// 100 MiB peak memory (RSS). Runs alternate; medians are reported. The server runs in its own process.
// Run: npm run bench:download   (RUNS=3 SIZE_MIB=1024 to change the defaults)
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RUNS = Number(process.env.RUNS ?? 3);
const SIZE_MIB = Number(process.env.SIZE_MIB ?? 1024);
const bin = new URL('../bin/forgectl.cjs', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'forgectl-bench-download-'));

// The server: SIZE_MIB copies of one random MiB, with Content-Length and the file headers the service sends.
const block = randomBytes(1 << 20);
const hash = createHash('sha256');
for (let i = 0; i < SIZE_MIB; i++) hash.update(block);
const sha256 = hash.digest('hex');
writeFileSync(join(work, 'block'), block);
const serverSource = `
  const http = require('node:http');
  const block = require('node:fs').readFileSync(${JSON.stringify(join(work, 'block'))});
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(${SIZE_MIB} * block.length),
      'X-Gitlab-Size': String(${SIZE_MIB} * block.length), 'X-Gitlab-Content-Sha256': ${JSON.stringify(sha256)} });
    let sent = 0;
    const pump = () => { while (sent < ${SIZE_MIB}) { sent++; if (!res.write(block)) return res.once('drain', pump); } res.end(); };
    pump();
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));`;
const server = spawn(process.execPath, ['-e', serverSource], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise((resolve) => server.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
const url = `http://127.0.0.1:${port}/api/v4/projects/1/repository/files/big.bin/raw?ref=main`;

const hasTime = existsSync('/usr/bin/time');
/** Runs a command, returning its wall time and peak RSS (GNU time's %M, else the highest VmHWM seen in /proc). */
function measure(command, args, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = hasTime
      ? spawn('/usr/bin/time', ['-f', '%M', '-o', join(work, 'rss'), command, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] })
      : spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
    let peakKiB = 0;
    const poll = hasTime ? undefined : setInterval(() => {
      try {
        peakKiB = Math.max(peakKiB, Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0));
      } catch { /* exited */ }
    }, 20);
    child.on('error', reject);
    child.on('close', (code) => {
      if (poll) clearInterval(poll);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (hasTime) peakKiB = Number(readFileSync(join(work, 'rss'), 'utf8').trim().split('\n').pop());
      if (code !== 0) return reject(new Error(`${command} exited with ${code}`));
      resolve({ seconds, peakMiB: peakKiB / 1024 });
    });
  });
}

const forgectlEnv = { FORGECTL_URL: `http://127.0.0.1:${port}`, FORGECTL_TOKEN: 'bench-token', FORGECTL_CONFIG_DIR: work };
const results = { forgectl: [], curl: [], 'curl+sync': [] };
for (let run = 0; run < RUNS; run++) {
  const target = join(work, 'out.bin');
  for (const side of run % 2 ? ['curl+sync', 'curl', 'forgectl'] : ['forgectl', 'curl', 'curl+sync']) {
    rmSync(target, { force: true });
    const r = side === 'curl'
      ? await measure('curl', ['-s', '-f', '-o', target, '-H', 'PRIVATE-TOKEN: bench-token', url])
      : side === 'curl+sync'
        ? await measure('sh', ['-c', `curl -s -f -o '${target}' -H 'PRIVATE-TOKEN: bench-token' '${url}' && sync '${target}'`])
        : await measure(process.execPath, [bin, '-q', 'files', 'raw', 'big.bin', '--project', '1', '--ref', 'main', '-O', target, '-o', 'json', '--yes'], forgectlEnv);
    results[side].push(r);
  }
}
server.kill();
rmSync(work, { recursive: true, force: true });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mib = SIZE_MIB;
const rate = (side) => median(results[side].map((r) => mib / r.seconds));
const rss = (side) => Math.max(...results[side].map((r) => r.peakMiB));
const ratio = rate('forgectl') / rate('curl');
const syncedRatio = rate('forgectl') / rate('curl+sync');
console.log(`${SIZE_MIB} MiB over loopback, ${RUNS} runs each, medians (Node ${process.version}; curl ${execFileSync('curl', ['--version']).toString().split(' ')[1]})`);
console.log(`forgectl files raw -O: ${rate('forgectl').toFixed(0)} MiB/s, peak RSS ${rss('forgectl').toFixed(0)} MiB (sha256 verified, fsynced)`);
console.log(`curl -o:               ${rate('curl').toFixed(0)} MiB/s, peak RSS ${rss('curl').toFixed(0)} MiB`);
console.log(`curl -o, then sync FILE: ${rate('curl+sync').toFixed(0)} MiB/s (the same durability as forgectl's fsync)`);
console.log(`throughput ratio: ${ratio.toFixed(2)}x curl -o, ${syncedRatio.toFixed(2)}x curl -o + sync (goal >= 0.9x); forgectl peak RSS ${rss('forgectl') < 100 ? 'under' : 'OVER'} 100 MiB`);
