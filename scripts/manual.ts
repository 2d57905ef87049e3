// Writes the manual from the command tree: the reference pages (--markdown DIR, for docs/commands/: npm run docs),
// the man pages (--man DIR, for dist/man/: scripts/build.mjs, so `npm pack` ships them) and the list of them in
// package.json (--man-field FILE: npm run docs). A folder given is emptied first, so a page of a command that is
// gone goes with it.
// Usage (through scripts/run-script.mjs, which bundles it): manual.cjs [--markdown DIR] [--man DIR] [--man-field FILE]
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { commands } from '../src/commands/manifest.js';
import { referencePages } from './manual/markdown.js';
import { buildManual } from './manual/model.js';
import { manPages } from './manual/roff.js';

function writeAll(folder: string, pages: Map<string, string>): void {
  rmSync(folder, { recursive: true, force: true });
  for (const [file, text] of pages) {
    mkdirSync(dirname(join(folder, file)), { recursive: true });
    writeFileSync(join(folder, file), text);
  }
}

/**
 * package.json's "man": the man pages scripts/build.mjs writes into dist/man/, which `npm install -g` links into the
 * prefix's share/man/man1/ (npm reads no folder of them: each is named). Only that field's text is rewritten.
 */
function writeManField(file: string, pages: string[]): void {
  const text = readFileSync(file, 'utf8');
  const field = `"man": [\n${pages.map((page) => `    "./dist/man/${page}"`).join(',\n')}\n  ]`;
  const next = /"man": \[[^\]]*\]/.test(text) ? text.replace(/"man": \[[^\]]*\]/, field) : text.replace(/("bin": \{[^}]*\},\n)/, `$1  ${field},\n`);
  if (next !== text) writeFileSync(file, next);
}

async function writeManual(args: string[]): Promise<void> {
  const value = (flag: string) => (args.includes(flag) ? (args[args.indexOf(flag) + 1] ?? '') : undefined);
  const [markdown, man, manField] = [value('--markdown'), value('--man'), value('--man-field')];
  if ([markdown, man, manField].every((given) => given === undefined) || [markdown, man, manField].includes('')) throw new Error('usage: manual [--markdown DIR] [--man DIR] [--man-field PACKAGE_JSON]');
  const manual = await buildManual(commands, __FORGECTL_VERSION__);
  if (markdown) writeAll(markdown, referencePages(manual));
  if (man) writeAll(man, manPages(manual));
  if (manField) writeManField(manField, [...manPages(manual).keys()]);
}

writeManual(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
