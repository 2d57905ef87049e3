import { UsageError } from '../../errors.js';

/**
 * The dotenv lines variables export writes and import reads: `KEY=value`, a value with anything beyond
 * [A-Za-z0-9_./:@%+,-] double-quoted with \\ \" \n \r \t and \$ escaped; `export KEY=…`, single-quoted (literal)
 * values, blank lines and # comments are read too.
 */

const BARE = /^[A-Za-z0-9_./:@%+,-]*$/;

export function dotenvLine(key: string, value: string): string {
  if (BARE.test(value)) return `${key}=${value}`;
  const escaped = value.replace(/[\\"$\n\r\t]/g, (c) => ({ '\\': '\\\\', '"': '\\"', $: '\\$', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c]!);
  return `${key}="${escaped}"`;
}

const UNESCAPE: Record<string, string> = { n: '\n', r: '\r', t: '\t', '\\': '\\', '"': '"', $: '$' };

/** The KEY=value pairs of a dotenv text, in order; a line that is none of the above exits 2 naming it. */
export function parseDotenv(text: string, name: string): Array<{ key: string; value: string; line: number }> {
  const out: Array<{ key: string; value: string; line: number }> = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) throw new UsageError(`${name} line ${index + 1} is not KEY=value`);
    const [, key, rest] = match;
    let value: string;
    if (rest.startsWith('"')) {
      const quoted = /^"((?:[^"\\]|\\.)*)"\s*(?:#.*)?$/.exec(rest);
      if (!quoted) throw new UsageError(`${name} line ${index + 1}: the value of ${key} has no closing quote`);
      value = quoted[1].replace(/\\(.)/g, (_, c: string) => UNESCAPE[c] ?? `\\${c}`);
    } else if (rest.startsWith("'")) {
      const quoted = /^'([^']*)'\s*(?:#.*)?$/.exec(rest);
      if (!quoted) throw new UsageError(`${name} line ${index + 1}: the value of ${key} has no closing quote`);
      value = quoted[1];
    } else value = rest.replace(/\s+#.*$/, '');
    out.push({ key, value, line: index + 1 });
  });
  return out;
}
