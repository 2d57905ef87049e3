// Regenerates completions/forgectl.{bash,zsh,fish} from the built CLI (npm run completions).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

mkdirSync('completions', { recursive: true });
for (const shell of ['bash', 'zsh', 'fish']) {
  const script = execFileSync(process.execPath, ['bin/forgectl.cjs', 'completion', shell], { encoding: 'utf8' });
  writeFileSync(`completions/forgectl.${shell}`, script);
  console.log(`completions/forgectl.${shell}`);
}
