/**
 * The fault tier: the installed package, run as a process, against a sandbox process behind a loopback proxy that
 * damages downloads, with a full disk (a 1 MiB tmpfs where the machine lets us mount one; /dev/full everywhere),
 * redirect loops, cut connections, planted links and special files. Every case asserts the exit code, the message,
 * and what is on disk afterwards: under the final name either the complete verified object or nothing new.
 * With FORGECTL_FAULT_REPORT=FILE the table of every case (download kind × fault) is written there as Markdown.
 */
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, existsSync, openSync, writeSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { startFaultProxy, type Damage, type FaultProxy } from '../helpers/fault-proxy.js';
import { installFromCheckout, runProcess, startSandboxProcess, type ProcessResult } from './package.js';
import { needs, ptyRunner } from '../helpers/system.js';

const pty = ptyRunner();
const nodeDir = dirname(process.execPath);
let bin = '';
let remove = () => undefined as void;
let sandbox: { url: string; token: string; process: ReturnType<typeof spawn> } | undefined;
let proxy: FaultProxy;
let home = '';
let work = '';
/** A 1 MiB tmpfs, or why there is none (not root, no mount). */
let small: { dir: string } | { reason: string } = { reason: 'not tried' };

const BIG = Buffer.concat(Array.from({ length: 48 }, (_, i) => createHash('sha512').update(`big-${i}`).digest())).toString('hex').repeat(40); // ~245 KB of text
const BIG_BYTES = Buffer.from(BIG.repeat(10)); // ~2.4 MB

const env = (extra: NodeJS.ProcessEnv = {}, through: 'proxy' | 'direct' = 'proxy'): NodeJS.ProcessEnv => ({
  PATH: `${nodeDir}:${bin}:/usr/bin:/bin`,
  HOME: home,
  LANG: 'C.UTF-8',
  TMPDIR: join(work, 'tmp'),
  FORGECTL_CONFIG_DIR: home,
  FORGECTL_URL: through === 'proxy' ? proxy.url : sandbox!.url,
  FORGECTL_TOKEN: sandbox!.token,
  ...extra,
});
const forgectl = (args: string[], extra: NodeJS.ProcessEnv = {}): Promise<ProcessResult> => runProcess('forgectl', args, { env: env(extra), cwd: work, timeoutMs: 60_000 });
const shell = (line: string, extra: NodeJS.ProcessEnv = {}): Promise<ProcessResult> => runProcess('bash', ['-c', line], { env: env(extra), cwd: work, timeoutMs: 60_000 });
/** A request to the sandbox's fault control, on a connection of its own (never a kept-alive one the sandbox closed). */
const control = (method: string, body?: unknown): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = request(`${sandbox!.url}/-/sandbox/faults`, { method, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
const fault = async (body: Record<string, unknown>) => expect(await control('POST', body)).toBe(201);
const clearFaults = () => control('DELETE');

beforeAll(async () => {
  ({ bin, remove } = await installFromCheckout());
  home = tempDir('forgectl-faults-home-');
  work = tempDir('forgectl-faults-work-');
  mkdirSync(join(work, 'tmp'));
  sandbox = await startSandboxProcess([], { PATH: `${nodeDir}:${bin}:/usr/bin:/bin`, HOME: home });
  proxy = await startFaultProxy(sandbox.url);
  // A large file in the repository (and so in its archives), and a secure file.
  writeFileSync(join(work, 'big.txt'), BIG_BYTES);
  expect((await forgectl(['files', 'put', 'big.txt', '--project', 'acme/api', '--branch', 'main', '--content-file', 'big.txt', '-m', 'big'])).code).toBe(0);
  writeFileSync(join(work, 'keystore'), BIG_BYTES.subarray(0, 1_500_000));
  expect((await forgectl(['secure-files', 'upload', '--project', 'acme/api', '--file', 'keystore', '--name', 'release.keystore'])).code).toBe(0);
  rmSync(join(work, 'big.txt'));
  rmSync(join(work, 'keystore'));
  const dir = join(work, 'small');
  mkdirSync(dir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'ignore' });
    small = { dir };
  } catch {
    small = { reason: 'cannot mount a tmpfs here (needs root); the full-disk cases run against /dev/full only' };
  }
}, 300_000);

