import { existsSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, tempDir, useTestSandbox } from '../helpers/cli.js';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
const built = existsSync(`${dist}meta.json`);

/** Runs the built CLI with a module hook that records every file it loads, mapped back to source inputs. */
async function loadedInputs(argv: string[], env: Record<string, string>): Promise<{ code: number | null; inputs: string[] }> {
  const meta = JSON.parse(readFileSync(`${dist}meta.json`, 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  const hook = `data:text/javascript,${encodeURIComponent(`
    import { register } from 'node:module';
    register('data:text/javascript,' + encodeURIComponent(\`
      export async function resolve(specifier, context, next) {
        const result = await next(specifier, context);
        if (result.url.startsWith('file:')) process.stderr.write('LOADED ' + result.url + '\\\\n');
        return result;
      }\`));
  `)}`;
  // Asynchronous: the sandbox answering the child runs in this process.
  const child = spawn(process.execPath, ['--import', hook, BIN, ...argv], { env: { PATH: process.env.PATH, ...env } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const files = [...stderr.matchAll(/^LOADED file:\/\/(.+)$/gm)].map((m) => m[1]);
  const inputs = files.flatMap((file) => {
    const key = file.slice(file.indexOf('/dist/') + 1);
    return Object.keys(meta.outputs[key]?.inputs ?? {});
  });
  return { code: status, inputs };
}

const HEAVY = /node_modules\/(ora|@inquirer|cli-table3|yaml|chalk|conf|selfsigned)\/|src\/sandbox\//;

describe.skipIf(!built)('start-up loads only what the command needs', () => {
  const sandbox = useTestSandbox();

  it('--version loads no command, commander or HTTP code', async () => {
    const { code, inputs } = await loadedInputs(['--version'], {});
    expect(code).toBe(0);
    expect(inputs.filter((i) => /node_modules|src\/commands|src\/http/.test(i))).toEqual([]);
  });

  it.each(['--help', 'freeze-periods --help', 'freeze-periods create --help'])('forgectl %s loads no HTTP client or sandbox', async (line) => {
    const { code, inputs } = await loadedInputs(line.split(' '), { FORGECTL_CONFIG_DIR: tempDir() });
    expect(code).toBe(0);
    expect(inputs.filter((i) => /node_modules\/undici\/|src\/sandbox\//.test(i))).toEqual([]);
  });

  it('api with JSON output loads no prompts, spinners, tables, YAML, conf or sandbox', async () => {
    const { code, inputs } = await loadedInputs(['api', '/user', '-o', 'json'], { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: sandbox.rootUrl, FORGECTL_TOKEN: sandbox.adminToken });
    expect(code).toBe(0);
    expect(inputs.some((i) => i.includes('src/commands/api.ts'))).toBe(true);
    expect(inputs.filter((i) => HEAVY.test(i))).toEqual([]);
  });
});
