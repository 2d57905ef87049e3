// Bundles src/ into dist/ with esbuild. Code splitting keeps each command (and heavy dependencies such as
// prompts, tables, YAML and the sandbox) in its own chunk, loaded only when that command runs.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
/** undici's HTTP/2 client gets a stand-in for node:http2 that loads the real module only when used. */
const lazyHttp2 = {
  name: 'lazy-http2',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^node:http2$/ }, (args) =>
      /undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/.test(args.importer) ? { path: fileURLToPath(new URL('../src/http/http2-lazy.cjs', import.meta.url)) } : undefined,
    );
  },
};

const result = await build({
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  define: { __FORGECTL_VERSION__: JSON.stringify(pkg.version) },
  // CommonJS dependencies (undici, cli-table3) call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __forgectlRequire } from 'node:module'; const require = __forgectlRequire(import.meta.url);" },
  logLevel: 'warning',
  metafile: true,
  plugins: [lazyHttp2],
});
// Which sources ended up in which chunk: the start-up test reads it to prove heavy modules load lazily.
writeFileSync(new URL('../dist/meta.json', import.meta.url), JSON.stringify(result.metafile));