afterAll(async () => {
  if ('dir' in small) execFileSync('umount', [small.dir], { stdio: 'ignore' });
  await proxy?.close();
  sandbox?.process.kill('SIGTERM');
  for (const dir of [home, work]) if (dir) rmSync(dir, { recursive: true, force: true });
  if (process.env.FORGECTL_FAULT_REPORT) writeFileSync(process.env.FORGECTL_FAULT_REPORT, report());
  remove();
});

/** The download kinds: how to ask for one into a file, and what the service serves for it. */
const KINDS: Array<{ kind: string; argv: (out: string) => string[]; path: RegExp }> = [
  { kind: 'files raw', argv: (out) => ['files', 'raw', 'big.txt', '--project', 'acme/api', '-O', out], path: /files\/big\.txt\/raw/ },
  { kind: 'repo blob --raw', argv: (out) => ['repo', 'blob', blobId, '--raw', '--project', 'acme/api', '-O', out], path: /repository\/blobs\/.*\/raw/ },
  { kind: 'repo archive (tar.gz)', argv: (out) => ['repo', 'archive', '--project', 'acme/api', '-O', out], path: /repository\/archive\.tar\.gz/ },
  { kind: 'repo archive (zip)', argv: (out) => ['repo', 'archive', '--project', 'acme/api', '--format', 'zip', '-O', out], path: /repository\/archive\.zip/ },
  { kind: 'artifacts download', argv: (out) => ['artifacts', 'download', '--project', 'acme/api', '--ref', 'main', '--job-name', 'build', '-O', out], path: /jobs\/artifacts\/main\/download/ },
  { kind: 'secure-files download', argv: (out) => ['secure-files', 'download', secureId, '--project', 'acme/api', '--output-file', out], path: /secure_files\/\d+\/download/ },
];
let blobId = '';
let secureId = '';
/** The complete object of each kind, as a clean download gives it. */
const reference = new Map<string, Buffer>();

interface Row {
  kind: string;
  fault: string;
  code: number | null;
  message: string;
  onDisk: string;
}
const rows: Row[] = [];

/** What is under the final name: the complete object, the old content, nothing, or something else (never allowed). */
function onDisk(file: string, kind: string, old?: Buffer): string {
  if (!existsSync(file)) return 'nothing';
  const stat = lstatSync(file);
  if (!stat.isFile()) return stat.isCharacterDevice() ? 'the device (not replaced)' : stat.isFIFO() ? 'the FIFO (not replaced)' : 'not a regular file';
  const bytes = readFileSync(file);
  if (old && bytes.equals(old)) return 'the old content, untouched';
  if (bytes.equals(reference.get(kind)!)) return 'the complete object';
  return `WRONG (${bytes.length} bytes)`;
}

const firstError = (result: ProcessResult): string => (result.stderr.split('\n').find((line) => line.startsWith('error:')) ?? result.stderr.split('\n').find(Boolean) ?? '').replace(/\d{5,}/g, 'N');

function record(kind: string, faultName: string, result: ProcessResult, disk: string): Row {
  const row = { kind, fault: faultName, code: result.code, message: firstError(result), onDisk: disk };
  rows.push(row);
  expect(disk, `${kind} / ${faultName}: ${result.stderr}`).not.toMatch(/WRONG|not a regular/);
  return row;
}

function report(): string {
  const lines = ['| download | fault | exit | message | under the final name |', '|---|---|---|---|---|'];
  for (const row of rows) lines.push(`| ${row.kind} | ${row.fault} | ${row.code} | ${row.message.split(work).join('…').replace(/\|/g, '\\|').slice(0, 120)} | ${row.onDisk} |`);
  return `${lines.join('\n')}\n`;
}

