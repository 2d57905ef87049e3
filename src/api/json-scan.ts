import { isUtf8 } from 'node:buffer';
import { JSON_SCAN_WASM } from './json-scan-wasm.js';

/**
 * A JSON array checked and cut into its elements without building them: every byte is validated as JSON.parse would
 * (nesting, strings and their escapes, numbers, literals, nothing after the end), and the offsets of the elements
 * and of the separators between them are recorded. Lists whose records are passed through as the service sent
 * them (NDJSON and JSON output without reshaping) need no more than this; only what must be read is parsed.
 */
export interface ScannedList {
  /** Where each element starts, and where it ends (one past its last byte). */
  starts: number[];
  ends: number[];
  /** The separator after each element: the commas, then the closing bracket. */
  separators: number[];
  /** The opening bracket. */
  open: number;
  /** Every element is an object. */
  objects: boolean;
  /** A line break between tokens (the answer was pretty-printed). */
  lineBreaks: boolean;
  /** A string holds a backslash escape. */
  escapes: boolean;
  /** A number in other than its shortest form (a fraction, an exponent, -0, more than 15 digits). */
  longNumbers: boolean;
  /** An object key that starts with a digit: a parsed object lists integer keys first. */
  digitKeys: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** What may follow a backslash in a JSON string (besides u and four hex digits). */
const SIMPLE_ESCAPES = new Uint8Array(256);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPES[c.charCodeAt(0)] = 1;
/** Bytes that stand for themselves in a JSON string: not a quote, a backslash or a control byte. */
const PLAIN = new Uint8Array(256).fill(1, 0x20);
PLAIN[0x22] = 0;
PLAIN[0x5c] = 0;
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

const isWhitespace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** The open containers of the element being scanned: 1 an object, 0 an array (grown for deeper nesting). */
let containers = new Uint8Array(64);

/**
 * scanJsonList() in WebAssembly (json-scan.wat): the same checks and the same answer, three to four times faster
 * and fast from the first page. The text is copied into its memory, after its tables, and followed by 16 zero bytes.
 */
interface WasmScanner {
  memory: WebAssembly.Memory;
  bytes: Uint8Array;
  list(open: number, end: number): number;
  flags: WebAssembly.Global;
}

/** Where json-scan.wat keeps the elements' starts, ends and separators, and the text. */
const WASM_STARTS = 4352;
const WASM_ENDS = 69888;
const WASM_SEPARATORS = 135424;
const WASM_TEXT = 200960;
/** Texts longer than this are scanned in JavaScript rather than grow the module's memory to hold them. */
const WASM_LIMIT = 16 * 1024 * 1024;
/** undefined until first used; null where WebAssembly (or its SIMD) is not available, or after setScanner('js'). */
let wasm: WasmScanner | null | undefined;

function wasmScanner(): WasmScanner | null {
  if (wasm !== undefined) return wasm;
  try {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(JSON_SCAN_WASM, 'base64')));
    const exports = instance.exports as unknown as { memory: WebAssembly.Memory; list(open: number, end: number): number; flags: WebAssembly.Global };
    wasm = { memory: exports.memory, bytes: new Uint8Array(exports.memory.buffer), list: exports.list, flags: exports.flags };
  } catch {
    wasm = null;
  }
  return wasm;
}

/** Which scanner scans (for tests): the WebAssembly one where it can, or the JavaScript one always. */
export function setScanner(which: 'wasm' | 'js'): void {
  wasm = which === 'js' ? null : undefined;
}

/** Which scanner scans texts now. */
export function scannerInUse(): 'wasm' | 'js' {
  return wasmScanner() ? 'wasm' : 'js';
}

/**
 * The list whose bracket is at `open`, scanned by the module: the list, 'malformed', or undefined when the module
 * cannot scan it (too long a text, too many elements, too deep a nesting, no WebAssembly): JavaScript does then.
 */
