import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

/** What `curl -X METHOD URL -d BODY` sends: a form content type, whatever the body is. */
const curl = (method: string, path: string, body?: string) =>
  fetch(`${sandbox.rootUrl}/-/sandbox${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }, body });

describe('sandbox fault injection', () => {
  it('reads the body as JSON whatever the content type (curl -d), and the fault matches only what it says', async () => {
    await curl('DELETE', '/faults');
    const added = await curl('POST', '/faults', '{"method":"GET","path":"^/version$","status":503,"times":2}');
    expect(added.status).toBe(201);
    expect(await added.json()).toMatchObject({ method: 'GET', path: '^/version$', status: 503, times: 2 });
    expect((await sandbox.call('GET', '/user')).status).toBe(200);
    expect((await sandbox.call('GET', '/version')).status).toBe(503);
    expect((await sandbox.call('GET', '/version')).status).toBe(503);
    expect((await sandbox.call('GET', '/version')).status).toBe(200);
  });

  it('refuses with 400, storing nothing, a body that is not JSON, unknown keys, wrong types or no effect', async () => {
    await curl('DELETE', '/faults');
    for (const body of ['path=x&status=500', '{"path":"^/version$","stauts":503}', '{"status":"503"}', '{"path":"(","status":500}', '{"path":"^/version$"}', '[]', '{"drop":"later"}', '{"chunked":1}', '{"interleave":"GET /user"}', '{"interleave":{"method":"GET","path":"user"}}', '{"interleave":{"method":"GET","path":"/user","token":"x"}}']) {
      const response = await curl('POST', '/faults', body);
      expect(response.status, body).toBe(400);
      expect(((await response.json()) as { error: string }).error, body).toBeTruthy();
    }
    expect(await (await curl('GET', '/faults')).json()).toEqual([]);
    expect((await sandbox.call('GET', '/version')).status).toBe(200);
  });

  it('interleave: another request, with the matched request\'s credentials, is processed (and logged) just before it', async () => {
    await curl('DELETE', '/requests');
    const before = (await sandbox.call('GET', '/projects/acme%2Fapi/repository/commits/main')).body.id as string;
    const added = await curl('POST', '/faults', JSON.stringify({ method: 'GET', path: '/repository/commits/main$', interleave: { method: 'PUT', path: '/projects/acme%2Fapi/repository/files/README.md', body: { branch: 'main', commit_message: 'in between', content: 'interleaved\n' } } }));
    expect(added.status).toBe(201);
    const head = (await sandbox.call('GET', '/projects/acme%2Fapi/repository/commits/main')).body as { id: string; title: string; author_name: string; parent_ids: string[] };
    expect(head).toMatchObject({ title: 'in between', author_name: 'Administrator', parent_ids: [before] });
    const log = (await (await curl('GET', '/requests')).json()) as Array<{ method: string; path: string; status: number }>;
    expect(log.map(({ method, path, status }) => [method, path, status]).slice(1)).toEqual([
      ['PUT', '/api/v4/projects/acme%2Fapi/repository/files/README.md', 200],
      ['GET', '/api/v4/projects/acme%2Fapi/repository/commits/main', 200],
    ]);
  });

  it('DELETE /-/sandbox/faults removes faults; DELETE /-/sandbox/requests clears the request log', async () => {
    await curl('POST', '/faults', '{"path":"^/version$","status":500,"times":5}');
    await sandbox.call('GET', '/user');
    expect((await curl('DELETE', '/requests')).status).toBe(204);
    expect(await (await curl('GET', '/requests')).json()).toEqual([]);
    expect((await curl('DELETE', '/faults')).status).toBe(204);
    expect(await (await curl('GET', '/faults')).json()).toEqual([]);
    expect((await sandbox.call('GET', '/version')).status).toBe(200);
  });

  it('sends a string body as it is, with the Content-Type of the fault\'s headers', async () => {
    await curl('POST', '/faults', JSON.stringify({ path: '^/users/2$', status: 200, body: '<html>Sign in</html>', headers: { 'Content-Type': 'text/html' } }));
    const response = await sandbox.call('GET', '/users/2');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html');
    expect(response.text).toBe('<html>Sign in</html>');
  });

  it('chunked: true sends the answer in chunks, without a Content-Length; with drop: body, the end never comes', async () => {
    const { request } = await import('node:http');
    const raw = (path: string) =>
      new Promise<{ headers: Record<string, unknown>; body: string; complete: boolean }>((resolve) => {
        request(`${sandbox.url}${path}`, { headers: { 'PRIVATE-TOKEN': sandbox.adminToken } }, (answer) => {
          let body = '';
          answer.on('data', (chunk: Buffer) => (body += chunk.toString()));
          answer.on('error', () => undefined);
          answer.on('close', () => resolve({ headers: answer.headers, body, complete: answer.complete }));
        }).end();
      });
    const whole = await raw('/version');
    await curl('POST', '/faults', '{"path":"^/version$","chunked":true}');
    const chunked = await raw('/version');
    expect([chunked.headers['transfer-encoding'], chunked.headers['content-length'], chunked.body, chunked.complete]).toEqual(['chunked', undefined, whole.body, true]);
    await curl('POST', '/faults', '{"path":"^/version$","chunked":true,"drop":"body"}');
    const cut = await raw('/version');
    expect([cut.body, cut.complete]).toEqual([whole.body.slice(0, -1), false]);
  });

  it('the request log says which connection each request came on', async () => {
    await curl('DELETE', '/requests');
    const { Agent } = await import('node:http');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    for (let k = 0; k < 3; k++) {
      await new Promise<void>((resolve) => {
        void import('node:http').then(({ get }) => get(`${sandbox.url}/version`, { agent, headers: { 'PRIVATE-TOKEN': sandbox.adminToken } }, (answer) => answer.resume().on('end', resolve)));
      });
    }
    agent.destroy();
    const log = (await (await curl('GET', '/requests')).json()) as Array<{ connection: number }>;
    expect(log).toHaveLength(3);
    expect(new Set(log.map((entry) => entry.connection)).size).toBe(1);
  });
});
