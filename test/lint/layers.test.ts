import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * `npm run lint` (the project's eslint.config.js) refuses an upward import, a sandbox route module importing another,
 * an import circle, and a function too long to take in at once. Each case lints a module's text as if it stood at a real path of src/, so the rules resolve
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
    expect(await problems("import { badges } from '../resources/badges/resource.js';\nexport const x = badges;\n", 'src/sandbox/probe.ts')).toEqual([]);
    const found = await problems("import { Api } from '../api/client.js';\nexport const x = Api;\n", 'src/sandbox/probe.ts');
    expect(found).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*not the client/)]);
  });

  it('fails when a sandbox module imports another module, or a shared sandbox module imports one', async () => {
    // A resource's sandbox module reads the data layer, the shared modules and the declarations …
    const reads = "import { commitOf } from '../../sandbox/repository-access.js';\nimport { commits } from '../../sandbox/model.js';\nimport { deployTokens } from './resource.js';\nexport const x = [commitOf, commits, deployTokens];\n";
    expect(await problems(reads, 'src/resources/deploy-tokens/sandbox.ts')).toEqual([]);
    expect(await problems(reads, 'src/resources/deploy-tokens/sandbox-probe.ts')).toEqual([]);
    // … never another module, a resource's or the sandbox's own (the generated routes/index.ts imports them all).
    const found = await problems("import { repository } from '../repository/sandbox.js';\nexport const x = repository;\n", 'src/resources/deploy-tokens/sandbox.ts');
    expect(found).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*"\.\.\/repository\/sandbox\.js".*never another module/)]);
    const own = await problems("import { fleet } from './fleet.js';\nexport const x = fleet;\n", 'src/sandbox/routes/probe.ts');
    expect(own).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*"\.\/fleet\.js".*never another module/)]);
    expect(await problems("import * as fleet from './fleet.js';\nimport * as badges from '../../resources/badges/sandbox.js';\nexport const x = [fleet, badges];\n", 'src/sandbox/routes/index.ts')).toEqual([]);
    // A shared module below the modules does not reach up into one either.
    const upward = await problems("import { badges } from '../resources/badges/sandbox.js';\nexport const x = badges;\n", 'src/sandbox/probe.ts');
    expect(upward).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*"\.\.\/resources\/badges\/sandbox\.js".*only server\.ts imports the sandbox modules/)]);
  });

  it('places each file of a resource folder in its layer by its name', async () => {
    // The declaration stands with the API's: it may not reach up into the CLI, nor into the client.
    const cli = await problems("import { defineCommand } from '../../cli/command.js';\nexport const x = defineCommand;\n", 'src/resources/deploy-tokens/resource.ts');
    expect(cli).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*a layer imports only downward/)]);
    const client = await problems("import { Api } from '../../api/client.js';\nexport const x = Api;\n", 'src/resources/deploy-tokens/resource.ts');
    expect(client).toContainEqual(expect.stringMatching(/^import-x\/no-restricted-paths: .*a declaration does not import the client/));
    // The command framework, like the transport and the output, names no resource, not even its declaration.
    const framework = await problems("import { badges } from '../resources/badges/resource.js';\nexport const x = badges;\n", 'src/cli/probe.ts');
    expect(framework).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*the command framework know no resource/)]);
    // A command of the folder may read the CLI; the layers below may not read a command.
    expect(await problems("import { defineCommand } from '../../cli/command.js';\nexport const x = defineCommand;\n", 'src/resources/deploy-tokens/probe.ts')).toEqual([]);
    const down = await problems("import { ownedTokens } from '../resources/deploy-tokens/shared.js';\nexport const x = ownedTokens;\n", 'src/desired/probe.ts');
    expect(down).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*a layer imports only downward/)]);
    // The desired-state section stands with desired state: the generated section list may import it, it may not read the CLI.
    expect(await problems("import { projectVariablesSection } from '../../resources/variables/desired.js';\nexport const x = projectVariablesSection;\n", 'src/desired/sections/probe.ts')).toEqual([]);
    const up = await problems("import { defineCommand } from '../../cli/command.js';\nexport const x = defineCommand;\n", 'src/resources/variables/desired.ts');
    expect(up).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*a layer imports only downward/)]);
    // A declaration (resource.ts, values.ts) is written with the field kit alone, and may read another declaration.
    expect(await problems("import { f } from '../../api/fields.js';\nimport { USER_FIELDS } from '../users/resource.js';\nexport const x = [f, USER_FIELDS];\n", 'src/resources/members/resource.ts')).toEqual([]);
    const beyondKit = await problems("import { gitBlobId } from '../../git/objects.js';\nexport const x = gitBlobId;\n", 'src/resources/deploy-tokens/values.ts');
    expect(beyondKit).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*reads only the field kit/)]);
    // A resource's sandbox module reads its own declaration, not another resource's.
    const other = await problems("import { variables } from '../variables/resource.js';\nexport const x = variables;\n", 'src/resources/deploy-tokens/sandbox.ts');
    expect(other).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*reads its own declaration/)]);
    // The sandbox module reads no command.
    const command = await problems("import { ownedTokens } from './shared.js';\nexport const x = ownedTokens;\n", 'src/resources/deploy-tokens/sandbox.ts');
    expect(command).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*the sandbox reads only/)]);
  });

  it('fails on a function longer than 80 lines, in the sandbox too', async () => {
    const lines = (count: number) => `export function long(): number {\n  let n = 0;\n${'  n++;\n'.repeat(count - 4)}  return n;\n}\n`;
    expect(await problems(lines(80), 'src/desired/probe.ts')).toEqual([]);
    expect(await problems(lines(81), 'src/desired/probe.ts')).toEqual([expect.stringMatching(/^max-lines-per-function: .*too many lines \(81\)/)]);
    expect(await problems(lines(81), 'src/resources/deploy-tokens/probe.ts')).toEqual([expect.stringMatching(/^max-lines-per-function: /)]);
    // The sandbox is held to it too: a resource's module and the kernel.
    expect(await problems(lines(81), 'src/resources/deploy-tokens/sandbox.ts')).toEqual([expect.stringMatching(/^max-lines-per-function: /)]);
    expect(await problems(lines(81), 'src/resources/users/sandbox-accounts.ts')).toEqual([expect.stringMatching(/^max-lines-per-function: /)]);
    expect(await problems(lines(81), 'src/sandbox/crud.ts')).toEqual([expect.stringMatching(/^max-lines-per-function: /)]);
  });

  it('fails on an import circle', async () => {
    // src/api/client.ts imports src/api/path.ts: path.ts importing the client back closes a loop.
    const found = await problems("import { Api } from './client.js';\nexport const x = Api;\n", 'src/api/path.ts');
    expect(found).toContainEqual(expect.stringMatching(/^import-x\/no-cycle: Dependency cycle/));
  });
});
