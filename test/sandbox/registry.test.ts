import { describe, expect, it } from 'vitest';
import { collectModules, type SandboxModule } from '../../src/sandbox/module.js';
import { Router } from '../../src/sandbox/router.js';
import { modules } from '../../src/sandbox/routes/index.js';
import * as commits from '../../src/sandbox/routes/commits.js';
import { core } from '../../src/sandbox/routes/core.js';
import * as repository from '../../src/sandbox/routes/repository.js';

const ok = (name: string) => () => ({ status: 200, body: name });
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
});
