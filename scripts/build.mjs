// Bundles src/ into dist/ with esbuild, in two passes:
// 1. ES modules with code splitting: each command (and heavy dependencies such as prompts, tables, YAML and the
//    sandbox) gets its own chunk, loaded only when that command runs.
// 2. Each file converted to CommonJS (`import()` becomes a deferred `require()`), so that bin/forgectl.cjs loads the
//    chunks itself, with V8's code cache, instead of through Node's ES module loader (start-up time: see the README).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const dist = fileURLToPath(new URL('../dist', import.meta.url));
rmSync(dist, { recursive: true, force: true });

/** undici's HTTP/2 client gets a stand-in for node:http2 that loads the real module only when used. */
const lazyHttp2 = {
  name: 'lazy-http2',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^node:http2$/ }, (args) =>
      /undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/.test(args.importer) ? { path: fileURLToPath(new URL('../src/http/http2-lazy.cjs', import.meta.url)) } : undefined,
    );
  },
};

/**
 * commander loads node:child_process (and net, dgram and streams with it) for subcommands that are separate
 * executables, which forgectl has none of: it gets a stand-in that loads the real module on first use.
 */
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /commander[\\/]lib[\\/]command\.js$/.test(args.importer) ? { path: 'child_process', namespace: 'lazy-builtin' } : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: `module.exports = new Proxy({}, { get: (_, key) => require('node:${args.path}')[key] });`,
      loader: 'js',
    }));
  },
};

const esm = mkdtempSync(join(tmpdir(), 'forgectl-build-'));
try {
  const result = await build({
    entryPoints: { main: 'src/main.ts' },
    outdir: esm,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    sourcemap: 'linked',
    chunkNames: 'chunks/[name]-[hash]',
    define: { __FORGECTL_VERSION__: JSON.stringify(pkg.version) },
    logLevel: 'warning',
    metafile: true,
    plugins: [lazyHttp2, lazyChildProcess],
  });
  const outputs = Object.keys(result.metafile.outputs).filter((file) => file.endsWith('.js')).map((file) => resolve(file));
  // Second pass: the same files as CommonJS, source maps carried through to the TypeScript sources. Code that
  // asks for import.meta.url (createRequire) gets the file's path, which createRequire accepts as well.
  const converted = await build({
    entryPoints: outputs,
    outbase: esm,
    outdir: dist,
    bundle: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify: true,
    sourcemap: 'linked',
    supported: { 'dynamic-import': false },
    define: { 'import.meta.url': '__filename' },
    logLevel: 'warning',
    metafile: true,
  });
  // The build's identity (a hash of every file): bin/forgectl.cjs keeps compiled code per build.
  const hash = createHash('sha256');
  for (const file of Object.keys(converted.metafile.outputs).sort()) hash.update(file).update(readFileSync(file));
  writeFileSync(join(dist, 'package.json'), `${JSON.stringify({ type: 'commonjs', build: hash.digest('hex').slice(0, 16) })}\n`);
  // Which sources ended up in which file: the start-up test reads it to prove heavy modules load lazily.
  const outputsByDist = Object.fromEntries(Object.entries(result.metafile.outputs).map(([file, output]) => [`dist/${relative(esm, resolve(file)).split('\\').join('/')}`, output]));
  writeFileSync(join(dist, 'meta.json'), JSON.stringify({ ...result.metafile, outputs: outputsByDist }));
} finally {
  rmSync(esm, { recursive: true, force: true });
}
