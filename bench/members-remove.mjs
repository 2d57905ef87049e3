// Members removal benchmark: what `forgectl members remove priya --group acme` reads before its question, over the
// tree of `forgectl sandbox --fleet N --latency L` (priya is a Guest of acme, a Maintainer of acme/api and of every
// team subgroup). Run as the administrator (root), who reads the user's direct memberships in one list, and as an
// Owner of acme who is not an administrator, who reads those in acme's hierarchy in one list. Off a
// terminal without --yes the command stops at its question (exit 2), so nothing is removed and both runs see the same
// tree. Each run is checked: the question names the team subgroups and acme/api, and nothing but GETs was sent.
// Run: npm run bench:members   (PROJECTS=1000 LATENCY=20 to change the defaults)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runForgectl, startSandboxProcess } from './sandbox.mjs';

const PROJECTS = Number(process.env.PROJECTS ?? 1000);
const LATENCY = Number(process.env.LATENCY ?? 20);
const TEAMS = Math.ceil(PROJECTS / 50);
const bin = new URL('../bin/forgectl.cjs', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'forgectl-bench-members-'));

const box = await startSandboxProcess(bin, ['--fleet', String(PROJECTS), '--latency', String(LATENCY)]);
const sandboxUrl = box.env.FORGECTL_URL;
const api = async (method, path, body) => {
  const answer = await fetch(`${sandboxUrl}/api/v4${path}`, { method, headers: { 'PRIVATE-TOKEN': box.env.FORGECTL_TOKEN, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  if (!answer.ok) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`);
  return answer.json();
};

/** An Owner of acme who is not an administrator, and their token. */
async function ownerToken() {
  const owner = await api('POST', '/users', { username: 'owner-of-acme', name: 'Owner of acme', email: 'owner@example.com', password: 'a-long-password-1' });
  await api('POST', '/groups/acme/members', { user_id: owner.id, access_level: 50 });
  return (await api('POST', `/users/${owner.id}/personal_access_tokens`, { name: 'bench', scopes: ['api'] })).token;
}

async function measure(who, token) {
  await fetch(`${sandboxUrl}/-/sandbox/requests`, { method: 'DELETE' });
  const run = await runForgectl(bin, { ...box.env, FORGECTL_TOKEN: token }, work, ['members', 'remove', 'priya', '--group', 'acme']);
  const log = (await (await fetch(`${sandboxUrl}/-/sandbox/requests`)).json()).filter((entry) => entry.path.startsWith('/api/v4'));
  if (run.code !== 2 || !run.stderr.includes(`${TEAMS} subgroups and 1 project`)) throw new Error(`${who}: exited ${run.code}:\n${run.stderr.slice(-2000)}`);
  if (log.some((entry) => entry.method !== 'GET')) throw new Error(`${who}: sent ${log.find((entry) => entry.method !== 'GET').method} before the question`);
  const memberLists = log.filter((entry) => /\/members$/.test(entry.path.split('?')[0])).length;
  console.log(`${who.padEnd(13)}: ${(run.ms / 1000).toFixed(2)} s, ${log.length.toLocaleString('en-US')} requests before the question (${memberLists.toLocaleString('en-US')} member lists)`);
}

try {
  console.log(`members remove priya --group acme over ${PROJECTS.toLocaleString('en-US')} projects in ${TEAMS} teams, ${LATENCY} ms an answer`);
  await measure('administrator', box.env.FORGECTL_TOKEN);
  await measure('owner', await ownerToken());
} finally {
  box.process.kill();
}
