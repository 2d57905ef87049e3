/**
 * The safety tier: every command that deletes, revokes, removes, unprotects, rotates, resets, overwrites or schedules
 * asks before it sends anything. Off a terminal without --yes it ends with exit 2, one error line whose hint names
 * --yes, and the instance receives no changing request. The set of such commands comes from the command tree (by
 * their verbs, and the commands that overwrite or delete by an option); a new one that this file does not run fails
 * here until it is given a row.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { manifest } from '../../src/commands/manifest.js';
import { addUser } from '../../src/sandbox/seed.js';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

/** Verbs that destroy or replace something on the instance (or in the local profile store). */
const DESTRUCTIVE_VERB = /^(delete(-all|-merged)?|revoke|remove|unprotect|rotate|reset(-token)?|schedule|import|disable|unassign|transfer|logout)$/;
/** Commands whose verb does not say it, but which overwrite what is there, or delete by an option. */
const OVERWRITING = ['settings set', 'plan-limits set', 'apply', 'commits create', 'snippets update'];
/** Commands that lock a user out, take their access away or delete a sign-up. */
const LOCKING_OUT = ['users block', 'users deactivate', 'users ban', 'users reject', 'users offboard'];

/** Commands of the set that rightly do not ask, and why (each still must send no change in this test). */
const NOT_ASKING: Record<string, string> = {};

const dir = tempDir('forgectl-safety-');
const servicesFile = join(dir, 'services.txt');
const desiredFile = join(dir, 'desired.yaml');
const envFile = join(dir, 'web.env');
const emptyDir = join(dir, 'empty');
const oneFileDir = join(dir, 'one-file');

/** The id of a record made through the API for a row (as root). */
async function made(path: string, body: Record<string, unknown>): Promise<number> {
  const answer = await sandbox.call('POST', path, body);
  expect(answer.status, `POST ${path}: ${answer.text}`).toBe(201);
  return answer.body.id as number;
}

/**
 * Arguments for the commands whose --help examples need something set up first (a file, a profile, an object made
 * for the purpose), or that have no plain example. Each runs instead of the examples, without --yes.
 */
