// Bundles src/ into dist/ with esbuild, in two passes:
// 1. ES modules with code splitting: each command (and heavy dependencies such as prompts, tables, YAML and the
//    sandbox) gets its own chunk, loaded only when that command runs.
// 2. Each file converted to CommonJS (`import()` becomes a deferred `require()`), so that bin/forgectl.cjs loads the
//    chunks itself, with V8's code cache, instead of through Node's ES module loader (start-up time: see the README).
// 3. The files every command loads (main.js, the command line and what they import) joined into dist/core.js, one
//    file to read and compile instead of a score of small ones; those every request needs, into dist/chunks/request.js.
// 4. The help of every command rendered, and what lays it out to a width (writeHelpTexts below).
// 5. The chunks and the help texts each joined into one file (writePack below): an installer pays for every file.
// 6. The man pages, forgectl(1) and one per group of commands, written from the command tree (scripts/manual.ts).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lazyAssert, lazyEntryPlugin, lazyHttp2 } from './lazy-undici.mjs';
import { runScript } from './run-script.mjs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const dist = fileURLToPath(new URL('../dist', import.meta.url));
rmSync(dist, { recursive: true, force: true });

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
    // undici's package entry loads fetch, WebSocket, caches and mocks too: its exports load when first read; its
    // HTTP/2 client's node:http2 (with tls and crypto) loads on first use.
    plugins: [lazyChildProcess, lazyHttp2, lazyAssert, lazyEntryPlugin('undici', /node_modules[\\/]undici[\\/]index\.js$/)],
    // Native bindings cannot be bundled: the keyring binding is a runtime dependency, required on first use.
    external: ['@napi-rs/keyring'],
  });
  const outputs = Object.keys(result.metafile.outputs).filter((file) => file.endsWith('.js')).map((file) => resolve(file));
  // Second pass: the same files as CommonJS, source maps carried through to the TypeScript sources. Code that
  // asks for import.meta.url gets the file's URL, computed at the top of the files that use it.
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
    define: { 'import.meta.url': '__forgectlImportMetaUrl' },
    logLevel: 'warning',
    metafile: true,
  });
  for (const file of Object.keys(converted.metafile.outputs).filter((name) => name.endsWith('.js'))) {
    const code = readFileSync(file, 'utf8');
    if (code.includes('__forgectlImportMetaUrl')) writeFileSync(file, `var __forgectlImportMetaUrl=require("node:url").pathToFileURL(__filename).href;${code}`);
  }
  const outputsByDist = Object.fromEntries(Object.entries(result.metafile.outputs).map(([file, output]) => [`dist/${relative(esm, resolve(file)).split('\\').join('/')}`, output]));
  joinFiles(outputsByDist, esm, 'dist/core.js', ['dist/main.js', Object.keys(outputsByDist).find((file) => outputsByDist[file].entryPoint === 'src/cli/program.ts')]);
  // What every command that sends a request loads beside its own code (the run's context, the HTTP and API clients),
  // one file instead of six: each file read and compiled costs a run about 0.2 ms whatever its size.
  const requestFiles = joinFiles(outputsByDist, esm, 'dist/chunks/request.js', [Object.keys(outputsByDist).find((file) => outputsByDist[file].entryPoint === 'src/cli/context.ts')]);
  // jq (WebAssembly, for --jq) reads its jq.wasm from beside the file it was bundled into.
  for (const [file, output] of Object.entries(outputsByDist)) {
    if (Object.keys(output.inputs).some((input) => input.endsWith('node_modules/jq-web/jq.js'))) copyFileSync('node_modules/jq-web/jq.wasm', join(dirname(file), 'jq.wasm'));
  }
  // The build's identity (a hash of every file): bin/forgectl.cjs keeps compiled code per build.
  const hash = createHash('sha256');
  for (const file of [...Object.keys(converted.metafile.outputs), 'dist/core.js', 'dist/core.js.map', 'dist/chunks/request.js', 'dist/chunks/request.js.map'].filter((file) => existsSync(file)).sort()) hash.update(file).update(readFileSync(file));
  writeFileSync(join(dist, 'package.json'), `${JSON.stringify({ type: 'commonjs', build: hash.digest('hex').slice(0, 16) })}\n`);
  // Which sources ended up in which file: the start-up test reads it to prove heavy modules load lazily.
  writeFileSync(join(dist, 'meta.json'), JSON.stringify({ ...result.metafile, outputs: outputsByDist }));
  // The chunks' source maps stay beside where the chunks were (a development build's stack traces); jq.wasm stays a file.
  writePack(join(dist, 'chunks'), (name) => name.endsWith('.js'), asFunction, Object.fromEntries(requestFiles.map((file) => [file.slice('dist/chunks/'.length), 'request.js'])));
  await writeHelpTexts();
  writePack(join(dist, 'help'), () => true);
  // The man pages (scripts/manual.ts): package.json's "man" lists them, and `npm install -g` links them into place.
  await runScript('scripts/manual.ts', ['--man', join(dist, 'man')]);
} finally {
  rmSync(esm, { recursive: true, force: true });
}

