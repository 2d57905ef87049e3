import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { constants as http2Constants, createSecureServer } from 'node:http2';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without types
import { analyseEntry, lazyAssert, lazyEntryPlugin, lazyHttp2 } from '../../scripts/lazy-undici.mjs';
import { generateCertificate } from '../../src/sandbox/tls.js';
import { BUILT, runBin, tempDir } from '../helpers/cli.js';

/**
 * undici's package entry as the build rewrites it (scripts/lazy-undici.mjs): each export loaded when first read. The
 * rewrite must give the package's exports, the same values, and a working Agent; an entry of another shape is used as
 * it is.
 */
const require = createRequire(import.meta.url);
const entryPath = require.resolve('undici');
const entrySource = readFileSync(entryPath, 'utf8');
type Analysis = { reason?: string; exports?: Array<{ name: string; from?: { path: string; prop?: string } }> };
const analyse = (source: string) => analyseEntry(source) as Analysis;

/** Bundles `code` (CommonJS that requires a package) with the build's plugin for that package; returns the bundle's path and warnings. */
async function bundle(code: string, resolveDir: string, pkg = 'undici', entry = /node_modules[\\/]undici[\\/]index\.js$/): Promise<{ file: string; warnings: string[] }> {
  const dir = tempDir('forgectl-lazy-entry-');
  const file = join(dir, 'bundle.cjs');
  const result = await build({
    stdin: { contents: code, resolveDir, loader: 'js' },
    outfile: file,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    logLevel: 'silent',
    keepNames: true,
    plugins: [lazyEntryPlugin(pkg, entry)],
  });
  return { file, warnings: result.warnings.map((w) => w.text) };
}