const ROWS: Record<string, () => Promise<string[][]>> = {
  'approvals reset': async () => [['approvals', 'reset', '--project', 'acme/api', '--mr', '1']],
  'variables import': async () => {
    // Overwrites in every project (new variables are created without asking).
    await made('/projects/acme%2Fweb/variables', { key: 'LOG_LEVEL', value: 'warn' });
    return [['variables', 'import', envFile, '--project', 'acme/api'], ['variables', 'import', envFile, '--projects-file', servicesFile]];
  },
  'variables delete': async () => {
    for (const project of ['acme%2Fapi', 'acme%2Fweb']) await made(`/projects/${project}/variables`, { key: 'RETIRED_FLAG', value: 'on' });
    return [['variables', 'delete', 'LOG_LEVEL', '--project', 'acme/api'], ['variables', 'delete', 'RETIRED_FLAG', '--projects-file', servicesFile]];
  },
  apply: async () => [['apply', '-f', desiredFile]],
  'commits create': async () => [['commits', 'create', '--project', 'acme/api', '--branch', 'main', '-m', 'Prune the docs', '--from-dir', emptyDir, '--to', 'docs', '--prune']],
  'snippets update': async () => [['snippets', 'update', '1', '--project', 'acme/api', '--sync', oneFileDir]],
  'badges delete': async () => [['badges', 'delete', String(await made('/projects/acme%2Fapi/badges', { link_url: 'https://example.com', image_url: 'https://example.com/b.svg' })), '--project', 'acme/api']],
  'hooks delete': async () => [['hooks', 'delete', String(await made('/projects/acme%2Fapi/hooks', { url: 'https://example.com/hook' })), '--project', 'acme/api']],
  'groups delete': async () => {
    await made('/groups', { name: 'platform', path: 'platform', parent_id: (await sandbox.call('GET', '/groups/acme')).body.id });
    return [['groups', 'delete', 'acme/platform'], ['groups', 'delete', 'acme/platform', '--permanently']];
  },
  'deploy-tokens revoke': async () => {
    for (const project of ['acme%2Fapi', 'acme%2Fweb']) await made(`/projects/${project}/deploy_tokens`, { name: 'ci-pull', scopes: ['read_repository'] });
    return [['deploy-tokens', 'revoke', '--name', 'ci-pull', '--projects-file', servicesFile]];
  },
  'protected-branches unprotect': async () => {
    for (const project of ['acme%2Fapi', 'acme%2Fweb']) await made(`/projects/${project}/protected_branches`, { name: 'legacy/*' });
    return [['protected-branches', 'unprotect', 'release/*', '--project', 'acme/api'], ['protected-branches', 'unprotect', 'legacy/*', '--projects-file', servicesFile]];
  },
  'auth logout': async () => {
    // A token kept only in this profile (its only copy on this machine).
    const token = sandbox.tokenOf(2, 'leaving');
    expect((await sandbox.run(['auth', 'login', '--profile', 'leaving', '--url', sandbox.rootUrl, '--token-stdin', '--insecure-storage'], { input: token })).code).toBe(0);
    return [['-p', 'leaving', 'auth', 'logout']];
  },
  'profile remove': async () => {
    expect((await sandbox.run(['-p', 'old-staging', 'profile', 'set', 'url', sandbox.rootUrl])).code).toBe(0);
    return [['profile', 'remove', 'old-staging']];
  },
  'runners unassign': async () => {
    const runner = (await sandbox.call('GET', '/runners/all?per_page=100')).body.find((r: { description: string }) => r.description === 'api-gpu');
    await made('/projects/acme%2Fweb/runners', { runner_id: runner.id });
    return [['runners', 'unassign', String(runner.id), '--project', 'acme/web']];
  },
  'service-accounts delete': async () => {
    // Real accounts, one with a token that would die with it.
    const account = await made('/service_accounts', { username: 'svc-safety' });
    await made(`/users/${account}/personal_access_tokens`, { name: 'cron', scopes: ['api'] });
    await made('/groups/acme/service_accounts', { username: 'acme-safety' });
    return [['service-accounts', 'delete', 'svc-safety', '--instance'], ['service-accounts', 'delete', 'acme-safety', '--group', 'acme', '--hard-delete']];
  },
  'users reject': async () => {
    // A sign-up pending approval (the service makes them when people sign up on its web page).
    addUser(sandbox.db, { username: 'newcomer', state: 'blocked_pending_approval' }, new Date());
    return [['users', 'reject', 'newcomer']];
  },
  'tokens rotate': async () => {
    const token = (await sandbox.call('GET', '/groups/acme/access_tokens')).body.find((t: { active: boolean }) => t.active);
    return [['tokens', 'rotate', String(token.id), '--group', 'acme', '--expires-in', '30d']];
  },
};

