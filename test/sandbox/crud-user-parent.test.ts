import { describe, expect, it } from 'vitest';
import { f } from '../../src/api/fields.js';
import { defineResource } from '../../src/api/resource.js';
import { crudModule } from '../../src/sandbox/crud.js';
import { Db } from '../../src/sandbox/db.js';
import { HttpError, type SandboxRequest, type SandboxResponse } from '../../src/sandbox/http.js';
import { users } from '../../src/sandbox/model.js';
import { Router } from '../../src/sandbox/router.js';
import { seedCore } from '../../src/sandbox/seed.js';

/** Records a user owns, declared as any other resource: `parent: 'user'` puts `{user}` in the routes. */
const gpgKeys = defineResource({
  noun: 'GPG key',
  command: 'gpg-keys',
  parent: 'user',
  id: { param: 'key_id', field: 'id' },
  routes: {
    list: 'GET /users/{user}/gpg_keys',
    get: 'GET /users/{user}/gpg_keys/{key_id}',
    create: 'POST /users/{user}/gpg_keys',
    delete: 'DELETE /users/{user}/gpg_keys/{key_id}',
  },
  fields: { id: f.int({ min: 1, readOnly: true }), key: f.string({ create: 'required' }), created_at: f.time({ readOnly: true }) },
  columns: ['id', 'created_at'],
  identity: ['key'],
  roles: { read: 'guest', write: 'owner' },
});

describe('the generic sandbox module of records under a user', () => {
  const db = new Db();
  seedCore(db, { seed: 'demo', users: 0, fleet: 0, now: new Date('2026-03-01T00:00:00Z') });
  const router = new Router();
  crudModule(gpgKeys).routes(router, new Router());
  const [root, alice] = ['root', 'alice'].map((name) => users(db).find((u) => u.username === name)!);

  /** Sends a request straight to the route the router picks, as the dispatcher does after authentication. */
  async function call(method: string, path: string, as: typeof root | undefined, input: Record<string, unknown> = {}): Promise<SandboxResponse> {
    const route = router.match(method, path)!;
    const req = { method, rawPath: path, params: route.params, input, query: {}, body: input, files: {}, headers: {}, db, user: as, tier: 'ultimate', rootUrl: 'http://sandbox', baseUrl: 'http://sandbox/api/v4', now: () => new Date('2026-03-01T00:00:00Z'), pushed: () => undefined } as unknown as SandboxRequest;
    try {
      return await route.handler(req);
    } catch (error) {
      if (error instanceof HttpError) return { status: error.status, body: error.body };
      throw error;
    }
  }

  it('stores a record under the user the route names (id or username), for administrators', async () => {
    const made = await call('POST', '/users/alice/gpg_keys', root, { key: 'KEY-A' });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ id: expect.any(Number), key: 'KEY-A', created_at: '2026-03-01T00:00:00.000Z' });
    const id = (made.body as { id: number }).id;
    expect((await call('GET', `/users/${alice.id}/gpg_keys`, alice)).body).toEqual([made.body]);
    expect((await call('GET', `/users/${alice.id}/gpg_keys/${id}`, alice)).body).toEqual(made.body);
    expect((await call('GET', '/users/root/gpg_keys', alice)).body).toEqual([]);
    expect((await call('GET', `/users/root/gpg_keys/${id}`, alice)).status).toBe(404);
  });

  it('refuses changes by others than administrators (403), anonymous reads (401) and unknown users (404)', async () => {
    expect((await call('POST', '/users/alice/gpg_keys', alice, { key: 'KEY-B' })).status).toBe(403);
    expect((await call('GET', '/users/alice/gpg_keys', undefined)).status).toBe(401);
    expect(await call('GET', '/users/nobody/gpg_keys', root)).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect((await call('POST', '/users/alice/gpg_keys', root, {})).status).toBe(400);
  });
});