/**
 * Joins the files of a folder that `which` names into FOLDER.pack, and lists each one's place in it in
 * FOLDER.index.json (`{"list-AB12CD34.js": [offset, length]}`, in bytes); the files are removed (the folder too,
 * once empty). `joined` names the files joined into another file of the folder (joinFiles), each listed with the
 * name of the file that holds it (`{"context-AB12CD34.js": "request.js"}`). bin/forgectl.cjs reads a file from there by its name. Why: an installer pays for every file it writes
 * — npm about 6 ms a file on the development machine, so the 318 chunks and 271 help texts were 3 of the 4.7 s that
 * `npm install -g` took — while a run reads the one or two it needs at an offset, as cheaply as a file of their own.
 */
function writePack(folder, which, transform = (bytes) => bytes, joined = {}) {
  const index = { ...joined };
  const parts = [];
  let offset = 0;
  for (const name of readdirSync(folder).filter(which).sort()) {
    const bytes = transform(readFileSync(join(folder, name)));
    index[name] = [offset, bytes.length];
    parts.push(bytes);
    offset += bytes.length;
    rmSync(join(folder, name));
  }
  writeFileSync(`${folder}.pack`, Buffer.concat(parts));
  writeFileSync(`${folder}.index.json`, `${JSON.stringify(index)}\n`);
  if (!readdirSync(folder).length) rmSync(folder, { recursive: true });
}

/**
 * A CommonJS file's code as the function bin/forgectl.cjs compiles (strict, as the ES modules it was built from),
 * written so at build time: made at run time, by joining strings, V8 would copy every file's text once more before
 * compiling it (the bundle's files are about 0.8 MB on the path of a request; each MB is a young collection).
 */
function asFunction(code) {
  return Buffer.concat([Buffer.from("(function (exports, require, module, __filename, __dirname) {'use strict';"), code, Buffer.from('\n})')]);
}

/**
 * The help of every command and topic, rendered once here into dist/help/ (scripts/help-texts.ts, bundled and run
 * by scripts/run-script.mjs) and then joined into dist/help.pack: bin/forgectl.cjs prints help from there without
 * loading the bundle (start-up time), laid out to the terminal's width (or 80 columns) by dist/help-layout.cjs.
 */
async function writeHelpTexts() {
  await runScript('scripts/help-texts.ts', [join(dist, 'help')]);
  // What lays them out to a width: the bundle's own functions, as a file of their own for the bin.
  await build({
    entryPoints: ['src/cli/help-layout.ts'],
    outfile: join(dist, 'help-layout.cjs'),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify: true,
    logLevel: 'warning',
  });
}

/**
 * Joins the files `roots` import statically (themselves included, without those joined before) into one file,
 * `target` (dist/core.js, dist/chunks/request.js): `module.exports = { 'main.js': function (exports, require,
 * module, __filename, __dirname) {…}, … }`, each file's code on lines of its own, with an index source map whose
 * sections are the files' own maps: one file to read and compile instead of a score of small ones. dist/core.js is
 * itself written as a function (asFunction); a file of dist/chunks/ is made one when the chunks are packed. The files
 * joined are removed from dist/; meta.json lists the target with their sources. Returns the files joined.
 */
function joinFiles(outputs, esm, target, roots) {
  const joined = [];
  const visit = (file) => {
    if (joined.includes(file) || !outputs[file]) return;
    joined.push(file);
    for (const imported of outputs[file].imports) {
      if (imported.kind === 'import-statement' && !imported.external) visit(`dist/${relative(esm, resolve(imported.path)).split('\\').join('/')}`);
    }
  };
  roots.forEach(visit);
  const name = target.slice(target.lastIndexOf('/') + 1);
  const lines = ['module.exports = {'];
  const sections = [];
  for (const file of joined) {
    const source = readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=\S*\s*$/, '').split('\n');
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8'));
    map.sources = map.sources.map((source) => relative(dirname(target), join(dirname(file), source)).split('\\').join('/'));
    lines.push(`${JSON.stringify(file.slice('dist/'.length))}: function (exports, require, module, __filename, __dirname) {`);
    sections.push({ offset: { line: lines.length, column: 0 }, map });
    lines.push(...source, '},');
    rmSync(file);
    rmSync(`${file}.map`);
  }
  lines.push('};', `//# sourceMappingURL=${name}.map`, '');
  const code = Buffer.from(lines.join('\n'));
  writeFileSync(target, target === 'dist/core.js' ? asFunction(code) : code);
  writeFileSync(`${target}.map`, JSON.stringify({ version: 3, file: name, sections }));
  const inputs = Object.assign({}, ...joined.map((file) => outputs[file].inputs));
  // The joined files' imports of what the bundle leaves out (the keyring binding) stay listed: they are the package's dependencies.
  const externals = joined.flatMap((file) => outputs[file].imports.filter((imported) => imported.external));
  outputs[target] = { imports: externals, exports: [], inputs, bytes: code.length };
  for (const file of joined) delete outputs[file];
  return joined;
}
