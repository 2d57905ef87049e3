import { defineCommand, type Context } from '../cli/command.js';
import { TextResult } from '../output/result.js';
import { UsageError } from '../errors.js';
import { parseByteSize, parseChoice, parseInteger, parseRateLimit, shellQuote } from '../parse.js';

interface Options {
  port: number;
  host: string;
  seed: 'demo' | 'empty';
  users: number;
  fleet: number;
  rateLimit?: { limit: number; periodSeconds: number };
  latency: number;
  tier: 'free' | 'premium' | 'ultimate';
  state?: string;
  tls?: boolean;
  caOut?: string;
  printEnv?: boolean;
  detach?: boolean;
  artifactSize?: number;
}

/** A failure to listen as a usage error (exit 2): the port is taken, or not ours to take. */
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const reasons: Record<string, string> = {
    EADDRINUSE: 'the port is in use',
    EACCES: 'permission denied (ports below 1024 need privileges)',
    EADDRNOTAVAIL: 'no such address on this machine',
    ENOTFOUND: 'no such host',
  };
  if (code && reasons[code]) return new UsageError(`cannot listen on ${host}:${port}: ${reasons[code]}`, 'choose another --port, or --port 0 for any free port');
  return error;
}

/**
 * `--print-env --detach`: starts the sandbox as a background process of its own, waits until it listens, prints its
 * export lines and returns. The background process keeps none of this process's output open, so
 * `eval "$(forgectl sandbox --print-env --detach)"` returns at once (a plain `&` inside `$(…)` waits forever).
 */
async function startDetached(opts: Options, ctx: Context): Promise<TextResult> {
  const { spawn } = await import('node:child_process');
  const args = ['sandbox', '--print-env', '--port', String(opts.port), '--host', opts.host, '--seed', opts.seed, '--users', String(opts.users), '--latency', String(opts.latency), '--tier', opts.tier];
  if (opts.fleet) args.push('--fleet', String(opts.fleet));
  if (opts.rateLimit) args.push('--rate-limit', `${opts.rateLimit.limit}/${opts.rateLimit.periodSeconds}`);
  if (opts.state) args.push('--state', opts.state);
  if (opts.tls) args.push('--tls');
  if (opts.caOut) args.push('--ca-out', opts.caOut);
  if (opts.artifactSize) args.push('--artifact-size', String(opts.artifactSize));
  // The same forgectl (bin and Node) as this run: process globals are read here on purpose, to start a copy of it.
  // The single executable is Node and forgectl in one: no script follows its path.
  const self = (await import('node:sea')).isSea() ? [] : [process.argv[1]];
  const child = spawn(process.execPath, [...self, ...args], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...ctx.env, [DETACHED_ENV]: '1' } as NodeJS.ProcessEnv });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  // Its notes and export lines come on stdout, in order, ending with its process id: no race with its stderr.
  const ready = await new Promise<boolean>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/^export FORGECTL_SANDBOX_PID=\d+\n/m.test(out)) resolve(true);
    });
    child.on('exit', () => resolve(false));
  });
  if (!ready) {
    const message = err.split('\n').find((line) => line.startsWith('error: '))?.slice(7) ?? 'the background sandbox did not start';
    throw new UsageError(message, err.split('\n').find((line) => line.startsWith('hint: '))?.slice(6));
  }
  // Let it run on its own: no pipes back to this process, not waited for.
  child.stdout.destroy();
  child.stderr.destroy();
  child.unref();
  const lines = out.split('\n').filter(Boolean);
  for (const line of lines.filter((l) => l.startsWith(NOTE_PREFIX))) ctx.io.note(line.slice(NOTE_PREFIX.length));
  ctx.io.note(`forgectl sandbox runs in the background (process ${child.pid}); stop it with: kill ${child.pid}`);
  return new TextResult(lines.filter((line) => line.startsWith('export ')).map((line) => `${line}\n`).join(''));
}

/** Set in the environment of the background copy `--detach` starts: it serves detached, and its parent passes its notes on. */
const DETACHED_ENV = 'FORGECTL_INTERNAL_SANDBOX_DETACHED';
/** How the background copy marks a note among its export lines (a shell comment, were it ever read by a shell). */
const NOTE_PREFIX = '# note: ';

