import { globSource } from '../glob.js';

/**
 * .gitignore rules, as git reads them: one pattern a line (`#` comments, blank lines skipped, `\#` and `\!` for a
 * literal first character), `!` re-includes, a trailing `/` matches folders only, a pattern with a slash elsewhere is
 * relative to the folder of its .gitignore, one without matches a name at any depth below it; the last rule that
 * matches decides, and nothing below an ignored folder comes back.
 */
export interface IgnoreRule {
  regex: RegExp;
  negate: boolean;
  dirOnly: boolean;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The rules of one .gitignore (or of --exclude patterns) whose folder is `base` ('' for the top). */
export function parseIgnore(text: string, base = ''): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.replace(/(?<!\\)\s+$/, '');
    if (!line || line.startsWith('#')) continue;
    const negate = line.startsWith('!');
    if (negate) line = line.slice(1);
    line = line.replace(/^\\([#!])/, '$1');
    const dirOnly = line.endsWith('/');
    if (dirOnly) line = line.replace(/\/+$/, '');
    if (!line) continue;
    const anchored = line.includes('/');
    const source = globSource(anchored ? line.replace(/^\//, '') : line, { sets: true, option: '.gitignore' });
    const prefix = base ? `${escape(base)}/` : '';
    rules.push({ regex: new RegExp(`^${prefix}${anchored ? '' : '(?:.*/)?'}${source}$`), negate, dirOnly });
  }
  return rules;
}

/** Whether the rules leave out this path (relative to the top, `/`-separated), or a folder it is in. */
export function isIgnored(rules: IgnoreRule[], path: string, isDir: boolean): boolean {
  const parts = path.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const here = parts.slice(0, i).join('/');
    const dir = i < parts.length || isDir;
    let ignored = false;
    for (const rule of rules) if ((!rule.dirOnly || dir) && rule.regex.test(here)) ignored = !rule.negate;
    if (ignored) return true;
  }
  return false;
}
