/** Control characters (ESC, BEL …) and marks that reorder text (U+202E) in a name printed to a terminal. */
// eslint-disable-next-line no-control-regex
export const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** An archive entry's name as messages show it: quoted, with every unprintable character escaped. */
export function shownName(name: string): string {
  return JSON.stringify(name).replace(/[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