function wasmList(bytes: Uint8Array, open: number): ScannedList | 'malformed' | undefined {
  if (bytes.length > WASM_LIMIT) return undefined;
  const scanner = wasmScanner();
  if (!scanner) return undefined;
  const end = WASM_TEXT + bytes.length;
  if (scanner.bytes.length < end + 16) {
    try {
      scanner.memory.grow(Math.ceil((end + 16 - scanner.bytes.length) / 65536));
    } catch {
      return undefined; // no memory for a text this long: JavaScript scans it where it is
    }
    scanner.bytes = new Uint8Array(scanner.memory.buffer);
  }
  scanner.bytes.set(bytes, WASM_TEXT);
  scanner.bytes.fill(0, end, end + 16);
  scanner.flags.value = 0;
  const count = scanner.list(WASM_TEXT + open, end);
  if (count === -2) return undefined;
  if (count < 0) return 'malformed';
  const flags = scanner.flags.value as number;
  const words = new Int32Array(scanner.memory.buffer);
  const offsets = (at: number, n: number): number[] => {
    const list = new Array<number>(n);
    for (let k = 0, word = at >> 2; k < n; k++) list[k] = words[word + k];
    return list;
  };
  return {
    starts: offsets(WASM_STARTS, count),
    ends: offsets(WASM_ENDS, count),
    separators: offsets(WASM_SEPARATORS, Math.max(1, count)),
    open,
    objects: !(flags & 16),
    lineBreaks: Boolean(flags & 8),
    escapes: Boolean(flags & 1),
    longNumbers: Boolean(flags & 2),
    digitKeys: Boolean(flags & 4),
  };
}

/**
 * Scans a JSON text that should be an array. Returns its elements' offsets; 'not-a-list' when it is not an array
 * (it may still be well-formed JSON: the caller parses it to tell which); 'malformed' when JSON.parse would fail.
 */
export function scanJsonList(bytes: Uint8Array): ScannedList | 'malformed' | 'not-a-list' {
  const n = bytes.length;
  let i = skipSpace(bytes, 0);
  if (bytes[i] !== OPEN_ARRAY) return 'not-a-list';
  const scanned = wasmList(bytes, i);
  if (scanned) return scanned;
  const list: ScannedList = { starts: [], ends: [], separators: [], open: i, objects: true, lineBreaks: false, escapes: false, longNumbers: false, digitKeys: false };
  i = space(bytes, i + 1, list);
  if (bytes[i] === CLOSE_ARRAY) {
    list.separators.push(i);
  } else {
    for (;;) {
      if (bytes[i] !== OPEN_OBJECT) list.objects = false;
      list.starts.push(i);
      i = scanValue(bytes, i, list);
      if (i < 0) return 'malformed';
      list.ends.push(i);
      i = space(bytes, i, list);
      const c = bytes[i];
      if (c === CLOSE_ARRAY) {
        list.separators.push(i);
        break;
      }
      if (c !== COMMA) return 'malformed';
      list.separators.push(i);
      i = space(bytes, i + 1, list);
    }
  }
  const after = skipSpace(bytes, i + 1);
  return after === n ? list : 'malformed';
}

/** The offset of the first byte at or after `i` that is not JSON whitespace. */
function skipSpace(bytes: Uint8Array, i: number): number {
  const n = bytes.length;
  while (i < n && isWhitespace(bytes[i])) i++;
  return i;
}

/** Sets lineBreaks when bytes[from, to) holds a line break. */
function noteBreaks(bytes: Uint8Array, from: number, to: number, list: ScannedList): void {
  for (let k = from; k < to; k++) if (bytes[k] === 0x0a || bytes[k] === 0x0d) list.lineBreaks = true;
}

/** skipSpace between tokens, noting line breaks (compact JSON has none: one comparison). */
function space(bytes: Uint8Array, i: number, list: ScannedList): number {
  if (!(bytes[i] <= 0x20)) return i;
  const end = skipSpace(bytes, i);
  noteBreaks(bytes, i, end, list);
  return end;
}

/**
 * The offset after the value that starts at `i`, or -1 when it is malformed. Containers are followed with a stack
 * of what is open rather than by recursion, so that no nesting depth overflows the call stack.
 */
function scanValue(bytes: Uint8Array, i: number, list: ScannedList): number {
  let depth = 0;
  for (;;) {
    // A value starts at i.
    let c = bytes[i];
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      const object = c === OPEN_OBJECT;
      i = space(bytes, i + 1, list);
      if (bytes[i] === c + 2) {
        i++; // {} or []
      } else {
        if (depth === containers.length) {
          const bigger = new Uint8Array(depth * 2);
          bigger.set(containers);
          containers = bigger;
        }
        containers[depth++] = object ? 1 : 0;
        if (object) {
          i = scanKey(bytes, i, list);
          if (i < 0) return -1;
        }
        continue;
      }
    } else if (c === QUOTE) {
      i = scanString(bytes, i, list);
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      longNumber = false;
      i = scanNumber(bytes, i);
      if (longNumber) list.longNumbers = true;
    } else {
      i = scanLiteral(bytes, i);
    }
    if (i < 0) return -1;
    // After a value: a comma and the next, or the end of containers.
    for (;;) {
      if (depth === 0) return i;
      i = space(bytes, i, list);
      c = bytes[i];
      const object = containers[depth - 1] === 1;
      if (c === COMMA) {
        i = space(bytes, i + 1, list);
        if (object) {
          i = scanKey(bytes, i, list);
          if (i < 0) return -1;
        }
        break;
      }
      if (c !== (object ? CLOSE_OBJECT : CLOSE_ARRAY)) return -1;
      depth--;
      i++;
    }
  }
}

