/**
 * The programs some tests run besides Node, and the one way a test says it needs them. Where one is missing the
 * test is skipped with the reason: the program and the Debian package that brings it. `.ci/run` installs them all
 * and sets FORGECTL_TEST_PROGRAMS=required, under which a missing program fails the tests that need it instead, so
 * CI cannot pass by skipping.
 */
import { accessSync, constants } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { delimiter, join } from 'node:path';

/** Every copy of a program on PATH, first one first. */
function onPathAll(name: string): string[] {
  return (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, name)).filter((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const onPath = (name: string): boolean => onPathAll(name).length > 0;

/** A Python on PATH that can import gitlab: the first python3, or a later one such as Debian's (a pyenv or venv python3 may shadow it). */
export function pythonWithGitlab(): string | undefined {
  return onPathAll('python3').find((python) => spawnSync(python, ['-c', 'import gitlab, requests'], { stdio: 'ignore' }).status === 0);
}

/** A pseudo-terminal runner: util-linux `script` (in every Debian), else Python's pty module; undefined if neither. */
export function ptyRunner(): ((shellCommand: string) => [string, string[]]) | undefined {
  const has = (program: string, args: string[]) => {
    try {
      execFileSync(program, args, { stdio: 'ignore', timeout: 10_000 });
      return true;
    } catch {
      return false;
    }
  };
  if (has('script', ['-qec', 'true', '/dev/null'])) return (command) => ['script', ['-qec', command, '/dev/null']];
  if (has('python3', ['-c', 'import pty'])) {
    return (command) => ['python3', ['-c', 'import pty, sys, os; sys.exit(os.waitstatus_to_exitcode(pty.spawn(["/bin/sh", "-c", sys.argv[1]])))', command]];
  }
  return undefined;
}

interface Program {
  /** The Debian package that brings it. */
  debian: string;
  /** What the reason calls it, when not its name. */
  label?: string;
  /** Whether it is usable here, when being on PATH is not enough. */
  found?: () => boolean;
}

const PROGRAMS = {
  bash: { debian: 'bash' },
  curl: { debian: 'curl' },
  'dbus-daemon': { debian: 'dbus' },
  fish: { debian: 'fish' },
  git: { debian: 'git' },
  // The Secret Service the keyring tests start; the binding asks it through D-Bus on Linux only.
  'gnome-keyring-daemon': { debian: 'gnome-keyring', found: () => process.platform === 'linux' && onPath('gnome-keyring-daemon') },
  jq: { debian: 'jq' },
  // Shows the installed man pages (man-db brings groff, which formats them).
  man: { debian: 'man-db' },
  // What runs a command on a pseudo-terminal (see ptyRunner).
  pty: { debian: 'bsdutils', label: 'a pseudo-terminal (util-linux script, or python3)', found: () => ptyRunner() !== undefined },
  'python-gitlab': { debian: 'python3-gitlab', label: 'python3 with python-gitlab', found: () => pythonWithGitlab() !== undefined },
  'ssh-keygen': { debian: 'openssh-client' },
  tar: { debian: 'tar' },
  tmux: { debian: 'tmux' },
  unzip: { debian: 'unzip' },
  // The completion test drives an interactive zsh through its zpty module.
  zsh: { debian: 'zsh', found: () => onPath('zsh') && spawnSync('zsh', ['-f', '-c', 'zmodload zsh/zpty'], { stdio: 'ignore' }).status === 0 },
} satisfies Record<string, Program>;

export type ProgramName = keyof typeof PROGRAMS;

/** The Debian packages that bring them all (.ci/run installs these). */
export const DEBIAN_PACKAGES = [...new Set(Object.values(PROGRAMS).map((program: Program) => program.debian))].sort();

/** The programs a private Secret Service (the keyring tests) needs. */
export const SECRET_SERVICE: ProgramName[] = ['dbus-daemon', 'gnome-keyring-daemon'];

const foundCache = new Map<ProgramName, boolean>();
const isFound = (name: ProgramName): boolean => {
  if (!foundCache.has(name)) {
    const program: Program = PROGRAMS[name];
    foundCache.set(name, program.found?.() ?? onPath(name));
  }
  return foundCache.get(name)!;
};

/** Why these programs cannot be used here ("zsh not installed (Debian package zsh)"), or undefined when they can. */
export function missingPrograms(...names: ProgramName[]): string | undefined {
  const missing = names.filter((name) => !isFound(name));
  if (!missing.length) return undefined;
  const program = (name: ProgramName): Program => PROGRAMS[name];
  const packages = missing.map((name) => program(name).debian);
  const many = missing.length > 1;
  return `${missing.map((name) => program(name).label ?? name).join(' and ')} not installed (Debian package${many ? 's' : ''} ${packages.join(' and ')}; .ci/run installs ${many ? 'them' : 'it'})`;
}

/** Whether this run must have every program (.ci/run says so): then a missing one fails its tests. */
const required = () => process.env.FORGECTL_TEST_PROGRAMS === 'required';

/**
 * At the start of a test: skips it, saying why, when a program it needs is missing; under .ci/run (which installs
 * them all) fails it instead.
 */
export function needs(context: { skip(note?: string): never }, ...names: ProgramName[]): void {
  const missing = missingPrograms(...names);
  if (!missing) return;
  if (required()) throw new Error(`${missing}; FORGECTL_TEST_PROGRAMS=required says this run must have it`);
  context.skip(missing);
}
