import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routeRequest } from '../../src/api/client.js';
import { expandRoute, p } from '../../src/api/path.js';

describe('expandRoute', () => {
  it('encodes each path parameter as p`` does and returns the rest', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.integer({ min: 1 }), fc.option(fc.string()), (project, id, name) => {
        const { method, path, rest } = expandRoute('PUT /projects/{project}/badges/{badge_id}', { project, badge_id: id, name: name ?? undefined });
        expect(method).toBe('PUT');
        expect(path).toBe(p`/projects/${project}/badges/${id}`);
        expect(rest).toEqual(name === null ? {} : { name });
      }),
    );
  });

  it('keeps a slash inside one segment, and encodes . and .. as p`` does', () => {
    const route = 'GET /projects/{project}/protected_tags/{name}';
    expect(expandRoute(route, { project: 'acme/api', name: 'release/*' }).path).toBe('/projects/acme%2Fapi/protected_tags/release%2F*');
    for (const name of ['.', '..']) expect(expandRoute(route, { project: 1, name }).path).toBe(p`/projects/${1}/protected_tags/${name}`);
  });

  it('refuses a missing parameter and a malformed route', () => {
    expect(() => expandRoute('GET /projects/{project}/badges', {})).toThrow('no value for {project}');
    expect(() => expandRoute('/projects/{project}', { project: 1 })).toThrow('not a route');
  });
});

describe('routeRequest (what api.call sends)', () => {
  it('puts the other parameters in the query of a GET or DELETE and in the body of a POST, dropping undefined ones', () => {
    expect(routeRequest('GET /groups/{group}/access_tokens', { group: 'acme/ops', state: 'active', search: undefined })).toEqual({ method: 'GET', path: '/groups/acme%2Fops/access_tokens', query: { state: 'active' }, body: undefined });
    expect(routeRequest('POST /personal_access_tokens/{token_id}/rotate', { token_id: 'self', expires_at: '2030-01-31' })).toEqual({ method: 'POST', path: '/personal_access_tokens/self/rotate', query: undefined, body: { expires_at: '2030-01-31' } });
    // Nothing besides the path: no body at all (no content type), as a rotation without an expiry is sent.
    expect(routeRequest('POST /personal_access_tokens/{token_id}/rotate', { token_id: 4, expires_at: undefined }).body).toBeUndefined();
    expect(routeRequest('DELETE /runners', { token: 'glrt-x' }).query).toEqual({ token: 'glrt-x' });
  });

  it('sends a body given apart as it is, whatever the method: a DELETE keeps the secret out of the URL', () => {
    const request = routeRequest('DELETE /admin/token', {}, { token: 'glpat-secret' });
    expect(request).toEqual({ method: 'DELETE', path: '/admin/token', query: undefined, body: { token: 'glpat-secret' } });
  });
});