/** A key, its colon and the space up to its value (at `i`): the offset of the value, or -1. */
function scanKey(bytes: Uint8Array, i: number, list: ScannedList): number {
  if (bytes[i] !== QUOTE) return -1;
  const next = bytes[i + 1];
  if (next >= 0x30 && next <= 0x39) list.digitKeys = true;
  i = scanString(bytes, i, list);
  if (i < 0) return -1;
  i = space(bytes, i, list);
  if (bytes[i] !== COLON) return -1;
  return space(bytes, i + 1, list);
}

/** The offset after the string that starts at `at` (a quote), or -1. */
function scanString(bytes: Uint8Array, at: number, list: ScannedList): number {
  const n = bytes.length;
  let i = at + 1;
  for (;;) {
    // Plain bytes in a run, then whatever ends it.
    while (i < n && PLAIN[bytes[i]] === 1) i++;
    if (i >= n) return -1;
    const c = bytes[i];
    if (c === QUOTE) return i + 1;
    if (c !== BACKSLASH) return -1;
    list.escapes = true;
    const e = bytes[i + 1];
    if (e === 0x75) {
      if (!(HEX[bytes[i + 2]] && HEX[bytes[i + 3]] && HEX[bytes[i + 4]] && HEX[bytes[i + 5]])) return -1;
      i += 6;
    } else if (e !== undefined && SIMPLE_ESCAPES[e]) {
      i += 2;
    } else {
      return -1;
    }
  }
}

/** Whether the number scanned last was in other than its shortest form. */
let longNumber = false;

/** The offset after the number that starts at `at`, or -1 (longNumber says whether it is in its shortest form). */
function scanNumber(bytes: Uint8Array, at: number): number {
  longNumber = false;
  let i = at;
  if (bytes[i] === 0x2d) i++;
  const first = i;
  if (bytes[i] === 0x30) i++;
  else if (isDigit(bytes[i])) while (isDigit(bytes[i])) i++;
  else return -1;
  let long = i - first > 15 || (bytes[at] === 0x2d && bytes[first] === 0x30);
  if (bytes[i] === 0x2e) {
    i++;
    if (!isDigit(bytes[i])) return -1;
    while (isDigit(bytes[i])) i++;
    long = true;
  }
  if (bytes[i] === 0x65 || bytes[i] === 0x45) {
    i++;
    if (bytes[i] === 0x2b || bytes[i] === 0x2d) i++;
    if (!isDigit(bytes[i])) return -1;
    while (isDigit(bytes[i])) i++;
    long = true;
  }
  longNumber = long;
  return i;
}

const LITERALS = ['true', 'false', 'null'].map((word) => Buffer.from(word));

/** The offset after true, false or null at `at`, or -1. */
function scanLiteral(bytes: Uint8Array, at: number): number {
  for (const word of LITERALS) {
    if (bytes[at] !== word[0]) continue;
    for (let k = 1; k < word.length; k++) if (bytes[at + k] !== word[k]) return -1;
    return at + word.length;
  }
  return -1;
}

/**
 * The list as NDJSON, in place: the `[` dropped and the separators turned into line feeds, so each object is a
 * line of the service's own bytes (nothing copied). Undefined, and the bytes left alone, unless every element is an
 * object, no line break stands between tokens and the bytes are valid UTF-8: then the records must be parsed.
 */
export function ndjsonLines(bytes: Buffer, list: ScannedList): Buffer | undefined {
  if (!list.starts.length) return Buffer.alloc(0);
  if (!list.objects || list.lineBreaks || !isUtf8(bytes)) return undefined;
  const separators = list.separators;
  for (let k = 0; k < separators.length; k++) bytes[separators[k]] = 0x0a;
  return bytes.subarray(list.open + 1, separators[separators.length - 1] + 1);
}