/** A help example as argv: its words after `forgectl`, quotes removed; undefined when it is more than one command. */
function exampleArgv(example: string): string[] | undefined {
  if (/[|&;<>$`]/.test(example.replace(/'[^']*'/g, "''")) || !example.startsWith('forgectl ')) return undefined;
  const words = [...example.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
  return words.slice(1).filter((word) => word !== '--yes' && word !== '-y').map((word) => (word === 'services.txt' ? servicesFile : word));
}

const destructive = manifest.filter((entry) => DESTRUCTIVE_VERB.test(entry.path.split(' ').at(-1)!) || OVERWRITING.includes(entry.path) || LOCKING_OUT.includes(entry.path));

beforeAll(() => {
  mkdirSync(emptyDir);
  mkdirSync(oneFileDir);
  writeFileSync(join(oneFileDir, 'only.txt'), 'the only file left\n');
  writeFileSync(servicesFile, 'acme/api\nacme/web\n');
  writeFileSync(envFile, 'LOG_LEVEL=trace\n');
  writeFileSync(desiredFile, 'version: 1\nprojects:\n  acme/api:\n    variables:\n      - {key: LOG_LEVEL, value: trace}\n');
});

describe('every command that destroys or replaces asks first: off a terminal without --yes, exit 2 and nothing sent', () => {
  it('the set comes from the command tree and is not empty', () => {
    expect(destructive.length).toBeGreaterThan(40);
    for (const path of Object.keys(ROWS)) expect(manifest.some((entry) => entry.path === path), `${path} is a command`).toBe(true);
  });

  it.each(destructive.map((entry) => [entry.path, entry] as const))('%s', async (path, entry) => {
    const def = (await entry.load()).default;
    const runs = ROWS[path] ? await ROWS[path]() : def.examples.map(exampleArgv).filter((argv): argv is string[] => argv !== undefined);
    expect(runs.length, `${path}: no --help example runs as one command; give it a row`).toBeGreaterThan(0);
    for (const argv of runs) {
      sandbox.clearRequests();
      const result = await sandbox.run(argv);
      const writes = sandbox.requests().filter((request) => request.method !== 'GET' && request.method !== 'HEAD');
      const line = argv.join(' ');
      expect(writes, `${line} sent a change`).toEqual([]);
      // --dry-run prints what it would send instead of asking (--plan-only the plan); they too send nothing.
      if (NOT_ASKING[path] || argv.includes('--dry-run') || argv.includes('--plan-only')) continue;
      expect(result.code, `${line}: ${result.stderr}`).toBe(2);
      // A preview of what goes may come first; then the one error line, and the hint naming --yes.
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines.filter((text) => text.startsWith('error: ')), result.stderr).toEqual([expect.stringMatching(/^error: confirmation needed: \S/)]);
      expect(lines.at(-1), line).toBe('hint: pass --yes to confirm without a terminal');
      expect(result.stdout, line).toBe('');
    }
  });
});

/** Bulk deletions: what each must leave, because the service protects it. */
const BULK: Record<string, () => Promise<void>> = {
  'branches delete-merged': async () => {
    for (const name of ['release/4.2', 'exact-rule', 'group-rule/1', 'under-review', 'merged-and-plain']) {
      expect((await sandbox.call('POST', '/projects/acme%2Fapi/repository/branches', { branch: name, ref: 'main' })).status).toBe(201);
    }
    await made('/projects/acme%2Fapi/protected_branches', { name: 'exact-rule' });
    await made('/groups/acme/protected_branches', { name: 'group-rule/*' });
    await made('/projects/acme%2Fapi/merge_requests', { source_branch: 'under-review', target_branch: 'main', title: 'Review me' });
    const result = await sandbox.run(['branches', 'delete-merged', '--project', 'acme/api', '--yes']);
    expect(result.code, result.stderr).toBe(0);
    const left = (await sandbox.call('GET', '/projects/acme%2Fapi/repository/branches?per_page=100')).body.map((b: { name: string }) => b.name);
    expect(left).toEqual(expect.arrayContaining(['main', 'release/4.2', 'exact-rule', 'group-rule/1', 'under-review']));
    expect(left).not.toContain('merged-and-plain');
  },
  'artifacts delete-all': async () => {
    const latest = () => sandbox.call('GET', '/projects/acme%2Fapi/jobs/artifacts/v1.0.0/download?job=build');
    expect((await latest()).status).toBe(200);
    const result = await sandbox.run(['artifacts', 'delete-all', '--project', 'acme/api', '--yes']);
    expect(result.code, result.stderr).toBe(0);
    expect((await latest()).status).toBe(200);
    // Only while the project keeps its latest artifacts, as the service does.
    expect((await sandbox.call('PUT', '/projects/acme%2Fapi', { keep_latest_artifact: false })).status).toBe(200);
    expect((await sandbox.run(['artifacts', 'delete-all', '--project', 'acme/api'])).stderr).toContain('Nothing is kept: the project does not keep the artifacts of its latest successful pipelines');
    expect((await sandbox.run(['artifacts', 'delete-all', '--project', 'acme/api', '--yes'])).code).toBe(0);
    expect((await latest()).status).toBe(404);
  },
};

describe('bulk deletions never touch what the service protects', () => {
  const bulk = manifest.filter((entry) => /^delete-(all|merged)$/.test(entry.path.split(' ').at(-1)!));

  it('every bulk deletion of the command tree has a case here', () => {
    expect(bulk.map((entry) => entry.path).sort()).toEqual(Object.keys(BULK).sort());
  });

  it.each(Object.keys(BULK))('%s', async (path) => {
    await BULK[path]();
  });
});
