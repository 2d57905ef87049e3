import { describe, expect, it } from 'vitest';
import { findProject } from '../../sandbox/auth.js';
import { runnerTable } from '../../sandbox/model.js';
import { addRunner } from './sandbox.js';
import { useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();
const DAY = 24 * 3_600_000;
const mutations = () => sandbox.requests().filter((r) => r.method === 'POST' && r.path === '/api/graphql');
const restIds = async (): Promise<number[]> => (await sandbox.call('GET', '/runners/all?per_page=100')).body.map((r: { id: number }) => r.id);

/** Project runners of acme/api last seen `days` ago. */
function oldRunners(count: number, days: number, prefix: string): number[] {
  const api = findProject(sandbox.db, 'acme/api').id;
  const ago = (d: number) => new Date(Date.now() - d * DAY).toISOString();
  return Array.from({ length: count }, (_, n) => addRunner(sandbox.db, { runner_type: 'project_type', description: `${prefix}-${n}`, project_ids: [api], contacted_at: ago(days), created_at: ago(days + 30) } as never, new Date()).id);
}

describe('runners prune --stale', () => {
  it('lists what it would delete (the selection of runners audit) and asks: off a terminal without --yes, exit 2 and nothing deleted', async () => {
    sandbox.clearRequests();
    const audit = await sandbox.run(['runners', 'audit', '--instance', '--stale', '90d', '-o', 'json']);
    const asked = await sandbox.run(['runners', 'prune', '--instance', '--stale', '90d']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(/^1 runner without contact for 90d \(since \d{4}-\d\d-\d\d\); checked the \d+ stale runners of the instance:\n {2}runner 6 \("acme-arm"\), of Acme, last contact \S+ \(100 days\)\nerror: confirmation needed: Delete it, in 1 batch of up to 50\?\nhint: pass --yes to confirm without a terminal\n$/);
    expect(audit.json().map((r: { id: number }) => r.id)).toEqual([6]);
    expect(mutations()).toEqual([]);
    expect(await restIds()).toContain(6);
    expect((await sandbox.run(['runners', 'prune', '--instance'])).stderr).toContain("required option '--stale <duration>' not specified");
    // Without a scope: the runners the caller manages, said so.
    expect((await sandbox.run(['runners', 'audit', '--stale', '90d'])).stderr).toMatch(/; checked the \d+ stale runners? you manage\n/);
  });

  it('with --group or --project takes only its own runners: those of the instance and of the groups above, which it only uses, are named and left alone', async () => {
    sandbox.clearRequests();
    // acme uses the instance's shared-docker-2 (45 days without contact) and shared-macos (never, 60 days); acme-arm is its own.
    const group = await sandbox.run(['--dry-run', 'runners', 'prune', '--group', 'acme', '--stale', '30d']);
    expect(group.code, group.stderr).toBe(0);
    expect(group.stderr).toContain('left alone, as group acme only uses them: runner 3 ("shared-macos") of the instance, runner 2 ("shared-docker-2") of the instance\n');
    expect(group.stderr).toMatch(/^1 runner without contact for 30d .*:\n {2}runner 6 \("acme-arm"\), of Acme,/m);
    expect(group.stdout.match(/Ci::Runner\/\d+/g)).toEqual(['Ci::Runner/6']);
    // acme/api uses acme's acme-arm too: runners delete --stale leaves it to acme.
    const project = await sandbox.run(['runners', 'delete', '--stale', '30d', '--project', 'acme/api', '--yes']);
    expect(project.code, project.stderr).toBe(0);
    expect(project.stderr).toContain('runner 6 ("acme-arm") of Acme');
    expect(project.stderr).toContain('no runner without contact for 30d');
    expect(mutations()).toEqual([]);
    expect(await restIds()).toEqual(expect.arrayContaining([2, 3, 6]));
  });

  it('a group\'s Maintainer, who may use the instance\'s runners but not read them, gets the group\'s own checked and the others named', async () => {
    const maintainer = { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('maintainer') } };
    const audit = await sandbox.run(['runners', 'audit', '--group', 'acme', '--stale', '30d', '-o', 'json'], maintainer);
    expect(audit.code, audit.stderr).toBe(9);
    expect(audit.json().map((r: { id: number }) => r.id)).toEqual([6]);
    expect(audit.stderr).toContain('not checked, as this token cannot read them: runner 2 ("shared-docker-2"), runner 3 ("shared-macos") (an administrator\'s forgectl runners audit --instance does)\n');
    sandbox.clearRequests();
    const prune = await sandbox.run(['--dry-run', 'runners', 'prune', '--group', 'acme', '--stale', '30d'], maintainer);
    expect(prune.code, prune.stderr).toBe(0);
    expect(prune.stdout.match(/Ci::Runner\/\d+/g)).toEqual(['Ci::Runner/6']);
    expect(mutations()).toEqual([]);
  });

  it('never deletes a runner the service calls online, however short --stale is: it is named and left alone', async () => {
    // Seen 90 minutes ago by the service's record: online (within 2 hours), yet outside a window of one hour.
    const busy = addRunner(sandbox.db, { runner_type: 'project_type', description: 'busy-now', project_ids: [findProject(sandbox.db, 'acme/api').id], contacted_at: new Date(Date.now() - 90 * 60_000).toISOString(), created_at: new Date(Date.now() - 30 * DAY).toISOString() } as never, new Date()).id;
    sandbox.clearRequests();
    const audit = await sandbox.run(['runners', 'audit', '--project', 'acme/api', '--stale', '1h', '-o', 'json']);
    expect(audit.json().map((r: { id: number }) => r.id)).toContain(busy);
    const prune = await sandbox.run(['--dry-run', 'runners', 'prune', '--project', 'acme/api', '--stale', '1h', '--yes']);
    expect(prune.code, prune.stderr).toBe(0);
    expect(prune.stderr).toContain(`left alone, as the service calls it online (seen within 2 hours; the last contact it records can be an hour old): runner ${busy} ("busy-now")`);
    expect(prune.stdout).not.toContain(`Ci::Runner/${busy}"`);
    expect(mutations()).toEqual([]);
    expect(await restIds()).toContain(busy);
    expect((await sandbox.call('DELETE', `/runners/${busy}`)).status).toBe(204);
  });

  it('names a runner that never made contact as such, with how long ago it was created', async () => {
    const api = findProject(sandbox.db, 'acme/api').id;
    const id = addRunner(sandbox.db, { runner_type: 'project_type', description: 'never-seen', project_ids: [api], contacted_at: null, created_at: new Date(Date.now() - 120 * DAY).toISOString() } as never, new Date()).id;
    const asked = await sandbox.run(['runners', 'prune', '--project', 'acme/api', '--stale', '90d']);
    runnerTable(sandbox.db).splice(runnerTable(sandbox.db).findIndex((r) => r.id === id), 1);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain(`  runner ${id} ("never-seen"), of acme/api, never contacted, created 120 days ago\n`);
  });

  it('--dry-run shows each batch of 50 and its request, and sends none', async () => {
    const ids = oldRunners(52, 120, 'dry');
    sandbox.clearRequests();
    const dry = await sandbox.run(['--dry-run', 'runners', 'prune', '--instance', '--stale', '90d']);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain('53 runners without contact for 90d');
    expect(dry.stderr).toMatch(/batch 1 of 2: 50 runners \([\d, ]+\)\nbatch 2 of 2: 3 runners \([\d, ]+\)/);
    expect(dry.stdout.match(/^POST .*\/api\/graphql$/gm)).toHaveLength(2);
    expect(dry.stdout).toContain(`"gid://gitlab/Ci::Runner/${ids[51]}"`);
    expect(mutations()).toEqual([]);
    expect(await restIds()).toEqual(expect.arrayContaining(ids));
    for (const id of ids) runnerTable(sandbox.db).splice(runnerTable(sandbox.db).findIndex((r) => r.id === id), 1);
  });

  it('--yes deletes them in batches of 50 with bulkRunnerDelete, reporting each batch; REST and audit agree they are gone', async () => {
    const ids = oldRunners(55, 200, 'gone');
    sandbox.clearRequests();
    const result = await sandbox.run(['runners', 'prune', '--instance', '--stale', '90d', '--yes', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(mutations()).toHaveLength(2);
    const rows = result.json<Array<{ id: number; batch: number; outcome: string }>>();
    expect(rows).toHaveLength(56);
    expect(rows.every((row) => row.outcome === 'deleted')).toBe(true);
    expect(rows.filter((row) => row.batch === 1)).toHaveLength(50);
    expect(result.stderr).toContain('batch 1 of 2: deleted 50 of 50 runners\nbatch 2 of 2: deleted 6 of 6 runners\n');
    const left = await restIds();
    expect(left.filter((id) => [...ids, 6].includes(id))).toEqual([]);
    expect(left.length).toBeGreaterThan(0);
    const audit = await sandbox.run(['runners', 'audit', '--instance', '--stale', '90d']);
    expect(audit.code).toBe(0);
    expect((await sandbox.run(['runners', 'prune', '--instance', '--stale', '90d', '--yes'])).stderr).toContain('no runner without contact for 90d');
  });

  it('reports the runners a batch did not delete with the service\'s reasons, and a batch that failed, with exit 9', async () => {
    const ids = oldRunners(51, 150, 'partly');
    sandbox.fault({ method: 'POST', path: '^/api/graphql$', status: 200, times: 1, body: { data: { bulkRunnerDelete: { deletedIds: ids.slice(1, 50).map((id) => `gid://gitlab/Ci::Runner/${id}`), errors: [`User does not have permission to delete runner(s) #${ids[0]}`] } } } });
    sandbox.fault({ method: 'POST', path: '^/api/graphql$', status: 500, times: 1 });
    const result = await sandbox.run(['runners', 'prune', '--instance', '--stale', '90d', '--yes', '-o', 'json']);
    expect(result.code).toBe(9);
    const rows = result.json<Array<{ id: number; outcome: string; error: string | null }>>();
    expect(rows.find((row) => row.id === ids[0])).toMatchObject({ outcome: 'failed', error: `User does not have permission to delete runner(s) #${ids[0]}` });
    expect(rows.find((row) => row.id === ids[50])).toMatchObject({ outcome: 'failed', error: '500 Injected fault' });
    expect(rows.filter((row) => row.outcome === 'deleted')).toHaveLength(49);
    expect(result.stderr).toContain(`batch 1 of 2: deleted 49 of 50 runners; not ${ids[0]}: User does not have permission to delete runner(s) #${ids[0]}`);
    expect(result.stderr).toContain('attention: 2 of 51 runners not deleted');
  });

  it('ends with the exit code of the failure when the first batch is refused whole, deleting nothing', async () => {
    const ids = oldRunners(2, 150, 'refused');
    sandbox.fault({ method: 'POST', path: '^/api/graphql$', status: 200, times: 1, body: { errors: [{ message: "The resource that you are attempting to access does not exist or you don't have permission to perform this action", path: ['bulkRunnerDelete'] }], data: { bulkRunnerDelete: null } } });
    const result = await sandbox.run(['runners', 'prune', '--instance', '--stale', '90d', '--yes']);
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    expect(await restIds()).toEqual(expect.arrayContaining(ids));
  });
});

describe('a runner other projects use too', () => {
  it('runners prune --project skips it, naming the projects, and ends with exit 9; runners delete ID asks naming them', async () => {
    const [api, web] = ['acme/api', 'acme/web'].map((path) => findProject(sandbox.db, path).id);
    const ago = new Date(Date.now() - 400 * DAY).toISOString();
    const [shared, own] = [[api, web], [api]].map((project_ids, n) => addRunner(sandbox.db, { runner_type: 'project_type', description: `long-gone-${n}`, project_ids, contacted_at: ago, created_at: ago } as never, new Date()).id);
    const skippedLine = `skipped runner ${shared} ("long-gone-0"): project acme/web uses it too, and deleting it takes it from them all; forgectl runners unassign ${shared} --project acme/api takes it from project acme/api only, forgectl runners delete ${shared} asks to delete it everywhere`;
    const dry = await sandbox.run(['--dry-run', 'runners', 'prune', '--project', 'acme/api', '--stale', '300d']);
    expect(dry.stderr).toContain(skippedLine);
    expect(dry.stdout.match(/Ci::Runner\/\d+/g)).toEqual([`Ci::Runner/${own}`]);
    const pruned = await sandbox.run(['runners', 'prune', '--project', 'acme/api', '--stale', '300d', '--yes', '-o', 'json']);
    expect(pruned.code, pruned.stderr).toBe(9);
    expect(pruned.stderr).toContain(skippedLine);
    expect(pruned.stderr).toContain('attention: 1 runner skipped, as other projects use it too');
    expect(pruned.json<Array<{ id: number; outcome: string }>>()).toEqual([expect.objectContaining({ id: own, outcome: 'deleted' })]);
    expect(await restIds()).toContain(shared);
    expect(await restIds()).not.toContain(own);
    // Nothing else to delete: still exit 9 while it is skipped.
    const again = await sandbox.run(['runners', 'delete', '--stale', '300d', '--project', 'acme/api', '--yes']);
    expect(again.code, again.stderr).toBe(9);
    expect(again.stderr).toContain('no runner without contact for 300d');
    // A Maintainer of its projects may not delete it (the service says so); an administrator may.
    const maintainer = await sandbox.run(['runners', 'delete', String(shared), '--yes'], { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('maintainer') } });
    expect(maintainer.code).toBe(4);
    expect(maintainer.stderr).toContain('Runner associated with more than one project');
    // Asked for by its id, it is deleted after a question that names every project it is taken from.
    const asked = await sandbox.run(['runners', 'delete', String(shared)]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain(`error: confirmation needed: Delete runner ${shared} ("long-gone-0"), a runner of projects acme/api, acme/web (deleting it takes it from all 2)`);
    expect((await sandbox.run(['runners', 'delete', String(shared), '--yes'])).code).toBe(0);
    expect(await restIds()).not.toContain(shared);
  });
});

describe('runners delete --stale (the same reviewed deletion, from the verb users reach for)', () => {
  it('lists, asks, and deletes the stale runners in batches of 50; an ID and --stale together, or neither, are refused before anything is sent', async () => {
    const ids = oldRunners(51, 150, 'verb');
    sandbox.clearRequests();
    const asked = await sandbox.run(['runners', 'delete', '--stale', '90d', '--instance']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('runners without contact for 90d');
    expect(asked.stderr).toContain('error: confirmation needed: Delete these');
    for (const args of [['runners', 'delete'], ['runners', 'delete', '3', '--stale', '90d'], ['runners', 'delete', '3', '--instance'], ['runners', 'delete', '--stale', '9x']]) {
      expect((await sandbox.run(args)).code, args.join(' ')).toBe(2);
    }
    expect(mutations()).toEqual([]);
    const done = await sandbox.run(['runners', 'delete', '--stale', '90d', '--instance', '--yes', '-o', 'json']);
    expect(done.code, done.stderr).toBe(0);
    const rows = done.json<Array<{ outcome: string }>>();
    expect(rows.length).toBeGreaterThanOrEqual(ids.length);
    expect(mutations()).toHaveLength(Math.ceil(rows.length / 50));
    expect(rows.every((row) => row.outcome === 'deleted')).toBe(true);
    expect((await restIds()).filter((id) => ids.includes(id))).toEqual([]);
    expect((await sandbox.run(['runners', 'audit', '--instance', '--stale', '90d'])).code).toBe(0);
  });
});
