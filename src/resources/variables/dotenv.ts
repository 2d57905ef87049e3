import { UsageError } from '../../errors.js';

/**
 * The dotenv lines variables export writes and import reads: `KEY=value`, a value with anything beyond
 * [A-Za-z0-9_./:@%+,-] double-quoted with \\ \" \n \r \t and \$ escaped; `export KEY=…`, single-quoted (literal)
 * values, blank lines and # comments are read too. What dotenv has no place for and a copy must not lose (a file
 * variable, a protected one, one not expanded) rides in a trailing comment: `KEY=value # forgectl: file protected raw`.
 */

const BARE = /^[A-Za-z0-9_./:@%+,-]*$/;

export const DOTENV_ATTRIBUTES = ['file', 'protected', 'raw'] as const;
export type DotenvAttribute = (typeof DOTENV_ATTRIBUTES)[number];
const MARK = 'forgectl:';

export function dotenvLine(key: string, value: string, attributes: DotenvAttribute[] = []): string {
  const escaped = value.replace(/[\\"$\n\r\t]/g, (c) => ({ '\\': '\\\\', '"': '\\"', $: '\\$', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c]!);
  const line = BARE.test(value) ? `${key}=${value}` : `${key}="${escaped}"`;
  return attributes.length ? `${line} # ${MARK} ${attributes.join(' ')}` : line;
}

/** The attributes of a trailing comment export wrote (`# forgectl: file protected`); none for any other comment. */
function attributesOf(comment: string | undefined, where: string): DotenvAttribute[] {
  const text = comment?.trim() ?? '';
  if (!text.startsWith(MARK)) return [];
  return text.slice(MARK.length).split(/\s+/).filter(Boolean).map((word) => {
    if (!(DOTENV_ATTRIBUTES as readonly string[]).includes(word)) throw new UsageError(`${where}: unknown attribute "${word}"`, `a forgectl: comment names ${DOTENV_ATTRIBUTES.join(', ')}`);
    return word as DotenvAttribute;
  });
}

const UNESCAPE: Record<string, string> = { n: '\n', r: '\r', t: '\t', '\\': '\\', '"': '"', $: '$' };

/** The KEY=value pairs of a dotenv text, in order, with their attributes; a line that is none of the above exits 2 naming it. */
export function parseDotenv(text: string, name: string): Array<{ key: string; value: string; line: number; attributes: DotenvAttribute[] }> {
  const out: Array<{ key: string; value: string; line: number; attributes: DotenvAttribute[] }> = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) throw new UsageError(`${name} line ${index + 1} is not KEY=value`);
    const [, key, rest] = match;
    let value: string;
    let comment: string | undefined;
    if (rest.startsWith('"')) {
      const quoted = /^"((?:[^"\\]|\\.)*)"\s*(?:#(.*))?$/.exec(rest);
      if (!quoted) throw new UsageError(`${name} line ${index + 1}: the value of ${key} has no closing quote`);
      value = quoted[1].replace(/\\(.)/g, (_, c: string) => UNESCAPE[c] ?? `\\${c}`);
      comment = quoted[2];
    } else if (rest.startsWith("'")) {
      const quoted = /^'([^']*)'\s*(?:#(.*))?$/.exec(rest);
      if (!quoted) throw new UsageError(`${name} line ${index + 1}: the value of ${key} has no closing quote`);
      [, value, comment] = quoted;
    } else [, value, comment] = /^(.*?)(?:\s+#(.*))?$/.exec(rest)!;
    out.push({ key, value, line: index + 1, attributes: attributesOf(comment, `${name} line ${index + 1}`) });
  });
  return out;
}
