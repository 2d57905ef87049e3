// Download benchmark: 1 GiB served by a loopback server, `forgectl files raw … -O FILE` against curl, side by side
// in one run. forgectl writes FILE.part, hashes every byte (sha256, checked against the header the server sends),
// fsyncs, and renames into place. The baselines: `curl -o FILE` alone (none of that: the raw floor), curl then
// `sync FILE` (durable, not verified), and curl with the same guarantees as a script gets them: `curl -o FILE.part`,
// `sha256sum -c`, `sync FILE.part`, `mv` (verified, durable, renamed). Goal: at least 0.9x the throughput of the
// baseline with the same guarantees, under 100 MiB peak memory (RSS). Runs alternate; medians are reported. The
// server runs in its own process.
// Run: npm run bench:download   (RUNS=3 SIZE_MIB=1024 to change the defaults; FORGECTL_BIN=path/to/bin/forgectl.cjs measures another build)
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const RUNS = Number(process.env.RUNS ?? 3);
const SIZE_MIB = Number(process.env.SIZE_MIB ?? 1024);
const bin = process.env.FORGECTL_BIN ?? new URL('../bin/forgectl.cjs', import.meta.url).pathname;
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
const results = { forgectl: [], curl: [], 'curl+sync': [], 'curl+verify+sync+mv': [] };
for (let run = 0; run < RUNS; run++) {
  const target = join(work, 'out.bin');
  const sides = Object.keys(results);
  for (const side of run % 2 ? sides.reverse() : sides) {
    rmSync(target, { force: true });
    const curl = `curl -s -f -H 'PRIVATE-TOKEN: bench-token' '${url}'`;
    const r = side === 'curl'
      ? await measure('curl', ['-s', '-f', '-o', target, '-H', 'PRIVATE-TOKEN: bench-token', url])
      : side === 'curl+sync'
        ? await measure('sh', ['-c', `${curl} -o '${target}' && sync '${target}'`])
        : side === 'curl+verify+sync+mv'
          ? await measure('sh', ['-c', `${curl} -o '${target}.part' && echo '${sha256}  ${target}.part' | sha256sum -c --quiet && sync '${target}.part' && mv '${target}.part' '${target}'`])
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
const ratio = (side) => median(results.forgectl.map((r, i) => results[side][i].seconds / r.seconds));
console.log(`${SIZE_MIB} MiB over loopback, ${RUNS} runs each, medians (Node ${process.version}; curl ${execFileSync('curl', ['--version']).toString().split(' ')[1]}); load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log(`forgectl files raw -O:                      ${rate('forgectl').toFixed(0)} MiB/s, peak RSS ${rss('forgectl').toFixed(0)} MiB (FILE.part, sha256 verified, fsynced, renamed)`);
console.log(`curl -o FILE:                               ${rate('curl').toFixed(0)} MiB/s, peak RSS ${rss('curl').toFixed(0)} MiB (not verified, not durable) -> forgectl ${ratio('curl').toFixed(2)}x`);
console.log(`curl -o FILE; sync FILE:                    ${rate('curl+sync').toFixed(0)} MiB/s (durable, not verified) -> forgectl ${ratio('curl+sync').toFixed(2)}x`);
console.log(`curl -o FILE.part; sha256sum -c; sync; mv:  ${rate('curl+verify+sync+mv').toFixed(0)} MiB/s (forgectl's guarantees) -> forgectl ${ratio('curl+verify+sync+mv').toFixed(2)}x (goal >= 0.9x)`);
console.log(`forgectl peak RSS ${rss('forgectl').toFixed(0)} MiB: ${rss('forgectl') < 100 ? 'under' : 'OVER'} 100 MiB`);
