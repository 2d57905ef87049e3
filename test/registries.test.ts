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

  it('list every command folder with a manifest', () => {
    const areas = (registries() as Array<{ file: string; text: string }>).find((r) => r.file === 'src/commands/areas.ts')!;
    for (const folder of ['auth', 'profile', 'tokens', 'freeze-periods', 'mirror']) expect(areas.text).toContain(`'./${folder}/manifest.js'`);
  });
});
