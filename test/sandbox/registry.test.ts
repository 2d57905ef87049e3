import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { placements } from '../../src/api/resource.js';
import { collectModules, type SandboxModule } from '../../src/sandbox/module.js';
import { Router, routePattern, type Handler, type RouteOptions } from '../../src/sandbox/router.js';
import { modules } from '../../src/sandbox/routes/index.js';
import * as commits from '../../src/sandbox/routes/commits.js';
import { core } from '../../src/sandbox/routes/core.js';
import * as repository from '../../src/sandbox/routes/repository.js';

const ok = (name: string) => () => ({ status: 200, body: name });

/** A router that also keeps every route added to it, as `METHOD /pattern`. */
class Recording extends Router {
  readonly served: string[] = [];
  override add(method: string, pattern: string, handler: Handler, options?: RouteOptions): void {
    this.served.push(`${method} ${pattern}`);
    super.add(method, pattern, handler, options);
  }
}

/** Every route of every declaration in src/api/resources/. */
async function declaredRoutes(): Promise<string[]> {
  const routes = new Set<string>();
  for (const file of readdirSync(new URL('../../src/api/resources/', import.meta.url)).map((name) => name.replace(/\.ts$/, ''))) {
    for (const value of Object.values((await import(`../../src/api/resources/${file}.ts`)) as Record<string, unknown>)) {
      if (typeof value !== 'object' || value === null) continue;
      if ('parents' in value || ('routes' in value && 'fields' in value)) {
        for (const placement of placements(value as never)) for (const route of Object.values(placement.routes)) routes.add(route);
      } else if (Object.values(value).every((route) => typeof route === 'string' && /^[A-Z]+ \//.test(route))) {
        for (const route of Object.values(value) as string[]) routes.add(route); // INSTANCE_DEPLOY_KEYS
      }
    }
  }
  return [...routes];
}

/** Personal access tokens of routes/tokens.ts, served as `:id` where the declaration says {token_id}: they move with that module. */
const UNSERVED_PENDING = ['GET /personal_access_tokens/{token_id}', 'DELETE /personal_access_tokens/{token_id}', 'POST /personal_access_tokens/{token_id}/rotate'];
/** Declared with {user_id} where every other route says {user}: the access-token declaration moves with routes/tokens.ts. */
const MISNAMED_PENDING = ['POST /users/{user_id}/personal_access_tokens'];

const module = (seedAfter?: string[]): SandboxModule => ({ routes: () => undefined, seedAfter });

describe('the sandbox route table', () => {
  it('answers with the most specific route, whatever order the modules add them in', () => {
    const router = new Router();
    router.get('/projects/:id/badges/:badge_id', ok('one'));
    router.get('/projects/:id/*rest', ok('splat'));
    router.get('/projects/:id/badges/render', ok('render'));
    router.get('/projects/:id/repository/archive.:format', ok('archive'));
    router.get('/projects/:id/repository/:anything', ok('param'));
    const answer = (path: string) => router.match('GET', path)?.handler({} as never);
    expect(answer('/projects/1/badges/render')).toEqual({ status: 200, body: 'render' });
    expect(answer('/projects/1/badges/7')).toEqual({ status: 200, body: 'one' });
    expect(answer('/projects/1/repository/archive.zip')).toEqual({ status: 200, body: 'archive' });
    expect(answer('/projects/1/repository/tree')).toEqual({ status: 200, body: 'param' });
    expect(answer('/projects/1/pipelines/3/jobs')).toEqual({ status: 200, body: 'splat' });
  });

  it('holds every route file\'s module: core first, then by file name, each after those it seeds after', () => {
    const [a, b, core, z] = [module(['z']), module(), module(), module()];
    expect(collectModules({ a: { a }, b: { b, helper: () => undefined }, core: { core, again: core }, z: { z }, notes: {} })).toEqual([core, z, a, b]);
    expect(() => collectModules({ a: { a, b } })).toThrow('exports 2 modules');
    expect(() => collectModules({ a: { a } })).toThrow('module z (named in a seedAfter) does not exist');
    expect(() => collectModules({ a: { a }, z: { z: module(['a']) } })).toThrow('in a circle');
  });

  it('is generated from the folder: every route file with a module is registered, in seed order', () => {
    expect(modules[0]).toBe(core);
    expect(modules.indexOf(repository.repository)).toBeLessThan(modules.indexOf(commits.commits));
    expect(new Set(modules).size).toBe(modules.length);
  });

  it('serves every declared route from its declaration, with one parameter name per segment', async () => {
    const api = new Recording();
    for (const one of modules) one.routes(api, new Router());
    const served = new Set(api.served);
    // HEAD is answered by the GET route of the same path.
    const unserved = (await declaredRoutes()).filter((route) => !served.has(routePattern(route.replace(/^HEAD /, 'GET ')).join(' ')));
    expect(unserved.sort()).toEqual(UNSERVED_PENDING.sort());
    // The project, group and user a path names are {project}, {group} and {user} on every route, declared or not.
    const misnamed = (await declaredRoutes()).map((route) => routePattern(route).join(' ')).concat(api.served)
      .filter((route) => /\/(projects|groups|users)\/:(?!(project|group|user)\b)/.test(route));
    expect([...new Set(misnamed)]).toEqual(MISNAMED_PENDING.map((route) => routePattern(route).join(' ')));
  });
});
