// Runs a TypeScript script of scripts/ that reads the command tree (help texts, the manual): bundled with esbuild as
// the product is (the version defined, the keyring binding left out), as one CommonJS file in a temporary folder,
// then run by this Node. Throws when it fails.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

export async function runScript(entry, args) {
  const folder = mkdtempSync(join(tmpdir(), 'forgectl-script-'));
  const script = join(folder, `${basename(entry, '.ts')}.cjs`);
  try {
    await build({
      entryPoints: [entry],
      outfile: script,
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      define: { __FORGECTL_VERSION__: JSON.stringify(pkg.version), 'import.meta.url': '__forgectlImportMetaUrl' },
      banner: { js: 'var __forgectlImportMetaUrl=require("node:url").pathToFileURL(__filename).href;' },
      external: ['@napi-rs/keyring'],
      logLevel: 'warning',
    });
    const run = spawnSync(process.execPath, [script, ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (run.status !== 0) throw new Error(`${entry} ${args.join(' ')} failed (exit ${run.status})`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
