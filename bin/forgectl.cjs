#!/usr/bin/env node
'use strict';
/* global WebAssembly */
// The command-line entry. CommonJS on purpose: `forgectl --version`, and help (to a terminal, a pipe or a file), are
// answered here without loading the bundle (start-up time, see answeredHere below); everything else runs main()
// from the bundle, which this file loads itself (loadBundle below).
const argv = process.argv.slice(2);
const DAY = 24 * 60 * 60 * 1000;
// In the single executable (scripts/sea.mjs) this file is the main script, whose __filename is the executable, and
// the package's files are the executable's assets, named by their path in dist/ (see readDist).
const sea = __filename === process.execPath ? require('node:sea') : undefined;
/** The package's dist/ folder; in the single executable a path below the executable itself, where no file can be. */
const DIST = sea ? require('node:path').join(process.execPath, 'dist') : require('node:path').join(__dirname, '..', 'dist');
if (!answeredHere(argv)) {
  const v8 = require('node:v8');
  const flags = runFlags(v8);
  // undici's HTTP parser (WebAssembly; every request goes over undici) is compiled with the baseline compiler only,
  // as optimising it costs a CLI run more than it saves (a GET costs 1.7x the CPU without this flag, a 50,000-record
  // list 1.1x, and even a 1 GiB download spends under 2% of its time in the parser). The flags turn V8's optimising
  // tiers for WebAssembly off; --liftoff-only alone does on Node 20 and 22, but Node 24's V8 still tiers the parser
  // up in the background once it is hot (a 20-project list: about 30 ms of CPU on other threads, 1.6x a bare GET).
  beforeWebAssembly(() => flags.set('--liftoff-only --no-wasm-tier-up --no-wasm-dynamic-tiering', ['--no-liftoff-only', '--wasm-tier-up', '--wasm-dynamic-tiering']));
  const stopWatch = boundMemory(v8, flags, { young: 4 * 1024 * 1024, outside: 12 * 1024 * 1024 });
  // The first SIGINT or SIGTERM asks main() to stop (it says what was left undone); a second one kills at once. The
  // listener stays after the first: a library's signal-exit hook (ora's cursor restore, while a spinner turns) kills
  // the process with the signal when it finds itself the only listener left, before main() could say anything.
  const interrupted = new Promise((resolve) => {
    let received = false;
    const stop = (signal) => {
      if (received) {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        process.kill(process.pid, signal);
        return;
      }
      received = true;
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  // The standard streams are created on first use: each costs start-up time (stdin as a file loads fs streams,
  // fs/promises and readline). A reader that went away (`| head -1`) must not crash a write with EPIPE.
  const opened = new Set();
  const stream = (name) => {
    const value = process[name];
    if (!opened.has(name)) {
      opened.add(name);
      if (name !== 'stdin') value.on('error', () => undefined);
    }
    return value;
  };
  const deps = {
    env: process.env,
    interrupted,
    get stdin() {
      return stream('stdin');
    },
    get stdout() {
      return stream('stdout');
    },
    get stderr() {
      return stream('stderr');
    },
  };
  const bundle = loadBundle(DIST, flags);
  let stopped = false;
  interrupted.then(() => (stopped = true));
  bundle.exports.main(argv, deps).then((code) => {
    // The code compiled in this run goes to the cache, unless a signal stopped the run: whoever sent it may be
    // removing the folders around it (a test tearing down its home folder).
    stopWatch();
    if (!stopped) bundle.saveCodeCache();
    // Flush what was written, then exit at once: idle keep-alive sockets must not hold the process open.
    const flush = ['stdout', 'stderr'].filter((name) => opened.has(name));
    const next = () => (flush.length ? process[flush.shift()].write('', next) : process.exit(code));
    next();
  });
}

/**
 * The V8 flags a run sets, each from the moment it is needed (set), and a way to read and write the bundle's code
 * cache without them (forCodeCache). V8 stamps compiled code with the flags it was compiled under
 * (v8.cachedDataVersionTag()) and refuses a code cache stamped with others. Node's own modules come with a code
 * cache made under no flags: on Node 20 a module Node loads after a flag was set is compiled from its source, two to
 * four times the work (`api /user` cost 1.05x the CPU with its flags set from the start). The bundle's cache is made
 * and read under --verify-snapshot-checksum alone, so that a damaged cache file is refused instead of crashing the
 * process. `back` are the flags that return V8 to its defaults when a flag is lifted.
 */
function runFlags(v8) {
  const set = new Map();
  const apply = (names) => names.forEach((name) => v8.setFlagsFromString(name));
  return {
    set(flag, back) {
      if (set.has(flag)) return;
      v8.setFlagsFromString(flag);
      set.set(flag, back);
    },
    forCodeCache(work) {
      for (const back of set.values()) apply(back);
      v8.setFlagsFromString('--verify-snapshot-checksum');
      try {
        return work();
      } finally {
        v8.setFlagsFromString('--no-verify-snapshot-checksum');
        apply([...set.keys()]);
      }
    },
  };
}

/**
 * Calls `first` before the run's first WebAssembly module is compiled (undici compiles its HTTP parser with
 * `new WebAssembly.Module` at its first connection; jq with WebAssembly.instantiate), once.
 */
function beforeWebAssembly(first) {
  const { Module, compile, instantiate } = WebAssembly;
  WebAssembly.Module = new Proxy(Module, {
    construct(target, args, newTarget) {
      first();
      return Reflect.construct(target, args, newTarget);
    },
  });
  WebAssembly.compile = (...args) => (first(), compile(...args));
  WebAssembly.instantiate = (...args) => (first(), instantiate(...args));
}

/**
 * Keeps a long run's memory flat (a list of 50,000 records peaks about 15 MiB above one of 1,000, instead of 40),
 * watching V8's collections (a gc PerformanceObserver, no timer):
 * - V8's young generation stops growing once it has reached `young` bytes: under a stream of list pages it would grow
 *   to Node's default ceiling, 32 MiB. The ceiling can only be given on Node's command line, which
 *   `#!/usr/bin/env node` cannot; the growth factor can be set at any time (Node 20, 22 and 24).
 * - A full collection runs when the memory of ArrayBuffers outside V8's heap passes `outside` bytes at a young
 *   collection. The bytes of list pages and socket reads live there; a page that waits behind the pages before it
 *   survives young collections, is promoted, and is freed only by a full collection, which V8 starts late (each page
 *   would pile up to about 25 MiB first). V8's collector function is made once, when first needed (the flag that
 *   exposes it is turned off again at once: no other context gets it).
 * Returns what stops the watch.
 */
function boundMemory(v8, flags, { young, outside }) {
  const { PerformanceObserver, constants } = require('node:perf_hooks');
  let held = false;
  let collect;
  const observer = new PerformanceObserver((list) => {
    if (!held && v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size >= young) {
      flags.set('--semi-space-growth-factor=1', ['--semi-space-growth-factor=2']);
      held = true;
    }
    const minor = list.getEntries().some((entry) => entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR);
    if (minor && v8.getHeapStatistics().external_memory > outside) {
      if (!collect) {
        v8.setFlagsFromString('--expose-gc');
        collect = require('node:vm').runInNewContext('gc');
        v8.setFlagsFromString('--no-expose-gc');
      }
      collect();
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}

/**
 * Prints the version, or the help of a command or topic rendered at build time (dist/help.pack, scripts/help-texts.ts),
 * with one write to file descriptor 1: the bundle would load commander, and build the command tree, for a fixed
 * text. The texts are laid out here (dist/help-layout.cjs, the functions the bundle's help uses) to the width of the
 * terminal, or to 80 columns for a pipe, a file or /dev/null. Help is answered here only when the words name a
 * command, group or topic that has a text; anything else (options, unknown words: usage errors) goes to the bundle.
 * Returns whether it answered.
 */
function answeredHere(argv) {
  const fs = require('node:fs');
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    writeAll(fs, Buffer.from(`forgectl ${require('../package.json').version}\n`));
    return true;
  }
  const last = argv[argv.length - 1];
  const words = argv[0] === 'help' ? argv.slice(1) : last === '--help' || last === '-h' ? argv.slice(0, -1) : undefined;
  if (!words || !words.every((word) => /^[a-z][a-z0-9-]*$/.test(word))) return false;
  const width = helpWidth(fs);
  if (width === undefined) return false;
  // The texts are named as scripts/help-texts.ts writes them: forgectl~tokens~rotate.txt, help~exit-codes.txt.
  // `help WORD` is a topic first, as in the bundle.
  const names = [`${['forgectl', ...words].join('~')}.txt`];
  if (argv[0] === 'help' && words.length === 1) names.unshift(`help~${words[0]}.txt`);
  const help = packed(fs, 'help');
  for (const name of names) {
    let text;
    try {
      text = help(name);
    } catch {
      return false;
    }
    if (!text) continue;
    writeAll(fs, Buffer.from(require('../dist/help-layout.cjs').layoutDeferred(text.toString(), width)));
    return true;
  }
  return false;
}

/**
 * Reads the files scripts/build.mjs joined into dist/PACK.pack, by name (PACK.index.json gives each one's offset and
 * length): returns a function of the name that gives its bytes, or undefined for a name the pack has not. The index
 * is read on the first call, the pack opened on the first file read (and left open for the rest of the run).
 */
function packed(fs, pack) {
  let index;
  let read;
  const place = (name) => {
    index ??= JSON.parse(readDist(fs, `${pack}.index.json`).toString('utf8'));
    return Object.hasOwn(index, name) ? index[name] : undefined;
  };
  const file = (name) => {
    const at = place(name);
    if (!Array.isArray(at)) return undefined;
    read ??= packReader(fs, pack);
    return read(...at);
  };
  /** The name of the file of the pack that holds this one joined with others (scripts/build.mjs, joinFiles), if any. */
  file.joinedIn = (name) => {
    const at = place(name);
    return typeof at === 'string' ? at : undefined;
  };
  return file;
}

/** A function of (offset, length) giving those bytes of dist/PACK.pack: a view of the executable's asset, or read from the file. */
function packReader(fs, pack) {
  if (sea) {
    const bytes = sea.getRawAsset(`${pack}.pack`);
    return (offset, length) => Buffer.from(bytes, offset, length);
  }
  const file = require('node:path').join(DIST, `${pack}.pack`);
  const fd = fs.openSync(file, 'r');
  return (offset, length) => {
    const bytes = Buffer.allocUnsafe(length);
    for (let done = 0; done < length; ) {
      const read = fs.readSync(fd, bytes, done, length - done, offset + done);
      if (!read) throw new Error(`${file} is shorter than its index says: reinstall forgectl`);
      done += read;
    }
    return bytes;
  };
}

/** A file of dist/ by its path there: the file, or in the single executable the asset of that name. */
function readDist(fs, name) {
  return sea ? Buffer.from(sea.getAsset(name)) : fs.readFileSync(require('node:path').join(DIST, name));
}

/**
 * The bundle's require() of what it does not contain, in the single executable, where the main script's require()
 * knows Node's modules only. The keyring's native module is an asset: written to a private temporary folder, loaded
 * from there and removed (a native module loads from a file only). node:fs reads the files of dist/ that the bundle
 * reads by path (jq's jq.wasm, beside the bundled jq) from the assets: its readFileSync of a path below DIST, where no
 * file can be, gives the asset of that name; everything else is node:fs itself.
 */
function seaRequire(fs, path) {
  let assetFs;
  return (id) => {
    if (id === '@napi-rs/keyring') return assetAddon(fs, path, 'keyring.node');
    if (id !== 'fs' && id !== 'node:fs') return require(id);
    assetFs ??= Object.defineProperties({}, {
      ...Object.getOwnPropertyDescriptors(fs),
      readFileSync: {
        value: (file, options) => {
          const name = typeof file === 'string' && file.startsWith(`${DIST}${path.sep}`) ? path.relative(DIST, file).split(path.sep).join('/') : undefined;
          if (name === undefined) return fs.readFileSync(file, options);
          const bytes = readDist(fs, name);
          const encoding = typeof options === 'string' ? options : options?.encoding;
          return encoding ? bytes.toString(encoding) : bytes;
        },
      },
    });
    return assetFs;
  };
}

function assetAddon(fs, path, name) {
  const folder = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'forgectl-'));
  try {
    const file = path.join(folder, name);
    fs.writeFileSync(file, new Uint8Array(sea.getRawAsset(name)), { mode: 0o700 });
    const module = { exports: {} };
    process.dlopen(module, file);
    return module.exports;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * The width help is laid out to, as the bundle chooses it: a terminal's columns (asked of the terminal's stream,
 * the one stream created here), else 80 for a pipe, a socket, a file or /dev/null. Undefined when stdout is closed
 * or something else: the bundle answers then.
 */
function helpWidth(fs) {
  try {
    const stat = fs.fstatSync(1);
    if (stat.isFIFO() || stat.isFile() || stat.isSocket() || (stat.isCharacterDevice() && stat.rdev === fs.statSync('/dev/null').rdev)) return 80;
    if (require('node:tty').isatty(1)) return process.stdout.columns || 80;
  } catch {
    // closed: the bundle says so
  }
  return undefined;
}

/**
 * Writes all of bytes to stdout, waiting while a non-blocking pipe is full (EAGAIN). A reader that went away
 * (`| head -1`: EPIPE) or any other failure ends the writing quietly, as a write error on stdout does in the bundle.
 */
function writeAll(fs, bytes) {
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += fs.writeSync(1, bytes, offset);
    } catch (error) {
      if (error.code !== 'EAGAIN') return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/**
 * Loads dist/main.js and the chunks it requires (CommonJS, written by scripts/build.mjs; the chunks joined into
 * dist/chunks.pack, each read from there by its name under dist/chunks/, see packed()) with V8's code
 * cache: a file whose compiled code is in the cache is not compiled again, and saveCodeCache() saves the code of
 * the files compiled in this run. The cache lives in the user's cache folder, one folder per build of
 * forgectl and version of Node; a cache that is missing, stale, damaged (V8 checks its checksum) or not the
 * user's own is ignored.
 * FORGECTL_NO_CODE_CACHE=1 (or NODE_DISABLE_COMPILE_CACHE=1) turns it off.
 */
function loadBundle(dist, flags) {
  const fs = require('node:fs');
  const path = require('node:path');
  const vm = require('node:vm');
  const cache = codeCacheDir(dist, fs, path);
  const compiled = [];
  const chunks = path.join(dist, 'chunks');
  const chunk = packed(fs, 'chunks');
  /**
   * Compiles a file, from the cache if it can: each is written by the build as a function of (exports, require,
   * module, __filename, __dirname).
   */
  const compile = (file) => {
    const code = path.dirname(file) === chunks ? chunk(path.basename(file)) : readDist(fs, path.relative(dist, file));
    if (!code) throw new Error(`${file} is not in ${chunks}.pack: reinstall forgectl`);
    const source = code.toString('utf8');
    const cacheFile = cache && path.join(cache, path.relative(dist, file).replace(/[\\/]/g, '~'));
    const cachedData = cacheFile ? readQuietly(fs, cacheFile) : undefined;
    const script = flags.forCodeCache(() => new vm.Script(source, { filename: file, cachedData }));
    if (cacheFile && (!cachedData || script.cachedDataRejected)) compiled.push({ script, cacheFile });
    return script.runInThisContext();
  };
  // The files every run needs are joined in core.js (scripts/build.mjs): one file to read and compile.
  const core = { exports: {} };
  compile(path.join(dist, 'core.js'))(core.exports, require, core, path.join(dist, 'core.js'), dist);
  const modules = new Map();
  const external = sea ? seaRequire(fs, path) : require;
  // Modules by their name below dist/ ('main.js', 'chunks/chunk-X.js'), as core.js names them: a bundle's hundreds of
  // require() calls are resolved by joining names, not paths.
  const load = (name) => {
    const known = modules.get(name);
    if (known) return known.exports;
    const module = { exports: {} };
    modules.set(name, module);
    const folder = name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : '';
    const localRequire = (id) => (id.startsWith('./') || id.startsWith('../') ? load(joinName(folder, id)) : external(id));
    const file = path.join(dist, name);
    factoryOf(name, file)(module.exports, localRequire, module, file, path.dirname(file));
    return module.exports;
  };
  // Files joined into one (core.js, and chunks/request.js: scripts/build.mjs) hold their modules' functions by name.
  const joined = new Map([['core.js', core.exports]]);
  const factoryOf = (name, file) => {
    if (core.exports[name]) return core.exports[name];
    const group = path.dirname(file) === chunks ? chunk.joinedIn(path.basename(file)) : undefined;
    if (group === undefined) return compile(file);
    if (!joined.has(group)) {
      const holder = { exports: {} };
      const groupFile = path.join(chunks, group);
      compile(groupFile)(holder.exports, require, holder, groupFile, chunks);
      joined.set(group, holder.exports);
    }
    return joined.get(group)[name];
  };
  return { exports: load('main.js'), saveCodeCache: () => cache && saveCodeCache(fs, path, cache, compiled, flags) };
}

/** A relative module name ('./x.js', '../y/x.js') from a folder below dist/ ('' or 'chunks'), as a name below dist/. */
function joinName(folder, id) {
  const parts = folder ? folder.split('/') : [];
  for (const part of id.split('/')) {
    if (part === '..') parts.pop();
    else if (part !== '.') parts.push(part);
  }
  return parts.join('/');
}

/** The cache folder of this build and Node version, or undefined when caching is off or the folder is unsafe. */
function codeCacheDir(dist, fs, path) {
  const env = process.env;
  if (env.FORGECTL_NO_CODE_CACHE === '1' || env.NODE_DISABLE_COMPILE_CACHE === '1') return undefined;
  let build;
  try {
    build = JSON.parse(readDist(fs, 'package.json').toString('utf8')).build;
  } catch {
    return undefined;
  }
  if (!/^[0-9a-f]{8,}$/.test(build ?? '')) return undefined;
  const home = env.HOME || env.USERPROFILE;
  const root = env.XDG_CACHE_HOME || (process.platform === 'win32' ? env.LOCALAPPDATA : home && path.join(home, process.platform === 'darwin' ? 'Library/Caches' : '.cache'));
  if (!root || !path.isAbsolute(root)) return undefined;
  const dir = path.join(root, 'forgectl', 'code-cache', `${build}-${process.version}-${process.arch}`);
  const own = ownFolder(fs, dir);
  if (own === false) return undefined;
  // A cache in use is marked so (its folder's time, at most once a day): another build removes only caches unused for
  // a day (saveCodeCache).
  if (own && Date.now() - own.mtimeMs > DAY / 2) {
    try {
      fs.utimesSync(dir, new Date(), new Date());
    } catch {
      // Only a mark.
    }
  }
  return dir;
}

/** The folder's stat when it is the user's own and writable by nobody else; false when not; undefined: it does not exist. */
function ownFolder(fs, dir) {
  let stat;
  try {
    stat = fs.statSync(dir);
  } catch {
    return undefined;
  }
  return stat.isDirectory() && (!process.getuid || (stat.uid === process.getuid() && (stat.mode & 0o022) === 0)) && stat;
}

function readQuietly(fs, file) {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Writes the code of the files compiled in this run (each atomically: a temporary file renamed into place), in a
 * folder only the user can write to. The first run of a new build also removes the caches of other builds that have
 * not been used for a day: two builds used in turn (a global install and a project's, two versions) keep theirs.
 */
function saveCodeCache(fs, path, cache, compiled, flags) {
  if (!compiled.length) return;
  try {
    if (!fs.existsSync(cache)) {
      fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
      const build = path.basename(cache).split('-')[0];
      for (const other of fs.readdirSync(path.dirname(cache))) {
        const folder = path.join(path.dirname(cache), other);
        if (!other.startsWith(`${build}-`) && Date.now() - fs.statSync(folder).mtimeMs > DAY) fs.rmSync(folder, { recursive: true, force: true });
      }
    }
    if (!ownFolder(fs, cache)) return;
    for (const { script, cacheFile } of compiled) {
      const temporary = `${cacheFile}.${process.pid}.tmp`;
      try {
        fs.writeFileSync(temporary, flags.forCodeCache(() => script.createCachedData()), { mode: 0o600 });
        fs.renameSync(temporary, cacheFile);
      } catch (error) {
        // A full disk must not also collect a temporary file per run.
        fs.rmSync(temporary, { force: true });
        throw error;
      }
    }
  } catch {
    // A cache that cannot be written is only slower start-up next time.
  }
}
