// Builds forgectl as one executable file for machines without Node (npm run build:sea, after the build): Node's own
// binary with forgectl inside it as a single executable application — the bin as its main script, and as assets
// the built dist/ (the chunks, the help texts, jq's WebAssembly) and the OS keyring's native module for the platform.
// Writes dist/sea/forgectl-linux-x64 and dist/sea/forgectl-linux-arm64, and dist/sea/SHA256SUMS (`sha256sum -c`).
//   node scripts/sea.mjs [--platform linux-x64]... [--out DIR]
// Exit 0: built; 3: cannot be built on this machine (no registry, a platform without Node binaries), the reason on
// stderr; 1: failed.
//
// The Node inside is 24 (LTS until April 2028), at the newest release the npm registry has for both Linux platforms,
// so that both executables run the same Node, and the same release the installed-package tests run the npm package
// on. 26 is not an LTS line in any release the registry has, and 22's support ends in April 2027. Node 24 makes the
// blob (--experimental-sea-config); postject, Node's own injector, puts it into the binary (`--build-sea` does both
// from Node 25.5 on). Each binary is fetched with `npm pack` (npm checks it against the registry's integrity), then
// checked against the integrity pinned below, and kept in node_modules/.cache/forgectl-sea.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { stripElf } from './elf-strip.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const NODE_VERSION = '24.21.0';
/** The platforms built, each with the integrity of its Node package and the name of its keyring binary. */
export const PLATFORMS = {
  'linux-x64': { node: 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==', keyring: 'linux-x64-gnu' },
  'linux-arm64': { node: 'sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==', keyring: 'linux-arm64-gnu' },
};
/** The most an executable may weigh: a download users accept for a command-line tool (gh and glab are 40–60 MB). */
export const MAX_BYTES = 130_000_000;
const CACHE = join(ROOT, 'node_modules', '.cache', 'forgectl-sea');
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** This machine cannot build the executable: the reason is said and the build stops with exit 3. */
class Unavailable extends Error {}

const sha512 = (bytes) => `sha512-${createHash('sha512').update(bytes).digest('base64')}`;

/**
 * The tarball of a registry package (NAME@VERSION) with that integrity: from the cache, else fetched with `npm pack`
 * (npm checks it against the registry's integrity) and checked against the pinned one before it is kept.
 */
function registryPackage(spec, integrity) {
  const cached = join(CACHE, `${spec.replace(/^@/, '').replace(/[/@]/g, '-')}.tgz`);
  if (existsSync(cached) && sha512(readFileSync(cached)) === integrity) return cached;
  const download = mkdtempSync(join(tmpdir(), 'forgectl-sea-fetch-'));
  try {
    try {
      execFileSync('npm', ['pack', spec, '--pack-destination', download, '--loglevel', 'error'], { stdio: 'pipe', timeout: 300_000, env: { ...process.env, npm_config_update_notifier: 'false' } });
    } catch (error) {
      throw new Unavailable(`cannot fetch ${spec} from the npm registry: ${(error.stderr?.toString() || error.message).trim().split('\n')[0]}`);
    }
    const [name] = readdirSync(download).filter((file) => file.endsWith('.tgz'));
    if (!name) throw new Error(`npm pack ${spec} gave no tarball`);
    const actual = sha512(readFileSync(join(download, name)));
    if (actual !== integrity) throw new Error(`${spec} from the registry is not the one pinned: ${actual}, expected ${integrity}`);
    mkdirSync(CACHE, { recursive: true });
    renameSync(join(download, name), cached);
    return cached;
  } finally {
    rmSync(download, { recursive: true, force: true });
  }
}

/** One file of a package's tarball (its path below package/), extracted into a folder; returns its path. */
function extract(tarball, path, into) {
  execFileSync('tar', ['-xzf', tarball, '-C', into, `package/${path}`], { stdio: 'pipe' });
  return join(into, 'package', path);
}

/** Node's binary for a platform, extracted into the folder. */
function nodeBinary(platform, into) {
  const folder = mkdtempSync(join(into, `node-${platform}-`));
  return extract(registryPackage(`node-${platform}@${NODE_VERSION}`, PLATFORMS[platform].node), 'bin/node', folder);
}

/**
 * The keyring's native module for a platform: the installed one (npm ci checked it against the lockfile), else the
 * lockfile's version fetched from the registry and checked against the lockfile's integrity.
 */
function keyringBinary(platform, into) {
  const triple = PLATFORMS[platform].keyring;
  const file = `keyring.${triple}.node`;
  const installed = join(ROOT, 'node_modules', '@napi-rs', `keyring-${triple}`, file);
  if (existsSync(installed)) return installed;
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages[`node_modules/@napi-rs/keyring-${triple}`];
  if (!lock) throw new Error(`package-lock.json does not list @napi-rs/keyring-${triple}`);
  return extract(registryPackage(`@napi-rs/keyring-${triple}@${lock.version}`, lock.integrity), file, mkdtempSync(join(into, `keyring-${platform}-`)));
}

/** The platform of this machine, when Node's Linux binaries (glibc) run here; else why they do not. */
function hostPlatform() {
  const platform = `${process.platform}-${process.arch}`;
  if (!PLATFORMS[platform]) return { reason: `this machine is ${platform}: Node's binaries in the npm registry that make the executable are for ${Object.keys(PLATFORMS).join(' and ')}` };
  if (!process.report.getReport().header.glibcVersionRuntime) return { reason: `this machine's C library is not glibc (musl?): Node's Linux binaries in the npm registry do not run here` };
  return { platform };
}

/** The files of dist/ the bin reads at run time, as SEA assets named by their path in dist/. */
function distAssets() {
  const dist = join(ROOT, 'dist');
  if (!existsSync(join(dist, 'package.json'))) throw new Error('dist/ is not built: run npm run build first');
  const files = readdirSync(dist, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  const assets = {};
  for (const entry of files) {
    const name = relative(dist, join(entry.parentPath, entry.name)).split('\\').join('/');
    // The man pages are for npm install -g to link; the executable never reads them.
    if (!name.endsWith('.map') && name !== 'meta.json' && !name.startsWith('sea/') && !name.startsWith('man/')) assets[name] = join(dist, name);
  }
  return assets;
}

/**
 * The executable's main script: bin/forgectl.cjs with what it requires of the package bundled in (its package.json
 * for the version, dist/help-layout.cjs); Node's modules stay requires, which a single executable's main script can make.
 */
async function mainScript(into) {
  const outfile = join(into, 'main.cjs');
  await build({ entryPoints: [join(ROOT, 'bin', 'forgectl.cjs')], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node24', logLevel: 'warning' });
  // The main script is compiled as a function body, where a #! line is not JavaScript.
  writeFileSync(outfile, readFileSync(outfile, 'utf8').replace(/^#!.*\n/, ''));
  return outfile;
}

/** Builds the executable of one platform into out; returns its path. */
async function buildOne(platform, { out, work, main, generator, assets }) {
  const blob = join(work, `${platform}.blob`);
  const config = join(work, `${platform}.json`);
  // V8's code cache of the main script is for the CPU it was made on: only the host's executable gets it.
  const useCodeCache = platform === hostPlatform().platform;
  const allAssets = { ...assets, 'keyring.node': keyringBinary(platform, work) };
  writeFileSync(config, JSON.stringify({ main, output: blob, disableExperimentalSEAWarning: true, useSnapshot: false, useCodeCache, assets: allAssets }));
  execFileSync(generator, ['--experimental-sea-config', config], { stdio: 'pipe' });
  const target = join(out, `forgectl-${platform}`);
  const partial = `${target}.partial`;
  writeFileSync(partial, stripElf(readFileSync(nodeBinary(platform, work))));
  const { inject } = await import('postject');
  // LIEF, inside postject, warns that the note it adds has no section name: Node finds the blob by the note itself.
  const warn = console.warn;
  console.warn = (...args) => void (/Can't find string offset for section name/.test(String(args[0])) || warn(...args));
  try {
    await inject(partial, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SEA_FUSE });
  } finally {
    console.warn = warn;
  }
  const { size } = statSync(partial);
  if (size > MAX_BYTES) throw new Error(`forgectl-${platform} is ${(size / 1e6).toFixed(1)} MB, over the ${MAX_BYTES / 1e6} MB it may weigh`);
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return target;
}

/** Writes out/SHA256SUMS for every executable in out, in the format `sha256sum -c` reads. */
function writeChecksums(out) {
  const lines = readdirSync(out)
    .filter((name) => /^forgectl-[a-z0-9]+-[a-z0-9]+(\.exe)?$/.test(name))
    .sort()
    .map((name) => `${createHash('sha256').update(readFileSync(join(out, name))).digest('hex')}  ${name}\n`);
  writeFileSync(join(out, 'SHA256SUMS'), lines.join(''));
}

/** Builds the executables of the platforms into out (default dist/sea); returns their paths. */
export async function buildSea({ platforms = Object.keys(PLATFORMS), out = join(ROOT, 'dist', 'sea') } = {}) {
  for (const platform of platforms) if (!PLATFORMS[platform]) throw new Error(`no such platform: ${platform} (there are ${Object.keys(PLATFORMS).join(', ')})`);
  const host = hostPlatform();
  if (!host.platform) throw new Unavailable(host.reason);
  const assets = distAssets();
  mkdirSync(out, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'forgectl-sea-'));
  try {
    // The blob is made by a Node of the same version as the one it goes into.
    const generator = process.version === `v${NODE_VERSION}` ? process.execPath : nodeBinary(host.platform, work);
    const main = await mainScript(work);
    const built = [];
    for (const platform of platforms) built.push(await buildOne(platform, { out, work, main, generator, assets }));
    writeChecksums(out);
    return built;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { platform: { type: 'string', multiple: true }, out: { type: 'string' } } });
  try {
    const started = Date.now();
    for (const file of await buildSea({ platforms: values.platform, out: values.out })) {
      process.stdout.write(`wrote ${relative(process.cwd(), file)} (${(statSync(file).size / 1e6).toFixed(1)} MB, Node ${NODE_VERSION})\n`);
    }
    process.stdout.write(`in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  } catch (error) {
    process.stderr.write(`error: ${error instanceof Unavailable ? 'the single executable cannot be built here: ' : ''}${error.message}\n`);
    process.exitCode = error instanceof Unavailable ? 3 : 1;
  }
}
