// Fleet benchmark of the administration sections (issue 22) over `forgectl sandbox --fleet 500`: plan and apply of a
// desired state with protected branches (every project's default branch adopted, a release/* rule naming a user) and
// the other sections of this build, and the member-wait of protected branches against a fixed 2-second sleep per
// project. Every figure is meant to be taken with farm-bench (the whole process, sandbox start included):
//
//   node bench/fleet-sections.mjs serve            a sandbox with the fleet, files A and B written; prints the commands
//   node bench/fleet-sections.mjs member-wait      fresh sandbox; apply a rule naming a user whose membership lands 1 s
//                                                  after the apply started: the rule waits for it
//   node bench/fleet-sections.mjs fixed-sleep      fresh sandbox; the same membership, then 2 s per project (a pool of
//                                                  CONCURRENCY), then the same apply: what a script without the wait does
//
//   farm-bench -n 3 --timeout 900 -- node bench/fleet-sections.mjs member-wait --vs 'node bench/fleet-sections.mjs fixed-sleep'
//
// A section is one line of SECTIONS: its key, its level and what every project (or the group acme) gets; a section
// this build does not know (not in `forgectl validate --schema`) is left out with a note, so lines for sections on
// their way can sit here before they land. PROJECTS=500 LATENCY=0 CONCURRENCY=16 to change the defaults.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runForgectl, startSandboxProcess } from './sandbox.mjs';

const PROJECTS = Number(process.env.PROJECTS ?? 500);
const LATENCY = Number(process.env.LATENCY ?? 0);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const bin = new URL('../bin/forgectl.cjs', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'forgectl-bench-sections-'));

/** [section, level, its value for every project ("*") or for the group acme; `variant` is "a" or "b"]. */
const SECTIONS = [
  ['protected_branches', 'project', (v) => `
      - {name: main, allowed_to_push: [maintainer], allowed_to_merge: [${v === 'a' ? 'maintainer' : 'developer, maintainer'}]}
      - {name: "release/*", allowed_to_push: [no-access], allowed_to_merge: [maintainer, user:alice], allow_force_push: ${v === 'b'}}`],
  ['variables', 'project', (v) => `
      - {key: LOG_LEVEL, value: ${v === 'a' ? 'info' : 'debug'}}`],
  ['settings', 'project', (v) => ` {squash_option: ${v === 'a' ? 'default_off' : 'default_on'}}`],
  ['members', 'project', (v) => ` {users: {omar: ${v === 'a' ? 'developer' : 'maintainer'}}}`],
];

const schema = JSON.parse(spawnSync(process.execPath, [bin, 'validate', '--schema'], { encoding: 'utf8' }).stdout);
const known = new Set(Object.keys(schema.definitions?.projectScope?.properties ?? {}));

function desiredFile(variant) {
  const used = SECTIONS.filter(([key]) => known.has(key));
  const project = used.filter(([, level]) => level === 'project').map(([key, , value]) => `    ${key}:${value(variant)}`).join('\n');
  const path = join(work, `fleet-${variant}.yaml`);
  writeFileSync(path, `version: 1\ntarget: acme/team-*/**\nprojects:\n  "*":\n${project}\n`);
  return { path, used: used.map(([key]) => key), skipped: SECTIONS.filter(([key]) => !known.has(key)).map(([key]) => key) };
}

const forgectl = (env, args) => runForgectl(bin, env, work, args);

const check = (what, result, code) => {
  if (result.code !== code) throw new Error(`${what} exited ${result.code}, expected ${code}:\n${result.stderr.slice(-2000)}`);
  return result;
};

async function api(env, method, path, body) {
  const response = await fetch(`${env.FORGECTL_URL}/api/v4${path}`, { method, headers: { 'PRIVATE-TOKEN': env.FORGECTL_TOKEN, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const mode = process.argv[2] ?? 'serve';
const box = await startSandboxProcess(bin, ['--fleet', String(PROJECTS), '--latency', String(LATENCY)]);
try {
  if (mode === 'serve') {
    const a = desiredFile('a');
    const b = desiredFile('b');
    console.log(`sections: ${a.used.join(', ')}${a.skipped.length ? ` (not in this build, left out: ${a.skipped.join(', ')})` : ''}`);
    const plan = check('plan', await forgectl(box.env, ['plan', '-f', a.path, '--concurrency', String(CONCURRENCY)]), 9);
    const apply = check('apply', await forgectl(box.env, ['apply', '-f', a.path, '--concurrency', String(CONCURRENCY), '--yes', '-o', 'ndjson']), 0);
    const after = check('plan after apply', await forgectl(box.env, ['plan', '-f', a.path, '--concurrency', String(CONCURRENCY)]), 0);
    console.log(`${PROJECTS} projects: plan ${(plan.ms / 1000).toFixed(1)} s, apply ${(apply.ms / 1000).toFixed(1)} s (${apply.stdout.trim().split('\n').length} objects), plan after ${(after.ms / 1000).toFixed(1)} s`);
    const env = `FORGECTL_URL=${box.env.FORGECTL_URL} FORGECTL_TOKEN=${box.env.FORGECTL_TOKEN} FORGECTL_CONFIG_DIR=${work}`;
    console.log(`\nwith this sandbox up (Ctrl-C ends it):\n  plan (reads only, exit 9 against B):  ${env} farm-bench -n 5 --timeout 600 -- node ${bin} plan -f ${b.path} --concurrency ${CONCURRENCY}`);
    console.log(`  apply, A and B in turn (each changes every project): ${env} farm-bench -n 3 --timeout 900 -- node ${bin} apply -f ${b.path} --concurrency ${CONCURRENCY} --yes --vs 'node ${bin} apply -f ${a.path} --concurrency ${CONCURRENCY} --yes'`);
    await new Promise(() => {});
  }
  // The member-wait against a fixed sleep: a rule on every project names a user who becomes a member of acme (and so
  // of every project) a moment after it is asked for.
  const user = await api(box.env, 'POST', '/users', { username: 'bench-newcomer', name: 'Newcomer', email: 'bench-newcomer@example.com', password: 'bench-password-123' });
  const path = join(work, 'deploy.yaml');
  writeFileSync(path, `version: 1\ntarget: acme/team-*/**\nprojects:\n  "*":\n    protected_branches:\n      - {name: deploy, allowed_to_push: [maintainer, user:bench-newcomer]}\n`);
  const join_ = () => api(box.env, 'POST', '/groups/acme/members', { user_id: user.id, access_level: 30 });
  if (mode === 'member-wait') {
    const landing = sleep(1000).then(join_);
    const apply = check('apply', await forgectl(box.env, ['apply', '-f', path, '--concurrency', String(CONCURRENCY), '--yes', '-o', 'ndjson']), 0);
    await landing;
    console.log(`member-wait: apply ${(apply.ms / 1000).toFixed(1)} s`);
  } else if (mode === 'fixed-sleep') {
    await join_();
    const started = Date.now();
    // 2 s per project in a pool of CONCURRENCY: what a script that sleeps instead of asking waits.
    await sleep(Math.ceil(PROJECTS / CONCURRENCY) * 2000);
    const apply = check('apply', await forgectl(box.env, ['apply', '-f', path, '--concurrency', String(CONCURRENCY), '--yes', '-o', 'ndjson']), 0);
    console.log(`fixed sleep: ${((Date.now() - started) / 1000).toFixed(1)} s (apply ${(apply.ms / 1000).toFixed(1)} s)`);
  } else throw new Error(`unknown mode ${mode}: serve, member-wait or fixed-sleep`);
} finally {
  box.process.kill();
}
