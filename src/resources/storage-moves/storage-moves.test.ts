import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { projects, tokens } from '../../sandbox/model.js';
import { configureStorageMoves } from './sandbox.js';
import { storageMoveTable } from '../../sandbox/model.js';

const sandbox = useTestSandbox();
beforeAll(async () => {
  // Short states, so `watch` ends within a fraction of a second.
  configureStorageMoves(sandbox.db, { stepMs: 20 });
});

const posts = () => sandbox.requests().filter((r) => r.method === 'POST');
const project = (path: string) => projects(sandbox.db).find((p) => p.path_with_namespace === path)!;

describe('storage-move schedule: checked, previewed and confirmed before anything is sent', () => {
  it('refuses bad input with exit 2 and sends nothing', async () => {
    sandbox.clearRequests();
    for (const argv of [
      ['storage-move', 'schedule', '--type', 'project', '--to', 'storage2', '--yes'],
      ['storage-move', 'schedule', '--type', 'project', '--from', 'default', '--id', '1', '--yes'],
      ['storage-move', 'schedule', '--type', 'repo', '--from', 'default', '--yes'],
      ['storage-move', 'schedule', '--from', 'default', '--yes'],
      ['storage-move', 'schedule', '--type', 'project', '--from', 'default', '--to', 'default', '--yes'],
      ['storage-move', 'schedule', '--type', 'snippet', '--id', 'abc', '--yes'],
    ]) {
      const result = await sandbox.run(argv);
      expect(result.code, argv.join(' ')).toBe(2);
    }
    expect(sandbox.requests()).toEqual([]);
  });

  it('needs --yes without a terminal, after stating the read-only window', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['storage-move', 'schedule', '--type', 'project', '--from', 'default', '--to', 'storage2']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('2 project repositories on storage "default" to storage "storage2"');
    expect(result.stderr).toContain('read-only from scheduling until its move finishes');
    expect(posts()).toEqual([]);
  });

  it('claims no move before the service took it: refused or unasked, stderr says only what did not happen', async () => {
    const unasked = await sandbox.run(['storage-move', 'schedule', '--type', 'project', '--id', 'acme/web', '--to', 'storage2']);
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toMatch(/^error: confirmation needed: Move project acme\/web from storage "default" to storage "storage2"\? It is read-only/);
    const refused = await sandbox.run(['storage-move', 'schedule', '--type', 'project', '--id', 'acme/web', '--to', 'nosuch', '--yes']);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toMatch(/^error: /);
    expect(refused.stderr).not.toContain('Moving');
  });

  it('prints the request under --dry-run and sends no change', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['storage-move', 'schedule', '--type', 'project', '--id', 'acme/api', '--to', 'storage2', '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('POST http://');
    expect(result.stdout).toContain('/api/v4/projects/acme%2Fapi/repository_storage_moves');
    expect(result.stdout).toContain('"destination_storage_name": "storage2"');
    expect(posts()).toEqual([]);
  });

  it('schedules every project on a storage, and list shows the moves', async () => {
    const result = await sandbox.run(['storage-move', 'schedule', '--type', 'project', '--from', 'default', '--to', 'storage2', '--yes', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json()).toEqual({ type: 'project', source_storage_name: 'default', destination_storage_name: 'storage2', status: 'accepted' });
    expect(posts().map((r) => r.path)).toEqual(['/api/v4/project_repository_storage_moves']);

    const list = await sandbox.run(['storage-move', 'list', '--type', 'project', '-o', 'json']);
    expect(list.code).toBe(0);
    const moves = list.json<Array<Record<string, unknown>>>();
    expect(moves.map((m) => [m.repository, m.source_storage_name, m.destination_storage_name]).sort()).toEqual([
      ['acme/api', 'default', 'storage2'],
      ['acme/web', 'default', 'storage2'],
    ]);
    expect(moves[0]).toHaveProperty('state');
    expect(moves[0]).toHaveProperty('project.path_with_namespace');

    // In a pipe: tab-separated, no header, the moved repository in the third column.
    const tsv = await sandbox.run(['storage-move', 'list', '--type', 'project', '--id', 'acme/web']);
    const [line] = tsv.stdout.trim().split('\n');
    expect(line.split('\t').slice(2, 3)).toEqual(['acme/web']);
  });

  it('says when no project is on the source storage, without scheduling anything', async () => {
    for (const move of storageMoveTable(sandbox.db)) move.created_at = new Date(0).toISOString(); // the moves above are over
    sandbox.clearRequests();
    const result = await sandbox.run(['storage-move', 'schedule', '--type', 'project', '--from', 'default', '--yes']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('nothing to schedule');
    expect(posts()).toEqual([]);
  });

  it('checks one item before scheduling it: missing → exit 5, already there → exit 2', async () => {
    sandbox.clearRequests();
    expect((await sandbox.run(['storage-move', 'schedule', '--type', 'project', '--id', 'acme/nope', '--yes'])).code).toBe(5);
    expect((await sandbox.run(['storage-move', 'schedule', '--type', 'snippet', '--id', '999', '--yes'])).code).toBe(5);
    const already = await sandbox.run(['storage-move', 'schedule', '--type', 'project', '--id', 'acme/api', '--to', 'storage2', '--yes']);
    expect(already.code).toBe(2);
    expect(already.stderr).toContain('already on storage "storage2"');
    expect(posts()).toEqual([]);
  });

  it('answers exit 4 to a user who is not an administrator', async () => {
    const alice = tokens(sandbox.db).find((t) => t.name === 'alice-token')!.token;
    const result = await sandbox.run(['storage-move', 'list', '--type', 'project'], { env: { FORGECTL_TOKEN: alice } });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('403');
  });
});

describe('storage-move get, watch and --projects-on', () => {
  it('schedules one project, watches it to the end (exit 0) and finds it on the new storage', async () => {
    const scheduled = await sandbox.run(['storage-move', 'schedule', '--type', 'project', '--id', 'acme/web', '--to', 'default', '--yes', '-o', 'json']);
    expect(scheduled.code).toBe(0);
    const move = scheduled.json<{ id: number; state: string; repository: string }>();
    expect(move).toMatchObject({ state: 'scheduled', repository: 'acme/web' });
    expect(project('acme/web').repository_read_only).toBe(true);

    // --type defaults to project, as for list and get.
    const watched = await sandbox.run(['storage-move', 'watch', String(move.id), '--interval', '0.05', '-o', 'json']);
    expect(watched.code).toBe(0);
    expect(watched.json()).toMatchObject({ id: move.id, state: 'finished', destination_storage_name: 'default' });
    expect(watched.stderr).toContain('finished');
    expect(project('acme/web')).toMatchObject({ repository_storage: 'default', repository_read_only: false });

    const got = await sandbox.run(['storage-move', 'get', String(move.id), '--type', 'project', '--id', 'acme/web', '-o', 'json']);
    expect(got.json()).toMatchObject({ id: move.id, state: 'finished' });
    expect((await sandbox.run(['storage-move', 'get', '999'])).code).toBe(5);

    const onDefault = await sandbox.run(['storage-move', 'list', '--projects-on', 'default', '-o', 'json']);
    expect(onDefault.json<Array<{ path_with_namespace: string }>>().map((p) => p.path_with_namespace)).toEqual(['acme/web']);
    // A table and CSV show the few columns that matter, not the project's hundred fields; JSON has them all.
    expect(Object.keys(onDefault.json()[0]).length).toBeGreaterThan(50);
    expect((await sandbox.run(['storage-move', 'list', '--projects-on', 'default', '-o', 'csv'])).stdout).toMatch(/^id,path_with_namespace,repository_storage,archived,last_activity_at\r\n2,acme\/web,default,false,/);
    expect((await sandbox.run(['storage-move', 'list', '--projects-on', 'default', '--type', 'group'])).code).toBe(2);
  });

  it('exits 8 when the move fails, with a hint to schedule it again', async () => {
    configureStorageMoves(sandbox.db, { failNext: 1 });
    const scheduled = await sandbox.run(['storage-move', 'schedule', '--type', 'snippet', '--id', '1', '--to', 'storage2', '--yes', '-o', 'json']);
    const id = scheduled.json<{ id: number }>().id;
    const watched = await sandbox.run(['storage-move', 'watch', String(id), '--type', 'snippet', '--interval', '0.05']);
    expect(watched.code).toBe(8);
    expect(watched.stdout).toBe('');
    expect(watched.stderr).toContain('failed');
    expect(watched.stderr).toContain('storage-move schedule --type snippet --id 1 --to storage2');
    expect(storageMoveTable(sandbox.db).find((m) => m.kind === 'snippet' && m.id === id)!.fails).toBe(true);
  });

  it('refuses a bad --interval before polling', async () => {
    sandbox.clearRequests();
    expect((await sandbox.run(['storage-move', 'watch', '1', '--type', 'project', '--interval', '0'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });
});
