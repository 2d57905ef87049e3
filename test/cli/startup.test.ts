import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, codeCacheFiles, runBin, startTestSandbox, tempDir, useTestSandbox, v8FlagsPreload } from '../helpers/cli.js';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
const built = existsSync(`${dist}meta.json`);

/**
 * A preload that records every file of dist/ the bin compiles (it loads the bundle itself, with vm.Script: the chunks
 * from dist/chunks.pack under their own names), every other file of dist/ it reads (jq's WebAssembly), and every
 * built-in module the bundle requires (as `node:NAME`).
 */
const recorder = `${tempDir('forgectl-startup-')}/record.cjs`;
writeFileSync(recorder, `const fs = require('node:fs');
const read = fs.readFileSync;
fs.readFileSync = function (file, ...rest) {
  if (typeof file === 'string' && file.includes('/dist/') && /\\.wasm$/.test(file)) process.stderr.write('LOADED ' + file + '\\n');
  return read.call(this, file, ...rest);
};
const vm = require('node:vm');
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(source, options) {
    super(source, options);
    if (options && typeof options.filename === 'string' && options.filename.includes('/dist/')) process.stderr.write('LOADED ' + options.filename + '\\n');
  }
};
const Module = require('node:module');
const load = Module._load;
Module._load = function (id, ...rest) {
  if (id.startsWith('node:')) process.stderr.write('LOADED ' + id + '\\n');
  return load.call(this, id, ...rest);
};
const getBuiltin = process.getBuiltinModule;
process.getBuiltinModule = (id) => {
  process.stderr.write('LOADED ' + (id.startsWith('node:') ? id : 'node:' + id) + '\\n');
  return getBuiltin(id);
};
`);