/** Writes zeros to a new file until the file system is full. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const block = Buffer.alloc(64 * 1024); ; ) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

const fresh = (name: string): string => {
  const dir = join(work, 'out', `${name}-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

describe('the fault tier (installed package)', () => {
  it('downloads each kind cleanly first (the reference objects)', async () => {
    const blob = await forgectl(['files', 'info', 'big.txt', '--project', 'acme/api', '-o', 'json']);
    blobId = JSON.parse(blob.stdout).blob_id;
    const secure = await forgectl(['secure-files', 'list', '--project', 'acme/api', '-o', 'json']);
    secureId = String((JSON.parse(secure.stdout) as Array<{ id: number; name: string }>).find((f) => f.name === 'release.keystore')!.id);
    for (const { kind, argv } of KINDS) {
      const out = join(fresh('ref'), 'f');
      const result = await forgectl(argv(out));
      expect(result.code, `${kind}: ${result.stderr}`).toBe(0);
      reference.set(kind, readFileSync(out));
    }
    expect(reference.get('files raw')).toEqual(BIG_BYTES);
  }, 120_000);

  describe.each(KINDS)('$kind', ({ kind, argv, path }) => {
    const damaged = (damage: Damage, name: string) =>
      it(name, async () => {
        const dir = fresh('damage');
        const out = join(dir, 'f');
        proxy.damage({ damage, path });
        const result = await forgectl(argv(out));
        proxy.damage(undefined);
        expect(result.code, result.stderr).toBe(8);
        expect(result.stderr).toMatch(/mismatch|damaged|not a zip or tar archive/);
        record(kind, name, result, onDisk(out, kind));
        // Nothing half-written is left beside it either.
        expect(readdirSync(dir)).toEqual([]);
      }, 60_000);
    damaged('truncate', 'cut short, clean end, no Content-Length');
    damaged('short-length', 'cut short, Content-Length says the short size');
    damaged('flip', 'one byte flipped');

    it('the disk fills during the download (1 MiB tmpfs)', async (context) => {
      if (!('dir' in small)) return context.skip(small.reason);
      if (reference.get(kind)!.length < 1024 * 1024) return context.skip('the object fits in 1 MiB: see "the disk is full when it starts"');
      const out = join(small.dir, 'f');
      const result = await forgectl(argv(out));
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`error: cannot write ${out}: no space left on the device`);
      record(kind, 'disk fills during the download', result, onDisk(out, kind));
      expect(readdirSync(small.dir)).toEqual([]);
    }, 60_000);

    it('the disk is full when it starts; an old file of that name keeps its content', async (context) => {
      if (!('dir' in small)) return context.skip(small.reason);
      const out = join(small.dir, 'f');
      writeFileSync(out, 'old content\n');
      fill(join(small.dir, 'fill'));
      const result = await forgectl([...argv(out), '--yes']);
      rmSync(join(small.dir, 'fill'));
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`error: cannot write ${out}: no space left on the device`);
      record(kind, 'disk full at the start, old file there', result, onDisk(out, kind, Buffer.from('old content\n')));
      expect(readdirSync(small.dir)).toEqual(['f']);
      rmSync(out);
    }, 60_000);

    it('-O /dev/full: written to as a device (ENOSPC), never replaced', async () => {
      const result = await forgectl([...argv('/dev/full'), '--yes']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('error: cannot write /dev/full: no space left on the device');
      expect(statSync('/dev/full').isCharacterDevice()).toBe(true);
      record(kind, '-O /dev/full', result, onDisk('/dev/full', kind));
    }, 60_000);

    it('-O a FIFO: the bytes are streamed into it, the FIFO stays', async () => {
      const dir = fresh('fifo');
      const fifo = join(dir, 'pipe');
      execFileSync('mkfifo', [fifo]);
      const reader = shell(`cat ${fifo} > ${join(dir, 'read')}`);
      const result = await forgectl(argv(fifo));
      await reader;
      expect(result.code, result.stderr).toBe(0);
      expect(lstatSync(fifo).isFIFO()).toBe(true);
      expect(readFileSync(join(dir, 'read'))).toEqual(reference.get(kind));
      record(kind, '-O a FIFO (read by cat)', result, onDisk(fifo, kind));
    }, 60_000);

    it('a GET redirect loop: exit 8 naming the Location, nothing written', async () => {
      const dir = fresh('loop');
      const out = join(dir, 'f');
      await fault({ method: 'GET', path: `${path.source}|^/loop$`, status: 302, headers: { Location: '/api/v4/loop' }, times: 20 });
      const result = await forgectl(argv(out));
      await clearFaults();
      expect(result.code).toBe(8);
      expect(result.stderr).toMatch(/more than 5 redirects \(the last to http:\/\/127\.0\.0\.1:\d+\/api\/v4\/loop\)/);
      record(kind, 'GET redirect loop', result, onDisk(out, kind));
      expect(readdirSync(dir)).toEqual([]);
    }, 60_000);

    it('a planted FILE.part link (and sidecar link) is refused; its target is untouched', async () => {
      const dir = fresh('planted');
      const out = join(dir, 'f');
      const victim = join(fresh('victim'), 'precious');
      writeFileSync(victim, 'precious\n');
      symlinkSync(victim, `${out}.part`);
      symlinkSync(victim, `${out}.part.json`);
      const result = await forgectl(argv(out));
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`refusing to use ${out}.part: it is a symbolic link`);
      expect(readFileSync(victim, 'utf8')).toBe('precious\n');
      expect(readlinkSync(`${out}.part`)).toBe(victim);
      record(kind, 'planted FILE.part symlink', result, onDisk(out, kind));
    }, 60_000);

    it('the connection breaks mid-body: exit 8, nothing under the final name', async () => {
      const dir = fresh('cut');
      const out = join(dir, 'f');
      await fault({ method: 'GET', path: path.source, drop: 'body', times: 4 });
      const result = await forgectl([...argv(out), '--retries', '0']);
      await clearFaults();
      expect(result.code).toBe(8);
      record(kind, 'connection cut mid-body', result, onDisk(out, kind));
    }, 60_000);
  });

  it('--resume: an object that changed between attempts (a cache ignoring If-Range) starts over', async () => {
    const dir = fresh('resume');
    const out = join(dir, 'f');
    await fault({ method: 'GET', path: 'files/big.txt/raw', drop: 'body' });
    // Straight to the sandbox: its cut answer leaves the bytes so far in FILE.part.
    const cut = await runProcess('forgectl', [...KINDS[0].argv(out), '--retries', '0'], { env: env({}, 'direct'), cwd: work });
    expect(cut.code).toBe(8);
    expect(existsSync(`${out}.part`)).toBe(true);
    await clearFaults();
    const changed = Buffer.from(BIG_BYTES.toString().replace(/^./, 'X'));
    writeFileSync(join(work, 'big.txt'), changed);
    expect((await forgectl(['files', 'put', 'big.txt', '--project', 'acme/api', '--branch', 'main', '--content-file', 'big.txt', '-m', 'changed'], {})).code).toBe(0);
    proxy.damage({ damage: 'ignore-if-range', path: KINDS[0].path });
    const result = await forgectl([...KINDS[0].argv(out), '--resume']);
    proxy.damage(undefined);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/the file changed since .*\.part was written .*; starting over/);
    expect(readFileSync(out)).toEqual(changed);
    reference.set('files raw', changed);
    record('files raw', '--resume after the object changed (If-Range ignored)', result, onDisk(out, 'files raw'));
    // Back as it was, for the other cases.
    writeFileSync(join(work, 'big.txt'), BIG_BYTES);
    expect((await forgectl(['files', 'put', 'big.txt', '--project', 'acme/api', '--branch', 'main', '--content-file', 'big.txt', '-m', 'back'])).code).toBe(0);
    reference.set('files raw', BIG_BYTES);
  }, 120_000);

  it('--resume with a FILE.part but no sidecar starts over and says so', async () => {
    const dir = fresh('nosidecar');
    const out = join(dir, 'f');
    writeFileSync(`${out}.part`, 'partial');
    const result = await forgectl([...KINDS[4].argv(out), '--resume']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`${out}.part has no record of what it is a part of`);
    expect(result.stderr).not.toContain('resuming');
    record('artifacts download', '--resume, FILE.part without its sidecar', result, onDisk(out, 'artifacts download'));
  }, 60_000);

  it('repo blob --raw without Content-Length still checks the blob id at the end', async () => {
    const out = join(fresh('blob'), 'f');
    proxy.damage({ damage: 'truncate', path: KINDS[1].path });
    const cut = await forgectl(KINDS[1].argv(out));
    expect(cut.stderr).toMatch(/blob id mismatch/);
    // And to stdout: the check needs the size, known only at the end.
    proxy.damage({ damage: 'truncate', path: KINDS[1].path });
    const piped = await shell(`forgectl repo blob ${blobId} --raw --project acme/api > /dev/null`);
    proxy.damage(undefined);
    expect(piped.code).toBe(8);
    expect(piped.stderr).toMatch(/blob id mismatch/);
    record('repo blob --raw', 'to stdout, cut short without Content-Length', piped, 'stdout (exit 8 says the bytes are wrong)');
  }, 60_000);

  it('--extract of a damaged tar.gz: damaged-archive error, nothing extracted, no temporary file left', async () => {
    const target = join(fresh('extract'), 'x');
    proxy.damage({ damage: 'flip', path: KINDS[2].path });
    const result = await forgectl(['repo', 'archive', '--project', 'acme/api', '--extract', target]);
    proxy.damage(undefined);
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/tar\.gz archive is damaged/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(join(work, 'tmp'))).toEqual([]);
    record('repo archive (tar.gz)', '--extract, one byte flipped', result, existsSync(target) ? 'WRONG' : 'nothing');
  }, 60_000);

  it('--extract onto a full disk: exit 2, the folder left as it was', async (context) => {
    if (!('dir' in small)) return context.skip(small.reason);
    const target = join(small.dir, 'x');
    const result = await forgectl(['repo', 'archive', '--project', 'acme/api', '--extract', target]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot write .*: no space left on the device/);
    expect(readdirSync(small.dir)).toEqual([]);
    expect(readdirSync(join(work, 'tmp'))).toEqual([]);
    record('repo archive (tar.gz)', '--extract, the disk fills', result, 'nothing');
  }, 60_000);

  it('downloads honour the umask; a secure file is 0600 whatever it is', async () => {
    const dir = fresh('umask');
    const raw = await shell(`umask 027; forgectl files raw README.md --project acme/api -O ${dir}/readme`);
    expect(raw.code).toBe(0);
    expect(statSync(join(dir, 'readme')).mode & 0o777).toBe(0o640);
    const open = await shell(`umask 000; forgectl secure-files download ${secureId} --project acme/api --output-file ${dir}/ks`);
    expect(open.code).toBe(0);
    expect(statSync(join(dir, 'ks')).mode & 0o777).toBe(0o600);
    chmodSync(dir, 0o755);
  }, 60_000);

  it('at a terminal without -O, repo archive and artifacts download save to a default name, asking before overwriting', async (context) => {
    needs(context, 'pty');
    const dir = fresh('default-name');
    const onTerminal = (line: string) => {
      const [command, args] = pty!(line);
      return runProcess(command, args, { env: { ...env(), TERM: 'xterm' }, cwd: dir, timeoutMs: 60_000 });
    };
    const archive = await onTerminal('forgectl repo archive --project acme/api --format zip');
    expect(archive.code, archive.stdout).toBe(0);
    expect(archive.stdout).toContain('saving to api.zip');
    const same = join(fresh('same'), 'api.zip');
    expect((await forgectl(KINDS[3].argv(same))).code).toBe(0);
    expect(readFileSync(join(dir, 'api.zip'))).toEqual(readFileSync(same));
    const artifacts = await onTerminal('forgectl artifacts download --project acme/api --ref main --job-name build');
    expect(artifacts.code, artifacts.stdout).toBe(0);
    expect(readFileSync(join(dir, 'artifacts.zip'))).toEqual(reference.get('artifacts download'));
    // Again: the file exists, and the answer "n" keeps it.
    writeFileSync(join(dir, 'artifacts.zip'), 'mine\n');
    const again = await onTerminal('echo n | forgectl artifacts download --project acme/api --ref main --job-name build; echo "exit $?"');
    expect(again.stdout).toContain('Overwrite artifacts.zip?');
    expect(readFileSync(join(dir, 'artifacts.zip'), 'utf8')).toBe('mine\n');
  }, 120_000);
});
