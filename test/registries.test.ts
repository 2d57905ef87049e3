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
  // Its order is the order plans show and apply sections in (protected branches after the members they may name),
  // so it is written by hand; what this holds is that no section a file of src/desired/sections/ or a resource's
  // desired.ts defines is left out.
  it('names every section the files of src/desired/sections/ and the resources\' desired.ts define, each once', async () => {
    const { existsSync, readdirSync } = await import('node:fs');
    const { SECTIONS } = await import('../src/desired/sections/index.js');
    const listed = Object.values(SECTIONS).flat();
    const isSection = (value: unknown): value is { key: string; level: string } =>
      typeof value === 'object' && value !== null && typeof (value as { key?: unknown }).key === 'string' && typeof (value as { level?: unknown }).level === 'string' && typeof (value as { shape?: unknown }).shape === 'string';
    const defined = new Set<unknown>();
    const files = [
      ...readdirSync(`${root}/src/desired/sections`).filter((name) => name.endsWith('.ts') && name !== 'index.ts').map((name) => `../src/desired/sections/${name}`),
      ...readdirSync(`${root}/src/resources`).filter((name) => existsSync(`${root}/src/resources/${name}/desired.ts`)).map((name) => `../src/resources/${name}/desired.ts`),
    ];
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const exports = (await import(file)) as Record<string, unknown>;
      for (const value of Object.values(exports)) if (isSection(value)) defined.add(value);
    }
    expect(defined.size).toBeGreaterThan(20);
    const missing = [...defined].filter((section) => !listed.includes(section as never)).map((section) => `${(section as { level: string }).level}.${(section as { key: string }).key}`);
    expect(missing, 'add these to SECTIONS in src/desired/sections/index.ts, where plans should show them').toEqual([]);
    for (const [level, sections] of Object.entries(SECTIONS)) {
      expect(new Set(sections.map((s) => s.key)).size, `a key listed twice at level ${level}`).toBe(sections.length);
      for (const section of sections) expect(section.level).toBe(level);
    }
  });
});
