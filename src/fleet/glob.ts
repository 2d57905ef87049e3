import { globSource } from '../glob.js';

/**
 * Globs over full paths of projects and groups (`acme/**`, `acme/team-*\/api`, `acme/*\/svc-00[12]`): `**` matches
 * across slashes, `*`, `?` and a set (`[12]`, `[!12]`) within one path segment. Matching ignores case, as the
 * service does for paths.
 */
export function globRegExp(glob: string): RegExp {
  return new RegExp(`^${globSource(glob, { sets: true })}$`, 'i');
}

export function matchesGlob(path: string, glob: string): boolean {
  return globRegExp(glob).test(path);
}

/** Whether a glob has wildcards or sets (else it names one path: paths never hold these characters). */
export const isGlob = (text: string): boolean => /[*?[]/.test(text);

/** The part of a glob before its first wildcard segment: the group to list to find its matches. */
export function globRoot(glob: string): string {
  const segments = glob.split('/');
  const index = segments.findIndex(isGlob);
  return (index < 0 ? segments : segments.slice(0, index)).join('/');
}