describe("undici's entry, loaded lazily", () => {
  it('is recognised: Agent and EnvHttpProxyAgent are modules of their own, fetch and the rest come from the untouched entry', () => {
    const analysis = analyse(entrySource);
    expect(analysis.reason).toBeUndefined();
    const lazy = analysis.exports!.filter((e) => e.from).map((e) => e.name);
    expect(lazy).toEqual(expect.arrayContaining(['Agent', 'EnvHttpProxyAgent', 'Dispatcher']));
    expect(analysis.exports!.find((e) => e.name === 'fetch')?.from).toBeUndefined();
  });

  it("has the package's export names in its order, each the same kind of value, and the same values once the whole entry is loaded", async () => {
    const { file, warnings } = await bundle("module.exports = require('undici');", process.cwd());
    expect(warnings).toEqual([]);
    const real = require('undici') as Record<string, unknown>;
    const lazy = require(file) as Record<string, unknown>;
    expect(Object.keys(lazy)).toEqual(Object.keys(real));
    for (const name of Object.keys(real)) {
      expect(typeof lazy[name], name).toBe(typeof real[name]);
      if (typeof real[name] === 'function') expect((lazy[name] as { name: string }).name, name).toBe((real[name] as { name: string }).name);
    }
    // The untouched entry (behind errors) and the getters (mockErrors) load the same modules: one UndiciError.
    const { MockNotMatchedError } = lazy.mockErrors as { MockNotMatchedError: new () => Error };
    expect(new MockNotMatchedError()).toBeInstanceOf((lazy.errors as { UndiciError: new () => Error }).UndiciError);
    expect(typeof (lazy.Dispatcher as { prototype: Record<string, unknown> }).prototype.request).toBe('function');
  });

  it('sends a real request over its Agent, with the methods the entry adds to every dispatcher, without loading fetch', async () => {
    const { file } = await bundle("module.exports = require('undici');", process.cwd());
    const server = createServer((request, response) => response.end(JSON.stringify({ path: request.url, agent: request.headers['user-agent'] })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { Agent } = require(file) as { Agent: new () => { request(options: object): Promise<{ statusCode: number; body: { json(): Promise<unknown> } }>; close(): Promise<void> } };
      const agent = new Agent();
      const { port } = server.address() as { port: number };
      const answer = await agent.request({ origin: `http://127.0.0.1:${port}`, path: '/x?y=1', method: 'GET', headers: { 'user-agent': 'lazy' } });
      expect(answer.statusCode).toBe(200);
      expect(await answer.body.json()).toEqual({ path: '/x?y=1', agent: 'lazy' });
      await agent.close();
    } finally {
      server.close();
    }
    // The bundle holds undici's fetch, WebSocket and caches, but reading Agent and EnvHttpProxyAgent evaluates none
    // of them (nor the modules they load: zlib, worker_threads).
    expect(readFileSync(file, 'utf8')).toContain('lib/web/fetch/index.js');
    const script = `const u = require(${JSON.stringify(file)}); u.Agent; u.EnvHttpProxyAgent; console.log(process.moduleLoadList.join(' '))`;
    const loaded = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(loaded).toContain('NativeModule net');
    expect(loaded).not.toMatch(/NativeModule (zlib|worker_threads)\b/);
  });

  it('falls back to the untouched entry, with a warning, when the shape is not recognised', async () => {
    for (const [change, reason] of [
      [(s: string) => s.replace("Object.assign(Dispatcher.prototype, api)", 'if (api) Object.assign(Dispatcher.prototype, api)'), /IfStatement/],
      [(s: string) => `${s}\nAgent.prototype.extra = 1\n`, /a statement with effects/],
      [(s: string) => s.replace("const Agent = require('./lib/dispatcher/agent')", "const Agent = wrap(require('./lib/dispatcher/agent'))"), /computed by a call/],
      [() => "'use strict'\nmodule.exports = { Agent: require('./lib/dispatcher/agent') }\n", /statement with effects|no module.exports/],
    ] as Array<[(source: string) => string, RegExp]>) {
      expect(analyse(change(entrySource)).reason).toMatch(reason);
    }
    // An export whose module another statement uses is read from the untouched entry.
    const shared = analyse(`${entrySource}\nfunction agentOf () { return Agent }\n`);
    expect(shared.reason).toBeUndefined();
    expect(shared.exports!.find((e) => e.name === 'Agent')?.from).toBeUndefined();
    expect(shared.exports!.find((e) => e.name === 'EnvHttpProxyAgent')?.from).toBeDefined();

    // A package whose entry is of another shape: bundled as it is, with a warning.
    const root = tempDir('forgectl-lazy-pkg-');
    mkdirSync(join(root, 'node_modules', 'pkg', 'lib'), { recursive: true });
    writeFileSync(join(root, 'node_modules', 'pkg', 'package.json'), '{"name":"pkg","main":"index.js"}');
    writeFileSync(join(root, 'node_modules', 'pkg', 'lib', 'a.js'), 'module.exports = class A {}');
    writeFileSync(join(root, 'node_modules', 'pkg', 'index.js'), "globalThis.pkgLoaded = true\nmodule.exports.A = require('./lib/a')\n");
    const { file, warnings } = await bundle("module.exports = require('pkg');", root, 'pkg', /node_modules[\\/]pkg[\\/]index\.js$/);
    expect(warnings.join('\n')).toMatch(/pkg's entry is loaded whole \(its shape is not the one expected: a statement with effects: globalThis.pkgLoaded = true/);
    const loaded = require(file) as { A: { name: string } };
    expect(loaded.A.name).toBe('A');
    expect((globalThis as { pkgLoaded?: boolean }).pkgLoaded).toBe(true);
  });
});

describe("undici's node:http2, loaded on first use", () => {
  it('gives what node:http2 gives: every constant, and the module itself for the rest', async () => {
    const dir = tempDir('forgectl-lazy-http2-');
    const file = join(dir, 'bundle.cjs');
    // As undici's files require it (the stand-in is theirs only).
    await build({ stdin: { contents: "module.exports = require('node:http2');", sourcefile: join(dir, 'node_modules', 'undici', 'lib', 'x.js'), loader: 'js' }, outfile: file, bundle: true, format: 'cjs', platform: 'node', logLevel: 'silent', plugins: [lazyHttp2] });
    expect(readFileSync(file, 'utf8')).toContain('HTTP2_HEADER_AUTHORITY');
    const standIn = require(file) as typeof import('node:http2');
    for (const [name, value] of Object.entries(http2Constants)) expect(standIn.constants[name as keyof typeof http2Constants], name).toBe(value);
    expect(standIn.connect).toBe((require('node:http2') as typeof import('node:http2')).connect);
    // Anyone else's node:http2 is the module itself.
    const other = join(dir, 'other.cjs');
    await build({ stdin: { contents: "module.exports = require('node:http2');", sourcefile: join(dir, 'x.js'), loader: 'js' }, outfile: other, bundle: true, format: 'cjs', platform: 'node', logLevel: 'silent', plugins: [lazyHttp2] });
    expect(readFileSync(other, 'utf8')).not.toContain('HTTP2_HEADER_AUTHORITY');
  });

  it.skipIf(!BUILT)('the built forgectl talks HTTP/1.1 to a server that offers HTTP/2 too', async () => {
    const { private: key, cert } = await generateCertificate('127.0.0.1');
    const seen: string[] = [];
    const server = createSecureServer({ key, cert, allowHTTP1: true }, (request, response) => {
      seen.push(request.httpVersion);
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ id: 7, username: 'h2' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const ca = join(tempDir(), 'ca.pem');
      writeFileSync(ca, cert);
      const { port } = server.address() as { port: number };
      const result = await runBin(['api', '/user', '--ca-file', ca, '-o', 'json'], { env: { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: `https://127.0.0.1:${port}`, FORGECTL_TOKEN: 'glpat-test' } });
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.json()).toEqual({ id: 7, username: 'h2' });
      expect(seen).toEqual(['1.1']);
    } finally {
      server.close();
    }
  });
});

describe("undici's node:assert, loaded when an assertion fails", () => {
  it('passes what holds without loading node:assert, and fails what does not with its AssertionError and message', async () => {
    const dir = tempDir('forgectl-lazy-assert-');
    const file = join(dir, 'bundle.cjs');
    await build({ stdin: { contents: "module.exports = require('node:assert');", sourcefile: join(dir, 'node_modules', 'undici', 'lib', 'x.js'), loader: 'js' }, outfile: file, bundle: true, format: 'cjs', platform: 'node', logLevel: 'silent', plugins: [lazyAssert] });
    const assert: ((value: unknown, message?: string) => void) & { strictEqual?: unknown } = require(file);
    expect(assert(1)).toBeUndefined();
    expect(assert(true, 'holds')).toBeUndefined();
    const real = require('node:assert') as typeof import('node:assert');
    for (const [value, message] of [[false, undefined], [0, 'zero'], [null, 'nothing']] as const) {
      let thrown: unknown;
      try {
        assert(value, message);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(real.AssertionError);
      if (message) expect((thrown as Error).message).toBe(message);
    }
    expect(assert.strictEqual).toBe(real.strictEqual);
    // Anyone else's node:assert is the module itself.
    const other = join(dir, 'other.cjs');
    await build({ stdin: { contents: "module.exports = require('node:assert');", sourcefile: join(dir, 'x.js'), loader: 'js' }, outfile: other, bundle: true, format: 'cjs', platform: 'node', logLevel: 'silent', plugins: [lazyAssert] });
    expect(require(other)).toBe(real);
  });
});
