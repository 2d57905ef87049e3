// npm run docs: writes the reference pages of every command and help topic into docs/commands/, and the list of the
// man pages into package.json's "man", from the command tree (scripts/manual.ts): test/cli/manual.test.ts fails when
// either is stale. (The man pages themselves are written by every build, into dist/man/.)
import { runScript } from './run-script.mjs';

await runScript('scripts/manual.ts', ['--markdown', 'docs/commands', '--man-field', 'package.json']);
console.log('docs/commands/ and package.json\'s "man" written');
