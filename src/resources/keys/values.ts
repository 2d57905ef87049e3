import { createHash } from 'node:crypto';

/** OpenSSH public keys and their fingerprints, computed exactly as `ssh-keygen -l` does. */

export interface PublicKey {
  type: string;
  /** The decoded key blob (the base64 field of the .pub line). */
  blob: Buffer;
  comment: string;
}

/** Parses one OpenSSH public key line ("ssh-ed25519 AAAA… comment"); undefined when it is not one. */
export function parsePublicKey(text: string): PublicKey | undefined {
  const line = text.split(/\r?\n/).map((l) => l.trim()).find((l) => l && !l.startsWith('#'));
  const match = line ? /^(\S+)\s+([A-Za-z0-9+/]+={0,2})(?:\s+(.*))?$/.exec(line) : null;
  if (!match) return undefined;
  const blob = Buffer.from(match[2], 'base64');
  // The blob starts with its own type as an SSH string; a mismatch means a damaged or foreign key.
  if (blob.length < 4) return undefined;
  const length = blob.readUInt32BE(0);
  if (length > blob.length - 4 || blob.subarray(4, 4 + length).toString('latin1') !== match[1]) return undefined;
  return { type: match[1], blob, comment: match[3] ?? '' };
}

/** MD5 fingerprint as colon-separated hex: `3b:6f:…`. */
export function md5Fingerprint(blob: Buffer): string {
  return createHash('md5').update(blob).digest('hex').match(/../g)!.join(':');
}

/** SHA256 fingerprint as OpenSSH prints it: `SHA256:` and unpadded base64. */
export function sha256Fingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

export const MD5_FINGERPRINT = /^([0-9a-f]{2}:){15}[0-9a-f]{2}$/i;
export const SHA256_FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;
