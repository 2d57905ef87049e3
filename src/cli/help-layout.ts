/**
 * How help is laid out to a width: commander's own rules for an item (a term, and its description wrapped beside
 * it) and for a paragraph (wrapped at white space, line breaks kept). They are written here once and used twice:
 * the bundle's commander calls them (program.ts), and bin/forgectl.cjs calls them (built into dist/help-layout.cjs)
 * to lay out the help texts rendered at build time to the width of the terminal or pipe they go to, without
 * loading the bundle. The texts are rendered with their layout deferred: each item and paragraph is written as a
 * marked span that layoutDeferred() replaces. This module imports only the wrapping (output/wrap.ts, which imports
 * nothing), so that file stays small.
 */
import { displayWidth, wrapText } from '../output/wrap.js';

/** Below this many columns for a description, commander does not wrap it. */
const MIN_WIDTH_TO_WRAP = 40;
const ITEM_INDENT = 2;
const SPACER = 2;

/** Wraps a text at white space to a width, keeping its own line breaks; commander leaves a narrower one as it is. */
export const wrapParagraph = (text: string, width: number): string => (width < MIN_WIDTH_TO_WRAP ? text : wrapText(text, width));

/**
 * One item of a list (an option, an argument, a command): the term padded to the list's term width, then the
 * description wrapped to what is left of the help width and indented under itself (commander's Help.formatItem). A
 * description with lines of its own already indented is kept as written.
 *
 * Where commander would leave too little room to wrap (an option whose term lists its choices, 57 columns, on an
 * 80-column terminal: every description unwrapped, cut mid-word by the terminal), the term column is narrowed so
 * that descriptions keep MIN_WIDTH_TO_WRAP columns, and a term longer than that column stands on its own line with
 * its description below it, in the column.
 */
export function layoutItem(term: string, termWidth: number, description: string, helpWidth: number): string {
  const indent = ' '.repeat(ITEM_INDENT);
  if (!description) return indent + term;
  const narrowed = Math.min(termWidth, helpWidth - SPACER - ITEM_INDENT - MIN_WIDTH_TO_WRAP);
  const column = narrowed > 0 ? narrowed : termWidth;
  const paddedTerm = displayWidth(term) > column ? `${term}\n${' '.repeat(column + ITEM_INDENT)}` : term.padEnd(column + term.length - displayWidth(term));
  const remaining = helpWidth - column - SPACER - ITEM_INDENT;
  const formatted = remaining < MIN_WIDTH_TO_WRAP || /\n[^\S\r\n]/.test(description)
    ? description
    : wrapParagraph(description, remaining).replace(/\n/g, `\n${' '.repeat(column + SPACER)}`);
  return indent + paddedTerm + ' '.repeat(SPACER) + formatted.replace(/\n/g, `\n${indent}`);
}

// The marks of a deferred layout: control characters no help text contains.
const START = '\u0001';
const FIELD = '\u0002';
const END = '\u0003';

/** An item whose layout waits for the width (layoutDeferred). */
export const deferredItem = (term: string, termWidth: number, description: string): string => `${START}I${termWidth}${FIELD}${term}${FIELD}${description}${END}`;

/** A paragraph whose wrapping waits for the width (layoutDeferred), its lines indented by `indent` columns. */
export const deferredParagraph = (text: string, indent = 0): string => `${START}P${indent}${FIELD}${text}${END}`;

const DEFERRED = new RegExp(`${START}(?:I(\\d+)${FIELD}([^${FIELD}]*)${FIELD}([^${END}]*)|P(\\d+)${FIELD}([^${END}]*))${END}`, 'g');

/** A help text rendered with its layout deferred, laid out to a width: what commander writes at that width. */
export function layoutDeferred(text: string, width: number): string {
  return text.replace(DEFERRED, (_, termWidth: string | undefined, term: string, description: string, indent: string, paragraph: string) => {
    if (termWidth !== undefined) return layoutItem(term, Number(termWidth), description, width);
    const margin = ' '.repeat(Number(indent));
    return margin + wrapParagraph(paragraph, width - margin.length).replace(/\n/g, `\n${margin}`);
  });
}

/** A part of a help text rendered with its layout deferred: an item, a paragraph, or text kept as written. */
export type DeferredSpan = { term: string; termWidth: number; description: string } | { paragraph: string; indent: number } | { text: string };

/** The parts of a text rendered with its layout deferred, in order (the manual's pages are written from them). */
export function parseDeferred(text: string): DeferredSpan[] {
  const spans: DeferredSpan[] = [];
  let last = 0;
  for (const match of text.matchAll(DEFERRED)) {
    if (match.index > last) spans.push({ text: text.slice(last, match.index) });
    const [, termWidth, term, description, indent, paragraph] = match;
    spans.push(termWidth !== undefined ? { term, termWidth: Number(termWidth), description } : { paragraph, indent: Number(indent) });
    last = match.index + match[0].length;
  }
  if (last < text.length) spans.push({ text: text.slice(last) });
  return spans;
}
