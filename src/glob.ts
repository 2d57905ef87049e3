import { UsageError } from './errors.js';

/**
 * Globs, translated to regular expressions: `**` matches across slashes (`a/**` also matches `a/b/c`, `**\/x` matches
 * `x` at any depth), `*` and `?` within one path segment; with `sets`, `[abc]` and `[!abc]` one of a set of characters
 * (otherwise brackets are literal). `option` names the option in the message of an unclosed set.
 */
export function globSource(glob: string, options: { sets?: boolean; option?: string } = {}): string {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else if (c === '[' && options.sets) {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) throw new UsageError(`${options.option ?? 'pattern'} "${glob}": unclosed [`);
      source += `[${glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
      i = end;
    } else source += c.replace(options.sets ? /[.+^${}()|\\]/g : /[.+^${}()|[\]\\]/g, '\\$&');
  }
  return source;
}

/**
 * Path patterns for picking archive entries (--include), with sets. A pattern with a slash matches the whole path
 * (`dist/**`, `reports/*.xml`); one without a slash matches a name at any depth (`*.xml`), as in .gitignore. A folder
 * matches when a pattern matches it or anything under it could.
 */
export function globToRegExp(pattern: string): RegExp {
  const source = globSource(pattern, { sets: true, option: '--include' });
  const anchored = pattern.includes('/') ? `^${source.replace(/^\\\//, '')}/?$` : `(?:^|/)${source}/?$`;
  return new RegExp(anchored);
}

/** A matcher for several patterns (any may match); undefined when there are none. */
export function globMatcher(patterns: string[] | undefined): ((name: string) => boolean) | undefined {
  if (!patterns?.length) return undefined;
  const expressions = patterns.map(globToRegExp);
  return (name) => expressions.some((re) => re.test(name));
}