/**
 * The list's elements as `-o json` writes records (JSON.stringify(record, null, 2), each line indented two more
 * spaces, `[` before the first unless `continued`, `,` between), made from the bytes: strings and numbers copied as
 * they are unless an escape or a longer form must be written as JSON.stringify writes it. Undefined (the records must
 * be parsed) when the bytes are not valid UTF-8 or an object has a key that starts with a digit, whose order a
 * parsed object changes.
 */
export function prettyJson(bytes: Buffer, list: ScannedList, continued: boolean): Buffer | undefined {
  if (list.digitKeys || !isUtf8(bytes)) return undefined;
  const out = new Writer(bytes.length * 2 + 64);
  list.starts.forEach((start, k) => {
    out.ascii(k === 0 && !continued ? '[\n  ' : ',\n  ');
    pretty(bytes, start, list.ends[k], out);
  });
  return out.done();
}

/** A growing byte buffer. */
class Writer {
  private buffer: Buffer;
  private at = 0;
  constructor(size: number) {
    this.buffer = Buffer.allocUnsafe(size);
  }
  private room(size: number): void {
    if (this.at + size <= this.buffer.length) return;
    const min = Math.max(this.buffer.length * 2, this.at + size);
    const bigger = Buffer.allocUnsafe(min);
    this.buffer.copy(bigger, 0, 0, this.at);
    this.buffer = bigger;
  }
  byte(c: number): void {
    this.room(1);
    this.buffer[this.at++] = c;
  }
  bytes(from: Buffer, start: number, end: number): void {
    this.room(end - start);
    if (end - start < 16) for (let i = start; i < end; i++) this.buffer[this.at++] = from[i];
    else this.at += from.copy(this.buffer, this.at, start, end);
  }
  ascii(text: string): void {
    this.room(text.length);
    for (let i = 0; i < text.length; i++) this.buffer[this.at++] = text.charCodeAt(i);
  }
  text(text: string): void {
    this.room(Buffer.byteLength(text));
    this.at += this.buffer.write(text, this.at);
  }
  lineAt(level: number): void {
    this.room(1 + level * 2);
    this.buffer[this.at++] = 0x0a;
    for (let i = 0; i < level * 2; i++) this.buffer[this.at++] = 0x20;
  }
  done(): Buffer {
    return this.buffer.subarray(0, this.at);
  }
}

/** One well-formed element (scanned before) as JSON.stringify(value, null, 2) writes it, at nesting level 1. */
function pretty(bytes: Buffer, start: number, end: number, out: Writer): void {
  let level = 1;
  let i = start;
  while (i < end) {
    const c = bytes[i];
    if (isWhitespace(c)) {
      i++;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      let next = i + 1;
      while (isWhitespace(bytes[next])) next++;
      out.byte(c);
      if (bytes[next] === c + 2) {
        out.byte(c + 2); // {} and [] stay on one line
        i = next + 1;
      } else {
        out.lineAt(++level);
        i++;
      }
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      out.lineAt(--level);
      out.byte(c);
      i++;
    } else if (c === COMMA) {
      out.byte(COMMA);
      out.lineAt(level);
      i++;
    } else if (c === COLON) {
      out.byte(COLON);
      out.byte(0x20);
      i++;
    } else if (c === QUOTE) {
      let close = i + 1;
      let escaped = false;
      while (bytes[close] !== QUOTE) {
        if (bytes[close] === BACKSLASH) {
          escaped = true;
          close++;
        }
        close++;
      }
      close++;
      if (escaped) out.text(JSON.stringify(JSON.parse(bytes.toString('utf8', i, close))));
      else out.bytes(bytes, i, close);
      i = close;
    } else {
      // A number or a literal: up to the next delimiter.
      let stop = i + 1;
      while (stop < end && !isWhitespace(bytes[stop]) && bytes[stop] !== COMMA && bytes[stop] !== CLOSE_OBJECT && bytes[stop] !== CLOSE_ARRAY) stop++;
      if (c === 0x2d || isDigit(c)) {
        scanNumber(bytes, i);
        if (longNumber) out.ascii(JSON.stringify(JSON.parse(bytes.toString('latin1', i, stop))));
        else out.bytes(bytes, i, stop);
      } else {
        out.bytes(bytes, i, stop);
      }
      i = stop;
    }
  }
}
