import { sshKeys } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { MD5_FINGERPRINT, md5Fingerprint, SHA256_FINGERPRINT, sha256Fingerprint } from './values.js';
import { publicKeyFile } from './public-key.js';

interface Options {
  fingerprint?: string;
  keyFile?: string;
}

/** MD5 as colon hex (an "MD5:" prefix is dropped) or SHA256 as OpenSSH prints it ("SHA256:" may be left out). */
function normalizeFingerprint(value: string): string {
  const text = value.trim();
  if (MD5_FINGERPRINT.test(text.replace(/^MD5:/i, ''))) return text.replace(/^MD5:/i, '').toLowerCase();
  const sha = /^sha256:/i.test(text) ? `SHA256:${text.slice(7)}` : `SHA256:${text}`;
  if (SHA256_FINGERPRINT.test(sha.replace(/=$/, ''))) return sha.replace(/=$/, '');
  throw new UsageError(`"${value}" is not an SSH key fingerprint`, 'give MD5 colon hex (ab:cd:…, 16 bytes) or SHA256:… as ssh-keygen -l prints it');
}

/** The SHA256 fingerprint of a public key file; both fingerprints go to stderr. */
function fingerprintOfFile(path: string, note: (text: string) => void): string {
  const { key } = publicKeyFile(path);
  const sha256 = sha256Fingerprint(key.blob);
  note(`${key.type} key ${sha256} (MD5:${md5Fingerprint(key.blob)})${key.comment ? ` ${key.comment}` : ''}`);
  return sha256;
}

export default defineCommand<Options>({
  effect: 'read',
  description: 'Looks a key up by its fingerprint, or computes the fingerprint from a public key file. Administrators only.',
  examples: [
    'forgectl keys find --key-file ~/.ssh/id_ed25519.pub',
    'forgectl keys find --fingerprint SHA256:JerwpBO2AG6U57CczPP7bsDhUDUIhyU59Ry2BxswxOU',
    'forgectl keys find --fingerprint ce:cb:f0:e3:88:71:63:fe:2a:06:1c:3d:46:18:28:23 --fields user.username',
  ],
  options: [
    { flags: '--fingerprint <fp>', description: 'MD5 (colon hex) or SHA256 fingerprint', parse: normalizeFingerprint },
    { flags: '--key-file <path>', description: 'an OpenSSH public key file; its SHA256 fingerprint is computed locally', localFile: true },
  ],
  async run(opts, ctx) {
    if (Boolean(opts.fingerprint) === Boolean(opts.keyFile)) throw new UsageError('give exactly one of --fingerprint and --key-file');
    const fingerprint = opts.fingerprint ?? fingerprintOfFile(opts.keyFile!, (text) => ctx.io.note(text));
    // The query string encoding turns "/" into %2F, ":" into %3A and "+" into %2B, as api-facts §6 requires.
    return ctx.api.call(sshKeys.parents.instance.routes.find, { fingerprint });
  },
});
