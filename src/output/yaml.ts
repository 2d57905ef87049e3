/**
 * Characters the `yaml` package writes raw that YAML 1.1 readers (PyYAML, and the many tools built on it) take for a
 * line break (U+0085, U+2028, U+2029) or refuse as not printable (DEL, C1 controls, a byte order mark).
 */
const UNSAFE = /[\x7f-\x9f\u2028\u2029\ufeff]/g;
/**
 * A text of several lines one of which begins with white space: the package writes it as a block scalar that reads
 * back without that white space, or not at all (its issues 692 and 695, open in 2.9.1).
 */
const INDENTED_LINE = /(^|\n)[\t ]/;

/** YAML text of a value; the `yaml` package is loaded only when YAML is asked for. */
export async function toYaml(value: unknown): Promise<string> {
  // The package is CommonJS: its chunk in the bundle exports only `default` (no named exports), so use that.
  const { Document, Scalar, visit } = (await import('yaml')).default;
  const document = new Document(value);
  // A string (key or value) holding one of them is double-quoted, where an escape can stand for it: every one left in
  // the text is then inside double quotes, and becomes its \u escape, the same string to every reader.
  let unsafe = false;
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string') return;
      const escaped = Boolean(node.value.match(UNSAFE));
      if (escaped || (node.value.includes('\n') && INDENTED_LINE.test(node.value))) node.type = Scalar.QUOTE_DOUBLE;
      unsafe ||= escaped;
    },
  });
  const text = document.toString();
  return unsafe ? text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
}
