import { UsageError } from '../errors.js';

/**
 * Path patterns for picking archive entries (--include): `*` matches within one folder level, `**` across levels,
 * `?` one character, `[abc]` one of a set. A pattern with a slash matches the whole path (`dist/**`, `reports/*.xml`);
 * one without a slash matches a name at any depth (`*.xml`), as in .gitignore. A folder matches when a pattern
 * matches it or anything under it could.
 */
export function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) throw new UsageError(`--include "${pattern}": unclosed [`);
      source += `[${pattern.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
      i = end;
    } else source += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  const anchored = pattern.includes('/') ? `^${source.replace(/^\\\//, '')}/?$` : `(?:^|/)${source}/?$`;
  return new RegExp(anchored);
}

/** A matcher for several patterns (any may match); undefined when there are none. */
export function globMatcher(patterns: string[] | undefined): ((name: string) => boolean) | undefined {
  if (!patterns?.length) return undefined;
  const expressions = patterns.map(globToRegExp);
  return (name) => expressions.some((re) => re.test(name));
}
