import { readFileSync } from 'node:fs';
import { parsePublicKey, type PublicKey } from './values.js';
import { UsageError } from '../../errors.js';

/**
 * An OpenSSH public key given as text (`--key`) or read from a file (`--key-file`), checked here before anything is
 * sent: a private key is refused without being repeated (it never reaches the instance, the terminal or a log), and
 * anything else that is not one public key line is refused too.
 */
export function publicKeyFrom(text: string, where: string): { line: string; key: PublicKey } {
  if (/PRIVATE KEY|PuTTY-User-Key-File/.test(text)) {
    throw new UsageError(`${where} is a private key, which must never leave this machine; nothing was sent`, 'give the public key: the .pub file beside it (ssh-keygen -y -f KEY prints it)');
  }
  const key = parsePublicKey(text);
  if (!key) throw new UsageError(`${where} is not an OpenSSH public key ("ssh-ed25519 AAAA… comment")`);
  const line = text.split(/\r?\n/).map((l) => l.trim()).find((l) => l && !l.startsWith('#'))!;
  return { line, key };
}

/** A public key file, as publicKeyFrom() checks it. */
export function publicKeyFile(path: string, flag = '--key-file'): { line: string; key: PublicKey } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${flag} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return publicKeyFrom(text, path);
}
