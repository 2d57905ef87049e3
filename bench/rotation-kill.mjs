// Kill-point benchmark of cron rotation (issue 10). A loopback proxy in front of the sandbox logs when the rotate
// POST arrives and when its answer has been written to the client's socket. The bench starts
// `forgectl -p bot tokens rotate self --group acme --save-to-profile --yes` and kills it with SIGKILL at a random
// point: before the request is sent, while it is in flight (the proxy holds request and answer a few ms each, as a
// network would), or 0–100 ms after the answer was written. Then it runs the next cron invocation and
// `tokens recover`, and classifies the kill:
//   healed      the profile's token works afterwards (the rotation completed, was finished from its recovery
//               file, or never happened and the next run rotated);
//   unavoidable the profile is locked out, but the process could not have read the answer: it died before the
//               answer was written, or with the answer unread in its socket (the kernel then resets the connection
//               instead of closing it: the proxy sees ECONNRESET);
//   avoidable   the profile is locked out although the process had read the answer, or no rotation was sent.
// It also counts false alarms: `tokens recover --list` exiting 9 after the profile was healed.
// Exit status: 1 on any avoidable lockout or false alarm, else 0.
//
// With MODE=ci-var each rotation also saves to a CI/CD variable (--save-to ci-var:acme/KILL_<n>, made beforehand, masked
// but not hidden so that the bench can read it back as root, holding the bot's token), and a kill counts as healed
// only when the token the variable holds works too after the next run and `tokens recover` (a job reading it
// authenticates); otherwise it is "unfinished". With MODE=ci-job the run is a CI job's: no profile, the token comes
// from the variable (FORGECTL_TOKEN), and the variable is the only target; the next run is handed the variable as it
// is then.
// Besides the verdicts it counts the kills the next run alone did not finish (the credentials the next run uses, and
// every target, work without `tokens recover`; unavoidable lockouts aside) and the empty recovery files left behind.
//
// With OWNER=service-account the token is an instance service account's (svc-kill, a Maintainer of acme so that it
// may write the group's variables), rotating itself: `tokens rotate self --personal`. With OWNER=service-account-admin
// (MODE=ci-var) an administrator's cron rotates the account's token by id, `tokens rotate <id> --service-account
// svc-kill --save-to ci-var:acme/KILL_<n>`: the variable is the only copy, so a kill counts as healed when the token
// it holds works after the next run and `tokens recover`.
//
// Run: npm run bench:rotation-kill   (KILLS=120 SEED=1 MODE=ci-var to change; FORGECTL_BIN=path/to/bin/forgectl.cjs to
// probe another build)
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startSandboxProcess } from './sandbox.mjs';

const KILLS = Number(process.env.KILLS ?? 120);
const MODE = process.env.MODE ?? 'profile';
if (!['profile', 'ci-var', 'ci-job'].includes(MODE)) throw new Error(`MODE is profile, ci-var or ci-job, not ${MODE}`);
const VARIABLE = MODE !== 'profile';
const OWNER = process.env.OWNER ?? 'group';
if (!['group', 'service-account', 'service-account-admin'].includes(OWNER)) throw new Error(`OWNER is group, service-account or service-account-admin, not ${OWNER}`);
if (OWNER === 'service-account-admin' && MODE !== 'ci-var') throw new Error('OWNER=service-account-admin rotates into a CI/CD variable: give MODE=ci-var');
/** The administrator rotates the service account's token: the variable is the credential that must survive. */
const BY_ADMIN = OWNER === 'service-account-admin';
const SEED = Number(process.env.SEED ?? Date.now() % 100_000);
const bin = process.env.FORGECTL_BIN ?? new URL('../bin/forgectl.cjs', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'forgectl-bench-kill-'));

/** mulberry32: the kill points are reproducible from the seed (the timing of the machine is not). */
let state = SEED >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const uniform = (low, high) => low + random() * (high - low);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The sandbox runs as its own process, so the proxy's timing does not compete with it for an event loop.
const { process: sandbox, env: sandboxEnv } = await startSandboxProcess(bin);
const upstream = new URL(sandboxEnv.FORGECTL_URL);

/** What the proxy saw of the current trial. */
let trial = newTrial();
function newTrial() {
  return { requestDelay: 0, answerDelay: 0, postAt: undefined, answerAt: undefined, postSocket: undefined, onPost: undefined, onAnswer: undefined };
}
const sockets = new Map();

