import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Whether a program is on PATH (tests that need git, bzip2 or ssh-keygen skip without it). */
export function hasCommand(name: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