export default defineCommand<Options>({
  description: 'A simulated instance on loopback with in-memory state: the same paths, status codes, error bodies, pagination headers and state machines as the real service. /-/sandbox/faults injects errors for tests. Runs until interrupted (Ctrl-C), or in the background with --print-env --detach.',
  credentials: false,
  examples: [
    'forgectl sandbox',
    'eval "$(forgectl sandbox --print-env --detach)"   # in the background, FORGECTL_URL and FORGECTL_TOKEN set in this shell',
    'kill $FORGECTL_SANDBOX_PID                        # stops it',
    'forgectl sandbox --port 8080 --users 20000 --latency 20 --state /tmp/sandbox.json',
    'forgectl sandbox --tls --ca-out /tmp/sandbox-ca.pem',
    'forgectl sandbox --fleet 500 --rate-limit 2000   # 500 more projects under acme; 2,000 requests a minute',
  ],
  options: [
    { flags: '--port <n>', description: 'port to listen on (0: any free port)', parse: parseInteger('--port', 0, 65535), default: 0 },
    { flags: '--host <host>', description: 'address to listen on', default: '127.0.0.1' },
    { flags: '--seed <name>', description: 'demo (group acme with projects) or empty', parse: parseChoice('--seed', ['demo', 'empty'] as const), default: 'demo' },
    { flags: '--users <n>', description: 'extra users user1…userN', parse: parseInteger('--users', 0, 1_000_000), default: 0 },
    { flags: '--fleet <n>', description: 'with the demo seed: n more projects in nested subgroups of acme (acme/team-01/squad-1/svc-001 …)', parse: parseInteger('--fleet', 0, 100_000), default: 0 },
    { flags: '--rate-limit <n[/seconds]>', description: 'refuse API requests beyond n per period (default 60 s) with 429 and Retry-After', parse: parseRateLimit('--rate-limit') },
    { flags: '--latency <ms>', description: 'delay every API response', parse: parseInteger('--latency', 0, 60_000), default: 0 },
    { flags: '--tier <tier>', description: 'free, premium or ultimate', parse: parseChoice('--tier', ['free', 'premium', 'ultimate'] as const), default: 'ultimate' },
    { flags: '--state <file>', description: 'load state from this JSON file, and save it there (mode 0600) at start, after each change and when stopped' },
    { flags: '--tls', description: 'serve HTTPS with a generated self-signed certificate' },
    { flags: '--ca-out <file>', description: 'with --tls: where to write the certificate (for --ca-file)' },
    { flags: '--print-env', description: 'print export lines for FORGECTL_URL and FORGECTL_TOKEN once listening' },
    { flags: '--artifact-size <size>', description: "size of a large file in the demo's build artifacts (acme/api, main), e.g. 200MB, for download tests", parse: parseByteSize('--artifact-size', 4 * 1024 ** 3 - 1024 ** 2) },
    { flags: '--detach', description: 'with --print-env: keep serving in the background and return (adds FORGECTL_SANDBOX_PID)' },
  ],
  async run(opts, ctx) {
    if (opts.fleet && opts.seed === 'empty') throw new UsageError('--fleet needs the demo seed (its projects live in group acme)');
    if (opts.detach) {
      if (!opts.printEnv) throw new UsageError('--detach goes with --print-env', 'eval "$(forgectl sandbox --print-env --detach)"');
      return startDetached(opts, ctx);
    }
    const { startSandbox } = await import('../sandbox/server.js');
    const { sandboxEnv } = await import('../sandbox/routes/index.js');
    const sandbox = await startSandbox({
      port: opts.port,
      host: opts.host,
      seed: opts.seed,
      users: opts.users,
      fleet: opts.fleet,
      rateLimit: opts.rateLimit,
      latencyMs: opts.latency,
      tier: opts.tier,
      stateFile: opts.state,
      tls: opts.tls,
      caFile: opts.caOut,
      artifactSize: opts.artifactSize,
    }).catch((error: unknown) => {
      throw listenError(error, opts.host, opts.port);
    });
    const env = { FORGECTL_URL: sandbox.rootUrl, FORGECTL_TOKEN: sandbox.adminToken, ...sandboxEnv(sandbox) };
    // Bound to every interface, the URL is loopback's: 0.0.0.0 is not an address a client can connect to.
    const { ALL_INTERFACES } = await import('../sandbox/listen.js');
    const everywhere = ALL_INTERFACES.has(opts.host) ? `it listens on all interfaces (--host ${opts.host}): other machines reach it at this machine's addresses, ${sandbox.rootUrl} is this machine's` : undefined;
    const exports = Object.entries(env).map(([k, v]) => `export ${k}=${shellQuote(v)}\n`).join('');
    const certificate = sandbox.caFile ? `# certificate for --ca-file: ${sandbox.caFile}` : undefined;
    if (ctx.env[DETACHED_ENV]) {
      // The background copy of `--detach`: one write its parent reads in order, the process id last (what it waits for).
      const notes = [everywhere, certificate].filter((note) => note !== undefined).map((note) => `${NOTE_PREFIX}${note}\n`);
      // A process global on purpose: the id the parent's `kill` needs is this process's own.
      await ctx.io.out(`${notes.join('')}${exports}export FORGECTL_SANDBOX_PID=${process.pid}\n`);
    } else if (opts.printEnv) {
      if (everywhere) ctx.io.note(everywhere);
      await ctx.io.out(exports);
      // Read by `eval "$(…)"`, which waits for the output to end: that is when the sandbox stops.
      if (!ctx.io.stdoutIsTTY) ctx.io.note('the sandbox serves in the foreground until stopped (Ctrl-C), and what reads this waits as long: eval "$(forgectl sandbox --print-env --detach)" returns at once, the sandbox in the background');
    } else {
      await ctx.io.out(`forgectl sandbox listening on ${sandbox.rootUrl} (tier ${sandbox.tier})\nadministrator token (root): ${sandbox.adminToken}\n`);
      if (everywhere) ctx.io.note(everywhere);
      ctx.io.note(`try: FORGECTL_URL=${sandbox.rootUrl} FORGECTL_TOKEN=… forgectl auth status   (stop with Ctrl-C)`);
    }
    if (certificate && !ctx.env[DETACHED_ENV]) ctx.io.note(certificate);
    // Serves until SIGINT or SIGTERM; the run then ends with 130 or 143 and this line.
    ctx.io.state.interruptNote = opts.state ? `the sandbox stopped (its state is saved in ${opts.state})` : 'the sandbox stopped (its state is gone: keep it with --state FILE)';
    const { saveState } = await import('../sandbox/state.js');
    await ctx.interrupted;
    // Written on every stop, not only after a change, so the next run loads what this one ended with; at once (no
    // await before it), as the run ends with the signal as soon as this turn is over.
    if (opts.state) {
      try {
        saveState(sandbox.db, opts.state);
      } catch (error) {
        ctx.io.state.interruptNote = `the sandbox stopped, and its state could not be saved: ${(error as Error).message}`;
      }
    }
    await sandbox.close();
    return undefined;
  },
});