const agent = new http.Agent({ keepAlive: true });
const proxy = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    const info = sockets.get(req.socket);
    if (info.answerAt !== undefined) info.requestAfterAnswer = true;
    const isRotate = req.method === 'POST' && /\/rotate$/.test(req.url);
    const current = trial;
    if (isRotate) {
      current.postAt = performance.now();
      current.postSocket = info;
      current.onPost?.();
      await sleep(current.requestDelay);
    }
    const headers = { ...req.headers, host: upstream.host };
    delete headers.connection;
    const answer = await new Promise((resolve) => {
      const forward = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers, agent }, (up) => {
        const body = [];
        up.on('data', (chunk) => body.push(chunk));
        up.on('end', () => resolve({ status: up.statusCode, headers: up.headers, body: Buffer.concat(body) }));
      });
      forward.on('error', () => resolve({ status: 502, headers: {}, body: Buffer.from('{"message":"502 proxy"}') }));
      forward.end(Buffer.concat(chunks));
    });
    if (isRotate) await sleep(current.answerDelay);
    const out = { ...answer.headers };
    for (const name of ['connection', 'keep-alive', 'transfer-encoding']) delete out[name];
    out['content-length'] = String(answer.body.length);
    if (req.socket.destroyed) return;
    res.on('error', () => undefined);
    res.writeHead(answer.status, out);
    res.end(answer.body, () => {
      if (!isRotate) return;
      current.answerAt = performance.now();
      info.answerAt = current.answerAt;
      current.onAnswer?.();
    });
  });
});
proxy.on('connection', (socket) => {
  const info = { answerAt: undefined, requestAfterAnswer: false, reset: false, closedAt: undefined };
  sockets.set(socket, info);
  socket.on('error', (error) => (info.reset ||= error.code === 'ECONNRESET'));
  socket.on('close', () => (info.closedAt = performance.now()));
});
proxy.keepAliveTimeout = 30_000;
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const proxyUrl = `http://127.0.0.1:${proxy.address().port}`;

