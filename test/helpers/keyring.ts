/**
 * A real Secret Service for the keyring tests: a private D-Bus session bus (`dbus-daemon --session`) with
 * gnome-keyring's secrets component on it, its login keyring created and unlocked with a password on stdin, under a
 * temporary HOME. The processes under test get its bus address in DBUS_SESSION_BUS_ADDRESS. The tests that start one
 * say so with `needs(context, ...SECRET_SERVICE)` (./system.ts), which skips them where the programs are missing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tempDir } from './cli.js';

export interface SecretService {
  /** What a process needs to reach the keyring: the bus address, and the HOME the keyring lives under. */
  env: { DBUS_SESSION_BUS_ADDRESS: string; HOME: string };
  stop(): void;
}

/** Reads a child's stdout until a line matches, or fails after timeoutMs. */
function waitForLine(child: ChildProcess, pattern: RegExp, what: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${timeoutMs / 1000}s: ${out}`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = pattern.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] ?? match[0]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}: ${out}`));
    });
  });
}

/** `loginKeyring: false`: the service runs without a login keyring (an empty password on stdin creates none). */
export async function startSecretService(options: { loginKeyring?: boolean } = {}): Promise<SecretService> {
  const home = tempDir('forgectl-keyring-home-');
  const base = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8' };
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], { env: base, stdio: ['ignore', 'pipe', 'ignore'] });
  let keyring: ChildProcess | undefined;
  const stop = () => {
    keyring?.kill('SIGTERM');
    bus.kill('SIGTERM');
    rmSync(home, { recursive: true, force: true });
  };
  try {
    const address = (await waitForLine(bus, /^(unix:\S+)\n/m, 'dbus-daemon')).trim();
    const env = { DBUS_SESSION_BUS_ADDRESS: address, HOME: home };
    keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], { env: { ...base, ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
    keyring.stdin!.end(options.loginKeyring === false ? '' : 'keyring-test-password');
    // It prints its control socket once it is on the bus with the login keyring unlocked.
    await waitForLine(keyring, /^GNOME_KEYRING_CONTROL=.*\n/m, 'gnome-keyring-daemon');
    return { env, stop };
  } catch (error) {
    stop();
    throw error;
  }
}
