/**
 * RecordShape against JSON.parse and JSON.stringify: a page it splits without parsing is exactly what writing its
 * parsed records again gives, byte for byte and line for line, over pages written every way a service (or a proxy)
 * may write them; and pages written as JSON.stringify writes them are split, so that long lists take that path.
 */
import { describe, expect, it } from 'vitest';
import { RecordShape } from '../../src/api/record-shape.js';

/** A small deterministic random source (the cases are the same on every run). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const TEXTS = ['plain', 'with "quotes"', 'back\\slash', 'line\nbreak', 'tab\t', 'bell\u0007', 'esc\u001b', 'ren\u00e9', 'emoji \u{1f600}', 'sep\u2028', 'lone \ud800', 'url http://x/y', '},{"id":', '":', '', 'del\u007f', 'c1\u0085'];
const NUMBERS = [0, 1, -5, 42, 123456789012345, 2 ** 53, 1.5, 1e21, -0.25, 1e-7];

/** A record of the users' kind, its values drawn from the lists above. */
function record(next: () => number, id: number): Record<string, unknown> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  const value = (): unknown => pick([() => pick(TEXTS), () => pick(NUMBERS), () => null, () => next() < 0.5, () => [pick(TEXTS), pick(NUMBERS)], () => []])();
  return {
    id,
    username: next() < 0.9 ? `user${id}` : pick(TEXTS),
    name: pick(TEXTS),
    score: next() < 0.9 ? id * 7 : pick(NUMBERS),
    admin: next() < 0.5,
    note: next() < 0.5 ? null : value(),
    identities: next() < 0.7 ? [] : [{ provider: pick(TEXTS), extern_uid: pick(NUMBERS) }],
    namespace: next() < 0.8 ? { id: id + 1000, path: pick(TEXTS), parent_id: null } : null,
    tags: next() < 0.5 ? [] : [pick(TEXTS), pick(TEXTS)],
  };
}

/**
 * A page's text: JSON.stringify's, or with one of the ways a writer may differ from it: white space, escapes and
 * numbers written otherwise, a key twice, keys in another order, a key that is an array index, a byte order mark,
 * bytes that are not UTF-8, or no JSON at all.
 */
const VARIANTS: Array<[string, (text: string, next: () => number) => string | Buffer]> = [
  ['as JSON.stringify writes it', (text) => text],
  ['a space after a colon', (text) => text.replace('":', '": ')],
  ['a line feed between records', (text) => text.replace('},{', '},\n{')],
  ['an escaped é', (text) => text.replace(/é/g, '\\u00e9')],
  ['an escaped slash', (text) => text.replace(/\//g, '\\/')],
  ['an upper-case escape', (text) => text.replace(/\\u001b/g, '\\u001B')],
  ['a long escape for a line feed', (text) => text.replace(/\\n/g, '\\u000a')],
  ['1.0 for 1', (text) => text.replace(/"score":(\d+)/, '"score":$1.0')],
  ['an exponent', (text) => text.replace(/"score":(\d+)/, '"score":$1e0')],
  ['-0', (text) => text.replace(/"score":\d+/, '"score":-0')],
  ['a key twice', (text) => text.replace('"admin":', '"admin":true,"admin":')],
  ['a nested key twice', (text) => text.replace('"parent_id":null', '"parent_id":1,"parent_id":null')],
  ['keys in another order', (text) => text.replace(/"username":("[^"]*"),"name":("[^"]*")/, '"name":$2,"username":$1')],
  ['an array index as a key', (text) => text.replace('"admin":', '"7":1,"admin":')],
  ['a key the first record lacks', (text) => text.replace(/"tags":/g, '"extra":1,"tags":')],
  ['a byte order mark', (text) => `\ufeff${text}`],
  ['a byte that is not UTF-8', (text) => Buffer.concat([Buffer.from(text.slice(0, 20)), Buffer.from([0xff]), Buffer.from(text.slice(20))])],
  ['a raw control character', (text) => text.replace('user', 'us\u0001er')],
  ['a comma before the end', (text) => text.replace(/}]$/, '},]')],
  ['not closed', (text) => text.slice(0, -1)],
  ['after the end', (text) => `${text} `],
  ['an object among the records', (text) => text.replace('[{', '[{"id":0},{')],
];

describe('RecordShape', () => {
  it('splits only pages that are what writing their parsed records again gives, at the records\' ends', () => {
    const next = random(38);
    let split = 0;
    let refused = 0;
    for (let round = 0; round < 300; round++) {
      const records = Array.from({ length: 1 + Math.floor(next() * 12) }, (_, i) => record(next, 5000 - round * 20 - i));
      const shape = RecordShape.of(record(next, 1));
      expect(shape).toBeDefined();
      for (const [name, vary] of VARIANTS) {
        const text = vary(JSON.stringify(records), next);
        const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
        const ends = shape!.recordEnds(Buffer.from(bytes));
        if (!ends) {
          refused++;
          continue;
        }
        split++;
        // Split: JSON.parse takes it, and writing the records again gives it byte for byte.
        const parsed = JSON.parse(bytes.toString('utf8')) as unknown[];
        expect(Buffer.from(JSON.stringify(parsed)).equals(bytes), name).toBe(true);
        const lines = parsed.map((value) => `${JSON.stringify(value)}\n`).join('');
        const asLines = Buffer.from(bytes);
        for (const end of ends) asLines[end] = 0x0a;
        expect(asLines.subarray(1).toString('utf8'), name).toBe(lines);
      }
    }
    // Both ways are taken: the check is neither always nor never satisfied.
    expect(split).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(300);
  });

  it('splits the pages of records JSON.stringify wrote whose values are of the kinds of the first record', () => {
    const shape = RecordShape.of({ id: 1, name: 'a', admin: true, note: null, groups: [{ id: 1, path: 'p' }], namespace: { id: 2 } })!;
    const records = [
      { id: 2, name: 'ren\u00e9 "b" \\ \n \u0001 \u{1f600}', admin: false, note: 'x', groups: [], namespace: null },
      { id: 3, name: '', admin: null, note: [1, 'two', null], groups: [{ id: 5, path: '},{"id":' }, { id: 6, path: '' }], namespace: { id: 9 } },
    ];
    const page = Buffer.from(JSON.stringify(records));
    expect(shape.recordEnds(page)).toEqual([page.indexOf('},{"id":3') + 1, page.length - 1]);
    expect(RecordShape.of('not a record')).toBeUndefined();
    expect(RecordShape.of([{ id: 1 }])).toBeUndefined();
    expect(shape.recordEnds(Buffer.from('[]'))).toBeUndefined();
  });
});
