import { beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';
import { groups, groupWikis, projects, snippets, storageMoveTable, tokens, type MoveKind } from '../../sandbox/model.js';
import { configureStorageMoves } from './sandbox.js';

const STEP_MS = 60_000;
const sandbox = useTestSandbox();
let aliceToken: string;

beforeAll(async () => {
  // Long steps: states change only when a test ages a move, so nothing depends on timing.
  configureStorageMoves(sandbox.db, { stepMs: STEP_MS });
  aliceToken = tokens(sandbox.db).find((t) => t.name === 'alice-token')!.token;
});

const call = (...args: Parameters<TestSandbox['call']>) => sandbox.call(...args);

/** Moves a move's creation time back by `steps` states. */
function age(kind: MoveKind, id: number, steps: number): void {
  const move = storageMoveTable(sandbox.db).find((m) => m.kind === kind && m.id === id)!;
  move.created_at = new Date(Date.parse(move.created_at) - steps * STEP_MS).toISOString();
}

const project = (path: string) => projects(sandbox.db).find((p) => p.path_with_namespace === path)!;

describe('sandbox: repository storage moves (administrators only)', () => {
  it('answers 403 to a user who is not an administrator, on every route', async () => {
    for (const [method, path] of [
      ['GET', '/project_repository_storage_moves'],
      ['POST', '/project_repository_storage_moves'],
      ['GET', '/projects/acme%2Fapi/repository_storage_moves'],
      ['POST', '/projects/acme%2Fapi/repository_storage_moves'],
      ['GET', '/snippet_repository_storage_moves/1'],
      ['GET', '/group_repository_storage_moves'],
    ]) {
      expect(await call(method, path, method === 'POST' ? { source_storage_name: 'default' } : undefined, aliceToken)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    }
    expect(storageMoveTable(sandbox.db)).toHaveLength(0);
  });

  it('schedules one project: 201, read-only while it moves, then on the new storage once finished', async () => {
    const created = await call('POST', '/projects/acme%2Fapi/repository_storage_moves', { destination_storage_name: 'storage2' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      state: 'scheduled',
      source_storage_name: 'default',
      destination_storage_name: 'storage2',
      project: { id: 1, path_with_namespace: 'acme/api', name: 'api', name_with_namespace: 'Acme / api', description: 'The api of Acme' },
    });
    expect(Object.keys(created.body.project).sort()).toEqual(['created_at', 'description', 'id', 'name', 'name_with_namespace', 'path', 'path_with_namespace']);
    expect(project('acme/api').repository_read_only).toBe(true);
    // A repository that is moving cannot be scheduled again.
    expect(await call('POST', '/projects/1/repository_storage_moves', { destination_storage_name: 'storage2' })).toMatchObject({ status: 400, body: { message: { project: ['is read-only'] } } });

    const id = created.body.id as number;
    age('project', id, 1);
    expect((await call('GET', `/project_repository_storage_moves/${id}`)).body.state).toBe('started');
    age('project', id, 1);
    expect((await call('GET', `/projects/1/repository_storage_moves/${id}`)).body.state).toBe('replicated');
    age('project', id, 1);
    expect((await call('GET', `/projects/acme%2Fapi/repository_storage_moves/${id}`)).body.state).toBe('finished');
    expect(project('acme/api')).toMatchObject({ repository_storage: 'storage2', repository_read_only: false });
  });

  it('checks storage names and move ids as the service does', async () => {
    expect(await call('POST', '/projects/2/repository_storage_moves', { destination_storage_name: 'nowhere' })).toMatchObject({
      status: 400,
      body: { message: { destination_storage_name: ['is not included in the list'] } },
    });
    expect(await call('POST', '/project_repository_storage_moves', {})).toMatchObject({ status: 400, body: { error: 'source_storage_name is missing' } });
    expect(await call('POST', '/project_repository_storage_moves', { source_storage_name: 'nowhere' })).toMatchObject({ status: 400, body: { error: 'source_storage_name does not have a valid value' } });
    expect(await call('POST', '/project_repository_storage_moves', { source_storage_name: 'default', destination_storage_name: 'x' })).toMatchObject({ status: 400, body: { error: 'destination_storage_name does not have a valid value' } });
    expect(await call('GET', '/project_repository_storage_moves/999')).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await call('GET', '/project_repository_storage_moves/abc')).toMatchObject({ status: 400, body: { error: 'repository_storage_move_id is invalid' } });
    expect(await call('GET', '/projects/acme%2Fnope/repository_storage_moves')).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });

  it('schedules every project on a storage (202) and lists the moves newest first with pagination headers', async () => {
    const before = storageMoveTable(sandbox.db).length;
    expect(await call('POST', '/project_repository_storage_moves', { source_storage_name: 'default', destination_storage_name: 'storage2' })).toEqual(
      expect.objectContaining({ status: 202, body: { message: '202 Accepted' } }),
    );
    // Only acme/web is still on default; the bulk worker creates its moves in `initial`.
    const added = storageMoveTable(sandbox.db).slice(before);
    expect(added.map((m) => [m.kind, m.container_id, m.source_storage_name, m.destination_storage_name])).toEqual([['project', 2, 'default', 'storage2']]);
    const list = await call('GET', '/project_repository_storage_moves?per_page=1');
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ id: added[0].id, state: 'initial', project: { path_with_namespace: 'acme/web' } });
    expect(list.headers.get('x-total')).toBe('2');
    expect(list.headers.get('x-next-page')).toBe('2');
    age('project', added[0].id, 1);
    expect((await call('GET', `/project_repository_storage_moves/${added[0].id}`)).body.state).toBe('scheduled');
    age('project', added[0].id, 10);
    expect((await call('GET', '/projects/2/repository_storage_moves')).body[0].state).toBe('finished');
  });

  it('fails a move when told to; the repository is writable again and rescheduling works', async () => {
    configureStorageMoves(sandbox.db, { failNext: 1 });
    const failing = await call('POST', '/projects/2/repository_storage_moves', { destination_storage_name: 'default' });
    expect(failing.status).toBe(201);
    age('project', failing.body.id, 2);
    expect((await call('GET', `/project_repository_storage_moves/${failing.body.id}`)).body.state).toBe('failed');
    expect(project('acme/web')).toMatchObject({ repository_storage: 'storage2', repository_read_only: false });
    const retry = await call('POST', '/projects/2/repository_storage_moves', { destination_storage_name: 'default' });
    age('project', retry.body.id, 10);
    expect((await call('GET', `/project_repository_storage_moves/${retry.body.id}`)).body.state).toBe('finished');
    expect(project('acme/web').repository_storage).toBe('default');
  });

  it('moves snippets with the snippet fields of api-facts §1.17', async () => {
    const snippet = snippets(sandbox.db)[0];
    const created = await call('POST', `/snippets/${snippet.id}/repository_storage_moves`, {});
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ destination_storage_name: 'storage2', snippet: { id: snippet.id, title: 'Deploy checklist', project_id: 1, visibility: 'private' } });
    expect(Object.keys(created.body.snippet).sort()).toEqual(['created_at', 'description', 'http_url_to_repo', 'id', 'project_id', 'raw_url', 'ssh_url_to_repo', 'title', 'updated_at', 'visibility', 'web_url']);
    expect(snippets(sandbox.db)[0].repository_read_only).toBe(true);
    expect((await call('GET', '/snippet_repository_storage_moves')).body).toHaveLength(1);
    expect(await call('GET', '/snippets/999/repository_storage_moves')).toMatchObject({ status: 404, body: { message: '404 Snippet Not Found' } });
  });

  it('moves group wikis (Premium) with the group fields', async () => {
    expect(await call('POST', '/group_repository_storage_moves', { source_storage_name: 'default' })).toMatchObject({ status: 202 });
    const list = await call('GET', '/group_repository_storage_moves');
    expect(list.body).toEqual([expect.objectContaining({ state: 'initial', destination_storage_name: 'storage2', group: { id: 1, web_url: `${sandbox.rootUrl}/groups/acme`, name: 'Acme' } })]);
    age('group', list.body[0].id, 10);
    expect((await call('GET', '/groups/acme/repository_storage_moves')).body[0].state).toBe('finished');
    expect(groupWikis(sandbox.db).find((w) => w.group_id === groups(sandbox.db)[0].id)!.repository_storage).toBe('storage2');

    const free = await startTestSandbox({ tier: 'free' });
    try {
      const response = await fetch(`${free.url}/group_repository_storage_moves`, { headers: { 'PRIVATE-TOKEN': free.adminToken } });
      expect(response.status).toBe(403);
    } finally {
      await free.close();
    }
  });
});

describe('sandbox: GET /projects', () => {
  it('filters by repository_storage for administrators and hides the field from others', async () => {
    project('acme/web').repository_storage = 'default';
    project('acme/api').repository_storage = 'storage2';
    const onDefault = await call('GET', '/projects?repository_storage=default');
    expect(onDefault.body.map((p: { path_with_namespace: string }) => p.path_with_namespace)).toEqual(['acme/web']);
    expect(onDefault.headers.get('x-total')).toBe('1');
    const asAlice = await call('GET', '/projects?repository_storage=default&order_by=id&sort=asc', undefined, aliceToken);
    expect(asAlice.body.map((p: { id: number }) => p.id)).toEqual([1, 2]);
    expect(asAlice.body[0]).not.toHaveProperty('repository_storage');
    expect(await call('GET', '/projects?order_by=stars')).toMatchObject({ status: 400, body: { error: 'order_by does not have a valid value' } });
  });
});
