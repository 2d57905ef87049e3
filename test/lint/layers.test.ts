import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * `npm run lint` (the project's eslint.config.js) refuses an upward import, a sandbox route module importing another,
 * and an import circle. Each case lints a module's text as if it stood at a real path of src/, so the rules resolve
 * its imports against the real tree.
 */
const cwd = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd });

async function problems(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('layers and circles (eslint)', { timeout: 60_000 }, () => {
  it('passes a module as it stands', async () => {
    expect(await problems("import { UsageError } from '../errors.js';\nexport const x = UsageError;\n", 'src/http/probe.ts')).toEqual([]);
  });

  it('fails on an upward import (http importing cli)', async () => {
    const found = await problems("import { defineCommand } from '../cli/command.js';\nexport const x = defineCommand;\n", 'src/http/probe.ts');
    expect(found).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*"\.\.\/cli\/command\.js".*a layer imports only downward/)]);
  });

  it('fails when a lower layer imports a type from a higher one', async () => {
    const found = await problems("import type { Context } from '../cli/command.js';\nexport type X = Context;\n", 'src/fleet/probe.ts');
    expect(found).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: /)]);
  });

  it('fails when output, below the profiles, downloads and desired state, imports one of them', async () => {
    const found = await problems("import { runDownload } from '../download/engine.js';\nexport const x = runDownload;\n", 'src/output/probe.ts');
    expect(found).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*a layer imports only downward/)]);
  });

  it('fails when the sandbox imports the API client rather than a declaration', async () => {
    expect(await problems("import { badges } from '../api/resources/badges.js';\nexport const x = badges;\n", 'src/sandbox/probe.ts')).toEqual([]);
    const found = await problems("import { Api } from '../api/client.js';\nexport const x = Api;\n", 'src/sandbox/probe.ts');
    expect(found).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*not the client/)]);
  });

  it('fails when a sandbox route module imports another route module, or a shared sandbox module imports one', async () => {
    // A route module reads the data layer and the shared modules beside it …
    expect(await problems("import { commitOf } from '../repository-access.js';\nimport { commits } from '../model.js';\nexport const x = [commitOf, commits];\n", 'src/sandbox/routes/probe.ts')).toEqual([]);
    // … never another route module (the generated routes/index.ts is the only one that imports them all).
    const found = await problems("import { repository } from './repository.js';\nexport const x = repository;\n", 'src/sandbox/routes/probe.ts');
    expect(found).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*"\.\/repository\.js".*never another route module/)]);
    expect(await problems("import * as core from './core.js';\nexport const x = core;\n", 'src/sandbox/routes/index.ts')).toEqual([]);
    // A shared module below the routes does not reach up into one either.
    const upward = await problems("import { core } from './routes/core.js';\nexport const x = core;\n", 'src/sandbox/probe.ts');
    expect(upward).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*"\.\/routes\/core\.js".*only server\.ts imports the route modules/)]);
  });

  it('fails on an import circle', async () => {
    // src/api/client.ts imports src/api/path.ts: path.ts importing the client back closes a loop.
    const found = await problems("import { Api } from './client.js';\nexport const x = Api;\n", 'src/api/path.ts');
    expect(found).toContainEqual(expect.stringMatching(/^import-x\/no-cycle: Dependency cycle/));
  });
});