/** Runs the built CLI, recording every file of dist/ it loads, mapped back to source inputs. */
async function loadedInputs(argv: string[], env: Record<string, string>): Promise<{ code: number | null; inputs: string[]; files: string[] }> {
  const meta = JSON.parse(readFileSync(`${dist}meta.json`, 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  // Asynchronous: the sandbox answering the child runs in this process.
  const child = spawn(process.execPath, ['--require', recorder, BIN, ...argv], { env: { PATH: process.env.PATH, ...env } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const all = [...stderr.matchAll(/^LOADED (.+)$/gm)].map((m) => m[1]);
  const files = all.filter((file) => file.endsWith('.js') && !file.startsWith('node:'));
  expect(argv[0] === '--version' || argv.includes('--help') || files.some((file) => file.endsWith('/dist/core.js'))).toBe(true);
  const inputs = files.flatMap((file) => {
    const key = file.slice(file.indexOf('/dist/') + 1);
    return Object.keys(meta.outputs[key]?.inputs ?? {});
  });
  // Files beside the bundle's (jq's WebAssembly) count as inputs of their own, built-in modules as node:NAME.
  const others = all.filter((file) => !file.endsWith('.js')).map((file) => (file.startsWith('node:') ? file : file.slice(file.indexOf('/dist/') + 1)));
  return { code: status, inputs: [...inputs, ...new Set(others)], files: files.map((file) => file.slice(file.indexOf('/dist/') + 1)) };
}

const HEAVY = /node_modules\/(ora|@inquirer|cli-table3|yaml|chalk|conf|selfsigned|jq-web|liquidjs|graphql)\/|src\/sandbox\/|src\/resources\/[^/]+\/sandbox(-[a-z-]+)?\.ts|src\/output\/(jq|template)\.ts|jq\.wasm/;

describe.skipIf(!built)('start-up loads only what the command needs', () => {
  const sandbox = useTestSandbox();

  it('--version loads no command, commander or HTTP code', async () => {
    const { code, inputs } = await loadedInputs(['--version'], {});
    expect(code).toBe(0);
    expect(inputs.filter((i) => /node_modules|src\/commands|src\/http/.test(i))).toEqual([]);
  });

  it.each(['--help', 'freeze-periods --help', 'freeze-periods create --help', 'tokens --help'])('forgectl %s to a pipe loads none of the bundle, nor node:v8 or node:vm (its text was rendered at build time)', async (line) => {
    const { code, inputs } = await loadedInputs(line.split(' '), { FORGECTL_CONFIG_DIR: tempDir() });
    expect(code).toBe(0);
    expect(inputs.filter((i) => !/^node:(fs|path)$/.test(i))).toEqual([]);
  });

  it.each(['-q --help', '-o json tokens --help'])('forgectl %s (help from the bundle) loads no HTTP client, sandbox or crypto', async (line) => {
    const { code, inputs } = await loadedInputs(line.split(' '), { FORGECTL_CONFIG_DIR: tempDir() });
    expect(code).toBe(0);
    expect(inputs.some((i) => i.includes('node_modules/commander/'))).toBe(true);
    expect(inputs.filter((i) => /node_modules\/undici\/|src\/sandbox\/|src\/resources\/[^/]+\/sandbox|^node:(crypto|http|https|net|tls)$/.test(i))).toEqual([]);
  });

  it('api with JSON output loads no prompts, spinners, tables, YAML, conf or sandbox; its request goes over undici, and only undici', async () => {
    const { code, inputs } = await loadedInputs(['api', '/user', '-o', 'json'], { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: sandbox.rootUrl, FORGECTL_TOKEN: sandbox.adminToken });
    expect(code).toBe(0);
    expect(inputs.some((i) => i.includes('src/commands/api.ts'))).toBe(true);
    expect(inputs.some((i) => i.includes('node_modules/undici/index.js'))).toBe(true);
    expect(inputs.filter((i) => HEAVY.test(i))).toEqual([]);
    // undici's entry is rewritten at build time to load each export when first read, and its HTTP/2 client's
    // node:http2 loads on first use, its node:assert when an assertion fails (scripts/lazy-undici.mjs): its fetch,
    // WebSocket, caches and mocks, and the modules they need, are not evaluated, and a request over http loads no tls
    // or crypto.
    expect(inputs.filter((i) => /^node:(zlib|worker_threads|dns|http2|tls|crypto|assert)$/.test(i))).toEqual([]);
  });

  it('api /user loads no resource declarations it does not use, and explains no refusal it did not get: no fleet selector, no lookups', async () => {
    const { code, inputs } = await loadedInputs(['api', '/user'], { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: sandbox.rootUrl, FORGECTL_TOKEN: sandbox.adminToken });
    expect(code).toBe(0);
    expect(inputs.filter((i) => /src\/cli\/refusal\.ts|src\/api\/lookups\.ts|src\/fleet\/select\.ts|src\/resources\/(users|groups|projects)\/resource\.ts/.test(i))).toEqual([]);
  });

  it('api /user reads what every request needs (the run\'s context, the HTTP and API clients) as one file of the bundle, not one each', async () => {
    const { code, inputs, files } = await loadedInputs(['api', '/user'], { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: sandbox.rootUrl, FORGECTL_TOKEN: sandbox.adminToken });
    expect(code).toBe(0);
    // Each file read and compiled costs a run about 0.2 ms whatever its size.
    expect(files.filter((file) => file.startsWith('dist/chunks/') && !file.includes('undici')).length).toBeLessThanOrEqual(10);
    expect(files).toContain('dist/chunks/request.js');
    const meta = JSON.parse(readFileSync(`${dist}meta.json`, 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
    const joined = Object.keys(meta.outputs['dist/chunks/request.js'].inputs);
    expect(joined).toEqual(expect.arrayContaining(['src/cli/context.ts', 'src/http/client.ts', 'src/api/client.ts']));
    expect(inputs.filter((input) => input === 'src/http/client.ts')).toHaveLength(1);
  });

  it('api /user loads Node\'s own modules under no V8 flag (so from Node\'s code cache), compiles undici\'s parser under --liftoff-only, and takes every file of the bundle from its code cache the second time', async () => {
    const cache = tempDir();
    const env = { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: sandbox.rootUrl, FORGECTL_TOKEN: sandbox.adminToken, XDG_CACHE_HOME: cache, NODE_OPTIONS: `--require ${v8FlagsPreload()}` };
    const first = await runBin(['api', '/user'], { env });
    expect(first.code).toBe(0);
    expect(first.stderr.split('\n').filter(Boolean)).toEqual(['WEBASSEMBLY liftoff-only']);
    const written = codeCacheFiles(cache);
    expect(written.size).toBeGreaterThan(3);
    expect(await runBin(['api', '/user'], { env })).toMatchObject({ code: 0, stdout: first.stdout, stderr: first.stderr });
    expect(codeCacheFiles(cache)).toEqual(written); // accepted, not compiled again
  });

  it('api graphql loads the GraphQL parser only: no execution, validation or schema of graphql-js, no sandbox', async () => {
    const env = { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: sandbox.rootUrl, FORGECTL_TOKEN: sandbox.adminToken };
    const { code, inputs } = await loadedInputs(['api', 'graphql', '-f', 'query={ currentUser { username } }'], env);
    expect(code).toBe(0);
    const graphql = inputs.filter((i) => i.includes('node_modules/graphql/'));
    expect(graphql).toContain('node_modules/graphql/language/parser.js');
    expect(graphql.filter((i) => /\/(execution|validation|type|utilities)\//.test(i))).toEqual([]);
    expect(inputs.filter((i) => /src\/sandbox\/|src\/resources\/[^/]+\/sandbox/.test(i))).toEqual([]);
  });

  it('--jq loads jq (and not the template library); --template loads the template library (and not jq)', async () => {
    const env = { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: sandbox.rootUrl, FORGECTL_TOKEN: sandbox.adminToken };
    const jq = await loadedInputs(['api', '/user', '--jq', '.id'], env);
    expect(jq.code).toBe(0);
    expect(jq.inputs.filter((i) => /jq-web\/jq\.js|dist\/chunks\/jq\.wasm|src\/output\/jq\.ts/.test(i))).toHaveLength(3);
    expect(jq.inputs.filter((i) => /liquidjs|src\/output\/template\.ts/.test(i))).toEqual([]);
    const template = await loadedInputs(['api', '/user', '--template', '{{ id }}'], env);
    expect(template.code).toBe(0);
    expect(template.inputs.some((i) => i.includes('node_modules/liquidjs/'))).toBe(true);
    expect(template.inputs.filter((i) => /jq-web|jq\.wasm|src\/output\/jq\.ts/.test(i))).toEqual([]);
  });
});

describe.skipIf(!built)('the bundle\'s chunks', () => {
  /** The sandbox's code: its kernel (src/sandbox/) and every resource's module (src/resources/<resource>/sandbox*.ts). */
  const SANDBOX = /^src\/sandbox\/|^src\/resources\/[^/]+\/sandbox(-[a-z-]+)?\.ts$/;
  /**
   * The client's own code: what the sandbox may not import (the linter's layers say so), so a chunk that holds some
   * of it is one a command loads. What both share is the leaves, git's object ids, http/url.ts and the declarations.
   */
  const CLIENT = /^src\/(commands|cli|output|config|download|fleet|desired)\/|^src\/main\.ts$|^src\/http\/(?!url\.ts)|^src\/api\/(client|paginate|pacer|lookups|multipart|errors|response|commit-actions|graphql)\.ts$|^src\/resources\/[^/]+\/(?!(resource|values|sandbox(-[a-z-]+)?)\.ts$)/;

  it('keep every sandbox module out of the client\'s: no chunk holds both', () => {
    const meta = JSON.parse(readFileSync(`${dist}meta.json`, 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
    const chunks = Object.entries(meta.outputs).map(([file, output]) => ({ file, inputs: Object.keys(output.inputs) }));
    const sandboxChunks = chunks.filter((chunk) => chunk.inputs.some((input) => SANDBOX.test(input)));
    // Every resource's module is in the bundle (for `forgectl sandbox`) …
    const modules = sandboxChunks.flatMap((chunk) => chunk.inputs).filter((input) => /^src\/resources\/[^/]+\/sandbox\.ts$/.test(input));
    expect(modules).toContain('src/resources/deploy-tokens/sandbox.ts');
    expect(modules.length).toBeGreaterThan(30);
    // … in chunks of the sandbox's own: none of them holds a line of the client.
    expect(sandboxChunks.map((chunk) => ({ file: chunk.file, client: chunk.inputs.filter((input) => CLIENT.test(input)) })).filter((chunk) => chunk.client.length)).toEqual([]);
  });
});

describe.skipIf(!built)('the code cache', () => {
  const build = built ? (JSON.parse(readFileSync(`${dist}package.json`, 'utf8')) as { build: string }).build : '';
  const folderOf = (cache: string) => join(cache, 'forgectl', 'code-cache', `${build}-${process.version}-${process.arch}`);
  // Help with an option before it comes from the bundle (the bin prints plain help itself, from dist/help.pack).
  const helpWith = (env: Record<string, string>) => runBin(['-q', 'freeze-periods', 'create', '--help'], { env: { FORGECTL_CONFIG_DIR: tempDir(), ...env } });

  it('is written on the first run, in a folder of this build and Node version only the user can reach, and used after', async () => {
    const cache = tempDir();
    const first = await helpWith({ XDG_CACHE_HOME: cache });
    expect(first.code).toBe(0);
    const folder = folderOf(cache);
    const files = readdirSync(folder);
    expect(files).toContain('core.js');
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const written = statSync(join(folder, 'core.js')).mtimeMs;
    const second = await helpWith({ XDG_CACHE_HOME: cache });
    expect(second).toMatchObject({ code: 0, stdout: first.stdout, stderr: '' });
    expect(statSync(join(folder, 'core.js')).mtimeMs).toBe(written); // used as it was, not compiled again
  });

  it('ignores damaged, truncated or foreign cache files and replaces them', async () => {
    const cache = tempDir();
    const clean = await helpWith({ XDG_CACHE_HOME: cache });
    const folder = folderOf(cache);
    const files = readdirSync(folder);
    expect(files.length).toBeGreaterThanOrEqual(3);
    files.forEach((file, index) => {
      const path = join(folder, file);
      const bytes = readFileSync(path);
      if (index % 3 === 0) for (let i = 8; i < bytes.length; i += 97) bytes[i] ^= 0x5a; // flipped bits inside
      writeFileSync(path, index % 3 === 1 ? bytes.subarray(0, bytes.length >> 1) : index % 3 === 2 ? Buffer.from('not a cache') : bytes);
    });
    const damaged = await helpWith({ XDG_CACHE_HOME: cache });
    expect(damaged).toMatchObject({ code: 0, stdout: clean.stdout, stderr: '' });
    const again = await helpWith({ XDG_CACHE_HOME: cache });
    expect(again).toMatchObject({ code: 0, stdout: clean.stdout, stderr: '' });
    expect(readFileSync(join(folder, files[2])).toString()).not.toBe('not a cache');
  });

  it('stays valid after a list long enough that V8\'s young generation was held and full collections were run (the flags set go back)', async () => {
    const big = await startTestSandbox({ users: 10_000, seed: 'empty' });
    try {
      const cache = tempDir();
      // A preload that says how large V8's young generation grew and how many full collections ran.
      const watch = `${tempDir()}/watch.cjs`;
      writeFileSync(watch, `const v8 = require('node:v8'); const { PerformanceObserver, constants } = require('node:perf_hooks'); let full = 0;
new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++; }).observe({ entryTypes: ['gc'] });
process.on('exit', () => process.stderr.write('YOUNG ' + v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size + ' FULL ' + full + '\\n'));`);
      const list = () =>
        new Promise<{ code: number | null; young: number; full: number }>((resolve) => {
          const child = spawn(process.execPath, ['--require', watch, BIN, 'users', 'list', '--all', '-o', 'ndjson'], { env: { PATH: process.env.PATH, ...big.env({ XDG_CACHE_HOME: cache }) } });
          let stderr = '';
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
          child.stdout.resume();
          child.on('close', (code) => {
            const [, young, full] = /^YOUNG (\d+) FULL (\d+)$/m.exec(stderr) ?? [];
            resolve({ code, young: Number(young), full: Number(full) });
          });
        });
      const first = await list();
      expect(first).toMatchObject({ code: 0, young: 4 * 1024 * 1024 });
      expect(first.full).toBeGreaterThan(0);
      const written = statSync(join(folderOf(cache), 'core.js')).mtimeMs;
      expect((await list()).code).toBe(0);
      expect(statSync(join(folderOf(cache), 'core.js')).mtimeMs).toBe(written); // accepted, not compiled again
    } finally {
      await big.close();
    }
  });

  it('is not used in a folder others can write to, nor with FORGECTL_NO_CODE_CACHE=1', async () => {
    const cache = tempDir();
    const folder = folderOf(cache);
    mkdirSync(folder, { recursive: true });
    chmodSync(folder, 0o777);
    expect((await helpWith({ XDG_CACHE_HOME: cache })).code).toBe(0);
    expect(readdirSync(folder)).toEqual([]);
    const off = tempDir();
    expect((await helpWith({ XDG_CACHE_HOME: off, FORGECTL_NO_CODE_CACHE: '1' })).code).toBe(0);
    expect(readdirSync(off)).toEqual([]);
  });

  it('drops the caches of other builds unused for a day when a new build writes its own, and keeps those in use', async () => {
    const cache = tempDir();
    const other = (build: string) => join(cache, 'forgectl', 'code-cache', `${build}-${process.version}-${process.arch}`);
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    const [old, recent] = [other('0123456789abcdef'), other('fedcba9876543210')];
    for (const folder of [old, recent]) {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      writeFileSync(join(folder, 'core.js'), 'cache');
    }
    utimesSync(old, twoDaysAgo, twoDaysAgo);
    expect((await helpWith({ XDG_CACHE_HOME: cache })).code).toBe(0);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(recent)).toBe(true); // another install used in turn keeps its cache
    expect(existsSync(folderOf(cache))).toBe(true);
    // A run that uses its cache marks it as in use.
    utimesSync(folderOf(cache), twoDaysAgo, twoDaysAgo);
    expect((await helpWith({ XDG_CACHE_HOME: cache })).code).toBe(0);
    expect(Date.now() - statSync(folderOf(cache)).mtimeMs).toBeLessThan(60 * 60 * 1000);
  });
});
