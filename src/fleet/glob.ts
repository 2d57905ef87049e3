import { globSource } from '../cli/glob.js';

/**
 * Globs over full paths of projects and groups (`acme/**`, `acme/team-*\/api`): `**` matches across slashes, `*`
 * and `?` within one path segment. Matching ignores case, as the service does for paths.
 */
export function globRegExp(glob: string): RegExp {
  return new RegExp(`^${globSource(glob)}$`, 'i');
}

export function matchesGlob(path: string, glob: string): boolean {
  return globRegExp(glob).test(path);
}

/** Whether a glob has wildcards (else it names one path). */
export const isGlob = (text: string): boolean => /[*?]/.test(text);

/** The part of a glob before its first wildcard segment: the group to list to find its matches. */
export function globRoot(glob: string): string {
  const segments = glob.split('/');
  const index = segments.findIndex(isGlob);
  return (index < 0 ? segments : segments.slice(0, index)).join('/');
}
