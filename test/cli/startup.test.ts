import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, tempDir, useTestSandbox } from '../helpers/cli.js';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
const built = existsSync(`${dist}meta.json`);

/** A preload that records every file of dist/ the bin reads (it loads the bundle itself, with fs.readFileSync). */
const recorder = `${tempDir('forgectl-startup-')}/record.cjs`;
writeFileSync(recorder, `const fs = require('node:fs');
const read = fs.readFileSync;
fs.readFileSync = function (file, ...rest) {
  if (typeof file === 'string' && file.includes('/dist/') && file.endsWith('.js')) process.stderr.write('LOADED ' + file + '\\n');
  return read.call(this, file, ...rest);
};
`);

/** Runs the built CLI, recording every file of dist/ it loads, mapped back to source inputs. */
async function loadedInputs(argv: string[], env: Record<string, string>): Promise<{ code: number | null; inputs: string[] }> {
  const meta = JSON.parse(readFileSync(`${dist}meta.json`, 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  // Asynchronous: the sandbox answering the child runs in this process.
  const child = spawn(process.execPath, ['--require', recorder, BIN, ...argv], { env: { PATH: process.env.PATH, ...env } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const files = [...stderr.matchAll(/^LOADED (.+)$/gm)].map((m) => m[1]);
  expect(argv[0] === '--version' || files.some((file) => file.endsWith('/dist/main.js'))).toBe(true);
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
