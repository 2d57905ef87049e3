import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
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
