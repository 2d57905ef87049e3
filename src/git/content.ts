import { posix } from 'node:path';
import { UsageError } from '../errors.js';

/** File content and repository paths as the client sends them. */

/** Text goes as is; anything with a NUL byte or that is not valid UTF-8 goes as base64 (what the service stores is the bytes). */
export function encodeContent(bytes: Buffer): { content: string; encoding: 'text' | 'base64' } {
  const text = bytes.toString('utf8');
  const binary = bytes.subarray(0, 8000).includes(0) || !Buffer.from(text, 'utf8').equals(bytes);
  return binary ? { content: bytes.toString('base64'), encoding: 'base64' } : { content: text, encoding: 'text' };
}

/**
 * A path inside the repository, normalised (`./a//b` → `a/b`); an absolute path or one that climbs out with `..`
 * is a usage error (exit 2), found before anything is sent.
 */
export function repoPath(value: string, what = 'path'): string {
  const slashes = value.replace(/\\/g, '/');
  if (slashes.startsWith('/') || /^[A-Za-z]:\//.test(slashes)) throw new UsageError(`${what} ${value} must be relative to the repository root, not absolute`);
  const normal = posix.normalize(slashes).replace(/\/+$/, '');
  if (normal === '..' || normal.startsWith('../')) throw new UsageError(`${what} ${value} leaves the repository (..)`);
  if (normal === '.' || normal === '') throw new UsageError(`${what} ${value} names no file`);
  if (normal.split('/')[0] === '.git') throw new UsageError(`${what} ${value} is inside .git`);
  return normal;
}
