import { describe, expect, it } from 'vitest';
import { placements } from '../../src/api/resource.js';
import { collectModules, type SandboxModule } from '../../src/sandbox/module.js';
import { Router, routePattern, type Handler, type RouteOptions } from '../../src/sandbox/router.js';
import { modules } from '../../src/sandbox/routes/index.js';
import { declarationFolders, declarationModule } from '../helpers/resources.js';
import * as commits from '../../src/resources/commits/sandbox.js';
import { core } from '../../src/resources/features/sandbox.js';
import * as repository from '../../src/resources/repository/sandbox.js';

const ok = (name: string) => () => ({ status: 200, body: name });

/** A router that also keeps every route added to it, as `METHOD /pattern`: those served from a declaration apart. */
class Recording extends Router {
  readonly served: string[] = [];
  readonly literal: string[] = [];
  private declared = false;
  override route(route: string, handler: Handler, options?: RouteOptions): void {
    this.declared = true;
    super.route(route, handler, options);
    this.declared = false;
  }
  override add(method: string, pattern: string, handler: Handler, options?: RouteOptions): void {
    (this.declared ? this.served : this.literal).push(`${method} ${pattern}`);
    super.add(method, pattern, handler, options);
  }
}

/** Every route of every declaration (src/resources/<resource>/resource.ts). */
async function declaredRoutes(): Promise<string[]> {
  const routes = new Set<string>();
  for (const folder of declarationFolders()) {
    for (const value of Object.values(await declarationModule(folder))) {
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

/** `METHOD /a/:x/b` with the parameter names left out, to compare routes whatever they call their parameters. */
const shape = (pattern: string): string => pattern.replace(/([:*])[a-z_]+/g, '$1');

const module = (seedAfter?: string[]): SandboxModule => ({ routes: () => undefined, seedAfter });

describe('the sandbox route table', () => {
  it('answers with the most specific route, whatever order the modules add them in', () => {
    const router = new Router();
    router.add('GET', '/projects/:id/badges/:badge_id', ok('one'));
    router.add('GET', '/projects/:id/*rest', ok('splat'));
    router.add('GET', '/projects/:id/badges/render', ok('render'));
    router.add('GET', '/projects/:id/repository/archive.:format', ok('archive'));
    router.add('GET', '/projects/:id/repository/:anything', ok('param'));
    const answer = (path: string) => router.match('GET', path)?.handler({} as never);
    expect(answer('/projects/1/badges/render')).toEqual({ status: 200, body: 'render' });
    expect(answer('/projects/1/badges/7')).toEqual({ status: 200, body: 'one' });
    expect(answer('/projects/1/repository/archive.zip')).toEqual({ status: 200, body: 'archive' });
    expect(answer('/projects/1/repository/tree')).toEqual({ status: 200, body: 'param' });
    expect(answer('/projects/1/pipelines/3/jobs')).toEqual({ status: 200, body: 'splat' });
  });

  it('holds every module file\'s module: by name, each after those it seeds after', () => {
    const [a, b, c, z] = [module(['z']), module(), module(), module()];
    expect(collectModules({ a: { a }, b: { b, helper: () => undefined }, c: { c, again: c }, z: { z }, notes: {} })).toEqual([z, a, b, c]);
    expect(() => collectModules({ a: { a, b } })).toThrow('exports 2 modules');
    expect(() => collectModules({ a: { a } })).toThrow('module z (named in a seedAfter) does not exist');
    expect(() => collectModules({ a: { a }, z: { z: module(['a']) } })).toThrow('in a circle');
  });

  it('is generated from the folders: every module file with a module is registered, in seed order', () => {
    expect(modules).toContain(core);
    expect(modules.indexOf(repository.repository)).toBeLessThan(modules.indexOf(commits.commits));
    expect(new Set(modules).size).toBe(modules.length);
  });

  it('serves every declared route from its declaration, with one parameter name per segment', async () => {
    const api = new Recording();
    const web = new Recording();
    for (const one of modules) one.routes(api, web);
    const declared = await declaredRoutes();
    // Each declared route is served from its declaration (HEAD by the GET route of the same path) …
    const served = new Set([...api.served, ...web.served].map(shape));
    // … a WEB route below a project's full path (alert intake) at every depth, the shallowest two segments deep.
    const atDepth = (route: string): string => route.replace(/^([A-Z]+) \/\{project\}\//, '$1 /{a}/{b}/');
    expect(declared.filter((route) => !served.has(shape(routePattern(atDepth(route.replace(/^HEAD /, 'GET '))).join(' '))))).toEqual([]);
    // … never as a literal path: a route the client does not declare is the sandbox's own (compatibility, control).
    const shapes = new Set(declared.map((route) => shape(routePattern(route).join(' '))));
    expect(api.literal.filter((route) => shapes.has(shape(route)))).toEqual([]);
    // The project, group and user a path names are {project}, {group} and {user} on every route, declared or not.
    const misnamed = [...declared.map((route) => routePattern(route).join(' ')), ...api.served, ...api.literal]
      .filter((route) => /\/(projects|groups|users)\/:(?!(project|group|user)\b)/.test(route));
    expect(misnamed).toEqual([]);
  });
});
