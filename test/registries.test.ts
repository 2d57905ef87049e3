import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without types
import { registries } from '../scripts/registries.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('generated registries', () => {
  it('are in step with the folders they list (run `npm run registries` when this fails)', () => {
    const generated = registries() as Array<{ file: string; text: string }>;
    expect(generated.length).toBeGreaterThan(0);
    for (const { file, text } of generated) expect(readFileSync(`${root}/${file}`, 'utf8'), `${file} is stale: run npm run registries`).toBe(text);
  });

  it('list every command folder with a manifest: the workflows\' and the resources\'', () => {
    const areas = (registries() as Array<{ file: string; text: string }>).find((r) => r.file === 'src/commands/areas.ts')!;
    for (const folder of ['auth', 'profile', 'tokens']) expect(areas.text).toContain(`'./${folder}/manifest.js'`);
    for (const folder of ['freeze-periods', 'pull-mirror', 'deploy-tokens']) expect(areas.text).toContain(`'../resources/${folder}/manifest.js'`);
  });

  it('list every sandbox module: the sandbox\'s own and each resource\'s', () => {
    const index = (registries() as Array<{ file: string; text: string }>).find((r) => r.file === 'src/sandbox/routes/index.ts')!;
    expect(index.text).toContain("'./fleet.js'");
    expect(index.text).toContain("'../../resources/deploy-tokens/sandbox.js'");
    expect(index.text).toContain("'users-accounts': usersAccounts,");
  });
});

describe('the desired-state section list', () => {
  // The sections are defined in the resources' folders (desired.ts, listed by the generated all.ts); the order plans
  // show and apply them in (protected branches after the members they may name) is written once, in index.ts.
  it('holds every section the resources define, each once, in its level', async () => {
    const { SECTIONS } = await import('../src/desired/sections/index.js');
    const { sectionModules } = await import('../src/desired/sections/all.js');
    const defined = sectionModules.flatMap((module) => Object.values(module)).filter((value) => typeof value === 'object' && value !== null && 'shape' in value && 'level' in value);
    const listed = Object.values(SECTIONS).flat();
    expect(defined.length).toBeGreaterThan(20);
    expect(new Set(listed).size).toBe(listed.length);
    expect(defined.filter((section) => !listed.includes(section as never))).toEqual([]);
    for (const [level, sections] of Object.entries(SECTIONS)) for (const section of sections) expect(section.level).toBe(level);
    expect(SECTIONS.project.map((section) => section.key).indexOf('protected_branches')).toBeGreaterThan(SECTIONS.project.map((section) => section.key).indexOf('members'));
  });

  it('refuses a section its order leaves out, or one defined twice', async () => {
    const { orderSections } = await import('../src/desired/sections/index.js');
    const section = (key: string, level = 'project') => ({ key, level, shape: 'list' });
    expect(orderSections([{ a: section('a'), helper: () => undefined }, { b: section('b') }], { project: ['b', 'a'], group: [], instance: [] }).project.map((s) => s.key)).toEqual(['b', 'a']);
    expect(() => orderSections([{ a: section('a'), c: section('c') }], { project: ['a'], group: [], instance: [] })).toThrow('project.c have no place in ORDER');
    expect(() => orderSections([{ a: section('a') }, { again: section('a') }], { project: ['a'], group: [], instance: [] })).toThrow('project.a is defined 2 times');
  });
});