async function api(method, path, body, token = sandboxEnv.FORGECTL_TOKEN) {
  const response = await fetch(`${upstream.origin}/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': token, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

function run(argv, env) {
  const started = performance.now();
  const child = spawn(process.execPath, [bin, ...argv], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stdout.resume();
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr, ms: performance.now() - started })));
  return { child, started, done };
}

const expiry = new Date(Date.now() + 60 * 86_400_000).toISOString().slice(0, 10);
/** The instance service account whose tokens are rotated (OWNER=service-account…): a Maintainer of acme. */
async function serviceAccount() {
  const made = await api('POST', '/service_accounts', { username: 'svc-kill', name: 'Kill-point bench' });
  if (made.status !== 201) throw new Error(`could not create the service account: ${made.status}`);
  const member = await api('POST', '/groups/acme/members', { user_id: made.body.id, access_level: 40 });
  if (member.status !== 201) throw new Error(`could not make the service account a Maintainer of acme: ${member.status}`);
  return made.body;
}
const account = OWNER === 'group' ? undefined : await serviceAccount();

/** A new token of the owner: a bot's of group acme, or the service account's (made by the administrator). */
async function newToken(n) {
  const fields = { name: `kill-${n}`, scopes: ['api'], expires_at: expiry };
  const created = account
    ? await api('POST', `/users/${account.id}/personal_access_tokens`, fields)
    : await api('POST', '/groups/acme/access_tokens', { ...fields, access_level: 40 });
  if (created.status !== 201) throw new Error(`could not create a token: ${created.status}`);
  return created.body;
}

/** A fresh token and a config folder whose profile "bot" reaches the sandbox through the proxy (the administrator's, BY_ADMIN). */
async function freshBot(n) {
  const created = { body: await newToken(n) };
  const dir = join(work, `trial-${n}`);
  mkdirSync(dir, { mode: 0o700 });
  const profileToken = BY_ADMIN ? sandboxEnv.FORGECTL_TOKEN : created.body.token;
  if (MODE !== 'ci-job') writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'bot', profiles: { bot: { url: proxyUrl, token: profileToken } } }), { mode: 0o600 });
  if (VARIABLE) {
    // The variable holds the bot's token, as the cron run before this one left it.
    const variable = await api('POST', '/groups/acme/variables', { key: variableKey(n), value: created.body.token, masked: true, protected: true, raw: true });
    if (variable.status !== 201) throw new Error(`could not create variable ${variableKey(n)}: ${variable.status}`);
  }
  // A CI job is handed the variable as it is when the job starts.
  const env = async () => (MODE === 'ci-job' ? { FORGECTL_CONFIG_DIR: dir, FORGECTL_URL: proxyUrl, FORGECTL_TOKEN: await variableValue(n) } : { FORGECTL_CONFIG_DIR: dir });
  return { dir, n, env, argv: rotateArgv(n, created.body.id) };
}
const variableKey = (n) => `KILL_${String(n).replace(/\W/g, '_')}`;
const rotated = (id) => ({ group: ['self', '--group', 'acme'], 'service-account': ['self', '--personal'], 'service-account-admin': [String(id), '--service-account', 'svc-kill'] })[OWNER];
const rotateArgv = (n, id) => [
  ...(MODE === 'ci-job' ? [] : ['-p', 'bot']), '-q', 'tokens', 'rotate', ...rotated(id), '--yes',
  ...(MODE === 'ci-job' || BY_ADMIN ? [] : ['--save-to-profile']),
  ...(VARIABLE ? ['--save-to', `ci-var:acme/${variableKey(n)}`] : []),
];
const variableValue = async (n) => (await api('GET', `/groups/acme/variables/${variableKey(n)}`)).body?.value;
const selfRoute = account ? '/personal_access_tokens/self' : '/groups/acme/access_tokens/self';
const authenticates = async (token) => typeof token === 'string' && (await api('GET', selfRoute, undefined, token)).status === 200;
/** With a variable: the token it holds works (a job reading it authenticates). */
const variableWorks = async (n) => !VARIABLE || authenticates(await variableValue(n));
/** The credential the next run starts from works: the profile's token, or (a CI job) the variable's. */
const credentialWorks = async (bot) => (MODE === 'ci-job' || BY_ADMIN ? variableWorks(bot.n) : authenticates(profileToken(bot.dir)));
const profileToken = (dir) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.bot.token;
/** Recovery files of a trial: those holding a token (pending), and empty ones (litter). */
function recoveryFiles(dir) {
  let names = [];
  try {
    names = readdirSync(join(dir, 'recovery')).filter((name) => name.endsWith('.json'));
  } catch {
    return { pending: 0, empty: 0 };
  }
  const sizes = names.map((name) => statSync(join(dir, 'recovery', name)).size);
  return { pending: sizes.filter((size) => size > 0).length, empty: sizes.filter((size) => size === 0).length };
}

// Calibration: how long an undisturbed run takes to send its rotate request (the range of "before the send").
const spawnToPost = [];
for (let i = 0; i < 3; i++) {
  const bot = await freshBot(`calibrate-${i}`);
  trial = newTrial();
  const running = run(bot.argv, await bot.env());
  trial.onPost = () => spawnToPost.push(trial.postAt - running.started);
  const result = await running.done;
  if (result.code !== 0) throw new Error(`an undisturbed rotation failed (exit ${result.code}): ${result.stderr}`);
}
spawnToPost.sort((a, b) => a - b);
const beforeWindow = spawnToPost[1];

const results = [];
for (let n = 0; n < KILLS; n++) {
  const bot = await freshBot(n);
  trial = newTrial();
  trial.requestDelay = uniform(0, 30);
  trial.answerDelay = uniform(0, 30);
  const phase = ['before', 'in flight', 'after'][Math.floor(random() * 3)];
  const running = run(bot.argv, await bot.env());
  let killAt;
  const kill = () => {
    if (killAt !== undefined || running.child.exitCode !== null) return;
    killAt = performance.now();
    running.child.kill('SIGKILL');
  };
  const offset = phase === 'before' ? uniform(0, beforeWindow) : phase === 'in flight' ? uniform(0, trial.requestDelay + trial.answerDelay) : uniform(0, VARIABLE ? 300 : 100);
  if (phase === 'before') setTimeout(kill, offset);
  else if (phase === 'in flight') trial.onPost = () => setTimeout(kill, offset);
  else trial.onAnswer = () => setTimeout(kill, offset);
  const killed = await running.done;
  await sleep(20); // let the proxy see the connection close
  const seen = trial;
  const socket = seen.postSocket;
  trial = newTrial(); // the runs below are not watched

  const next = await run(bot.argv, await bot.env()).done;
  // Finished by the next run alone: its credential and every target work, and no recovery file waits.
  const nextFinished = (await credentialWorks(bot)) && (await variableWorks(n)) && recoveryFiles(bot.dir).pending === 0;
  const recover = await run([...(MODE === 'ci-job' ? [] : ['-p', 'bot']), '-q', 'tokens', 'recover'], await bot.env()).done;
  const list = await run(['-q', 'tokens', 'recover', '--list'], await bot.env()).done;
  const works = await credentialWorks(bot);
  const variableDone = await variableWorks(n);
  const litter = recoveryFiles(bot.dir).empty;

  // Could the process have read the answer before it died?
  let answer;
  if (seen.postAt === undefined || (killAt !== undefined && killAt < seen.postAt)) answer = 'no request';
  else if (socket.answerAt === undefined || (killAt !== undefined && killAt < socket.answerAt) || (socket.closedAt !== undefined && socket.closedAt < socket.answerAt)) answer = 'not delivered';
  else if (socket.requestAfterAnswer || !socket.reset) answer = 'read';
  else answer = 'unread';
  const when = killAt === undefined ? 'finished before the kill'
    : seen.postAt === undefined || killAt < seen.postAt ? 'before the send'
      : seen.answerAt === undefined || killAt < seen.answerAt ? 'in flight'
        : `${(killAt - seen.answerAt).toFixed(1)} ms after the answer`;
  const verdict = works ? (variableDone ? 'healed' : 'unfinished') : answer === 'not delivered' || answer === 'unread' ? 'unavoidable' : 'avoidable';
  results.push({
    n, phase, when, answer, verdict, nextFinished, litter, falseAlarm: works && list.code === 9, killedBy: killed.signal ?? `exit ${killed.code}`, next: next.code, recover: recover.code,
    nextErr: next.stderr.trim().split('\n')[0],
  });
  process.stderr.write(verdict === 'healed' ? '.' : verdict === 'unavoidable' ? 'u' : verdict === 'unfinished' ? 'F' : 'A');
}
process.stderr.write('\n');

const count = (filter) => results.filter(filter).length;
const whenClass = (r) => (r.when.includes('after the answer') ? 'after the answer' : r.when);
const modeWords = { profile: '', 'ci-var': BY_ADMIN ? ' (--save-to ci-var:acme/KILL_<n> only)' : ' (--save-to-profile and --save-to ci-var:acme/KILL_<n>)', 'ci-job': ' (FORGECTL_TOKEN from the variable, --save-to ci-var:acme/KILL_<n> only)' }[MODE];
const ownerWords = { group: 'a group access token rotating itself', 'service-account': 'an instance service account\'s token rotating itself (self --personal)', 'service-account-admin': 'an instance service account\'s token rotated by an administrator (<id> --service-account svc-kill)' }[OWNER];
console.log(`rotation kill points: ${KILLS} SIGKILLs (seed ${SEED}), mode ${MODE}${modeWords}, owner: ${ownerWords}, bin ${bin}`);
console.log(`calibration: an undisturbed run sends its rotate request ${spawnToPost.map((ms) => ms.toFixed(0)).join(' / ')} ms after it starts`);
console.log('');
console.log('kill landed                  healed  unavoidable  avoidable');
for (const when of ['before the send', 'in flight', 'after the answer', 'finished before the kill']) {
  const rows = results.filter((r) => whenClass(r) === when);
  if (!rows.length) continue;
  const c = (v) => String(rows.filter((r) => r.verdict === v).length).padStart(v === 'healed' ? 6 : v === 'unavoidable' ? 11 : 9);
  console.log(`${when.padEnd(28)} ${c('healed')}  ${c('unavoidable')}  ${c('avoidable')}`);
}
const healed = count((r) => r.verdict === 'healed');
const unavoidable = count((r) => r.verdict === 'unavoidable');
const avoidable = results.filter((r) => r.verdict === 'avoidable');
const alarms = results.filter((r) => r.falseAlarm);
console.log(`${'total'.padEnd(28)} ${String(healed).padStart(6)}  ${String(unavoidable).padStart(11)}  ${String(avoidable.length).padStart(9)}`);
console.log(`false alarms (recover --list exits 9 with a working profile): ${alarms.length}`);
const unfinished = results.filter((r) => r.verdict === 'unfinished');
if (VARIABLE) console.log(`unfinished (the credential works, the token in the CI/CD variable does not after the next run and tokens recover): ${unfinished.length}`);
const notFinishedByNext = results.filter((r) => !r.nextFinished && r.verdict !== 'unavoidable');
console.log(`not finished by the next run alone (tokens recover needed; unavoidable lockouts aside): ${notFinishedByNext.length}`);
console.log(`empty recovery files left behind: ${results.reduce((sum, r) => sum + r.litter, 0)}`);
const lateUnavoidable = results.filter((r) => r.verdict === 'unavoidable' && r.when.includes('after the answer'));
if (lateUnavoidable.length) {
  console.log(`unavoidable lockouts after the answer was written (answer still unread in the socket): ${lateUnavoidable.map((r) => r.when.split(' ')[0]).join(', ')} ms`);
}
for (const r of notFinishedByNext) console.log(`  NOT FINISHED BY THE NEXT RUN #${r.n}: killed ${r.when} (${r.killedBy}), answer ${r.answer}; next run exit ${r.next} (${r.nextErr})`);
for (const r of [...avoidable, ...alarms, ...unfinished]) console.log(`  ${r.verdict === 'avoidable' ? 'AVOIDABLE' : r.verdict === 'unfinished' ? 'UNFINISHED' : 'FALSE ALARM'} #${r.n}: killed ${r.when} (${r.killedBy}), answer ${r.answer}; next run exit ${r.next} (${r.nextErr}), recover exit ${r.recover}`);

proxy.close();
agent.destroy();
sandbox.kill();
rmSync(work, { recursive: true, force: true });
process.exitCode = avoidable.length || alarms.length || unfinished.length || notFinishedByNext.length ? 1 : 0;
