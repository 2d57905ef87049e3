import type { Streams } from '../output/io.js';
import { KEYRING_READY, KEYRING_SERVICE, type KeyringOperation, type KeyringReply } from './keyring.js';

/**
 * The other end of src/config/keyring.ts: forgectl run again as a helper (FORGECTL_INTERNAL_KEYRING_CALL=1 in its
 * environment), making one call of the native binding `@napi-rs/keyring`, which may block this process for as long
 * as the session bus does: argv is the operation and the account (neither is secret), a token to store comes on
 * stdin, the answer is one line of JSON on stdout. The process that started it waits with a deadline, and kills it.
 */

interface KeyringEntry {
  setPassword(password: string): void;
  getPassword(): string | null | undefined;
  deletePassword(): boolean;
}
interface Binding {
  Entry: new (service: string, account: string, options?: { linux?: { store?: 'secret-service' } }) => KeyringEntry;
}

/**
 * A native module cannot be bundled: the bundle (CommonJS) requires it from the package's own dependencies (or, in
 * the single executable, from its assets), where the build leaves it external; the sources, run as ES modules,
 * require it through createRequire.
 */
function requireBinding(): Binding {
  let module: Partial<Binding>;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    module = require('@napi-rs/keyring') as Partial<Binding>;
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error; // `require` is not defined in an ES module
    module = process.getBuiltinModule('node:module').createRequire(import.meta.url)('@napi-rs/keyring') as Partial<Binding>;
  }
  if (typeof module?.Entry !== 'function') throw new Error('it has no Entry class');
  return module as Binding;
}

async function readAll(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) text += String(chunk);
  return text;
}

/**
 * One keyring call; the exit code is 0 whatever the keyring said (the answer says it). The line KEYRING_READY goes
 * first, once this process has started and loaded the binding: the caller's deadline is for the keyring, and starts
 * there (a busy machine may take seconds to start a process, which says nothing about the keyring).
 */
export async function serveKeyringCall(argv: string[], deps: Streams): Promise<number> {
  const [op, account] = argv as [KeyringOperation, string];
  const secret = op === 'write' ? await readAll(deps.stdin as NodeJS.ReadableStream) : '';
  let binding: Binding | KeyringReply;
  try {
    binding = requireBinding();
  } catch (error) {
    binding = failed('load', error);
  }
  deps.stdout.write(KEYRING_READY);
  const reply = 'Entry' in binding ? call(binding, op, account, secret) : binding;
  deps.stdout.write(`${JSON.stringify(reply)}\n`);
  return 0;
}

const failed = (stage: NonNullable<KeyringReply['stage']>, error: unknown): KeyringReply => ({ stage, error: error instanceof Error ? error.message : String(error) });

function call(binding: Binding, op: KeyringOperation, account: string, secret: string): KeyringReply {
  let entry: KeyringEntry;
  try {
    // On Linux only the Secret Service persists: the binding's fallback (the kernel keyring) forgets at log-out.
    entry = new binding.Entry(KEYRING_SERVICE, account, { linux: { store: 'secret-service' } });
  } catch (error) {
    return failed('open', error);
  }
  try {
    if (op === 'read') return { value: entry.getPassword() ?? null };
    if (op === 'delete') return { deleted: entry.deletePassword() };
    entry.setPassword(secret);
  } catch (error) {
    return failed(op, error);
  }
  // A keyring that takes a write but cannot give it back (a locked or read-only store) is no place for a token.
  try {
    return { value: entry.getPassword() ?? null };
  } catch (error) {
    return failed('readback', error);
  }
}
