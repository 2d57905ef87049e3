import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ndjsonLines, prettyJson, scanJsonList, scannerInUse, setScanner } from '../../src/api/json-scan.js';
// @ts-expect-error: a plain ES module script without types
import { wasmModules } from '../../scripts/wasm.mjs';

const scan = (text: string | Buffer) => scanJsonList(Buffer.isBuffer(text) ? text : Buffer.from(text));
const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};
/** What the scanner should say of a text, by JSON.parse. */
const expected = (text: string) => (!parses(text) ? 'malformed' : Array.isArray(JSON.parse(text)) ? 'list' : 'not-a-list');
const verdict = (text: string) => {
  const result = scan(text);
  return typeof result === 'string' ? (result === 'not-a-list' && !parses(text) ? 'malformed' : result) : 'list';
};
/** How -o json writes records: JSON.stringify(record, null, 2), indented, in one array. */
const asJson = (records: unknown[]) => records.map((r, i) => `${i ? ',\n' : '[\n'}${JSON.stringify(r, null, 2).replace(/^/gm, '  ')}`).join('');

describe.each(['wasm', 'js'] as const)('the %s scanner', (scanner) => {
  beforeAll(() => {
    setScanner(scanner);
    expect(scannerInUse()).toBe(scanner);
  });
  afterAll(() => setScanner('wasm'));

  describe('checking a page as JSON without parsing it', () => {
    it('accepts what JSON.parse accepts and finds each element', () => {
      const text = ' [ {"a":[1,{"b":"}]\\"["}]} , 2 ,"x" ,null,true,false,-0.5e+3,[]] ';
      const list = scan(text);
      if (typeof list === 'string') throw new Error(list);
      expect(list.starts.map((s, i) => text.slice(s, list.ends[i]))).toEqual(['{"a":[1,{"b":"}]\\"["}]}', '2', '"x"', 'null', 'true', 'false', '-0.5e+3', '[]']);
      expect(list.objects).toBe(false);
    });

    it('refuses what JSON.parse refuses: nesting, strings, escapes, numbers, literals, anything after the end', () => {
      for (const text of [
        '[', '[{]', '[{"a":1]', '[{"a" 1}]', '[{"a":1,}]', '[1,]', '[,1]', '[{"a":1}}', '[1]]', '[1] x', '[1][2]',
        '["a\nb"]', '["a\u0001"]', '["\\x41"]', '["\\u12G4"]', '["\\u12"]', '["abc', '["\\"]',
        '[01]', '[1.]', '[.5]', '[1e]', '[-]', '[+1]', '[0x10]', '[NaN]', '[tru]', '[nul]', '[True]', '[\ufeff1]', '\ufeff[1]',
        "['a']", '[{a:1}]', '[1 2]', '',
      ]) {
        expect([text, verdict(text)]).toEqual([text, expected(text)]);
      }
      expect(scan('{"message":"500"}')).toBe('not-a-list');
    });

    it('agrees with JSON.parse on any text made from JSON tokens', () => {
      const token = fc.constantFrom('[', ']', '{', '}', ',', ':', '"a"', '"\\n"', '"\\u00e9"', '1', '-2.5e3', 'true', 'null', ' ', '\n', '"', '\\', 'x');
      fc.assert(fc.property(fc.array(token, { maxLength: 14 }), (tokens) => {
        const text = `[${tokens.join('')}`;
        expect(verdict(text)).toBe(expected(text));
      }), { numRuns: 3000 });
    });

    it('agrees with JSON.parse on any list of JSON values, also when written with other spacing', () => {
      fc.assert(fc.property(fc.array(fc.jsonValue(), { maxLength: 5 }), fc.boolean(), (values, spaced) => {
        const text = JSON.stringify(values, null, spaced ? 1 : undefined);
        const list = scan(text);
        if (typeof list === 'string') throw new Error(list);
        expect(list.starts.map((s, i) => JSON.parse(text.slice(s, list.ends[i])))).toEqual(JSON.parse(text));
      }));
    });
  });

  describe('lists of objects written without whitespace (as services write them)', () => {
    const objects = fc.array(fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue({ maxDepth: 4 })), { minLength: 1, maxLength: 4 });

    it('cuts them into the same records JSON.parse finds, however deeply they nest', () => {
      fc.assert(fc.property(objects, (records) => {
        const text = JSON.stringify(records);
        const list = scan(text);
        if (typeof list === 'string') throw new Error(list);
        expect(list.objects).toBe(true);
        expect(list.starts.map((s, i) => JSON.parse(Buffer.from(text).subarray(s, list.ends[i]).toString()))).toEqual(JSON.parse(text));
      }), { numRuns: 500 });
    });

    it('agrees with JSON.parse when one character is changed, dropped or added anywhere', () => {
      const replacement = fc.constantFrom('', '"', '\\', ',', ':', '{', '}', '[', ']', ' ', '0', '-', '.', 'e', 'x', '\u0001', 'n');
      fc.assert(fc.property(objects, fc.nat(), replacement, fc.boolean(), (records, at, by, insert) => {
        const text = JSON.stringify(records);
        const k = at % text.length;
        const changed = text.slice(0, k) + by + text.slice(insert ? k : k + 1);
        expect([changed, verdict(changed)]).toEqual([changed, expected(changed)]);
      }), { numRuns: 3000 });
    });
  });

  describe('records written from the bytes the service sent', () => {
    const ndjson = (text: string) => {
      const bytes = Buffer.from(text);
      const list = scan(bytes);
      if (typeof list === 'string') throw new Error(list);
      return ndjsonLines(bytes, list)?.toString();
    };

    it('NDJSON: one object a line, byte for byte', () => {
      const records = [{ id: 1, name: 'a},{"b', note: 'x\\"y[' }, { id: 2, nested: { list: [1, { deep: [] }] }, text: '\u00e9\u001b' }];
      expect(ndjson(JSON.stringify(records))).toBe(records.map((r) => JSON.stringify(r)).join('\n') + '\n');
      expect(ndjson('[ {"a":1} , {"b":2} ]')).toBe(' {"a":1} \n {"b":2} \n'); // spaces between tokens stay: each line is still JSON
      expect(ndjson('[]')).toBe('');
    });

    it('NDJSON: anything else is left for the records to be written again', () => {
      for (const text of ['[{"a":1},\n{"b":2}]', '[{"a":1},2]', '[{"a":1},[3]]']) expect(ndjson(text)).toBeUndefined();
      const bytes = Buffer.from([0x5b, 0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d, 0x5d]); // not UTF-8
      const list = scan(bytes);
      expect(typeof list !== 'string' && ndjsonLines(bytes, list)).toBeUndefined();
    });

    it('JSON: what JSON.stringify(record, null, 2) writes, for any records however the service spaced and escaped them', () => {
      const escapedJson = (value: unknown): string =>
        JSON.stringify(value).replace(/[\u0080-\uffff/]/g, (c) => (c === '/' ? '\\/' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
      fc.assert(fc.property(fc.array(fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue()), { maxLength: 4 }), fc.constantFrom('plain', 'spaced', 'escaped'), (records, style) => {
        const text = style === 'plain' ? JSON.stringify(records) : style === 'spaced' ? JSON.stringify(records, null, 3) : escapedJson(records);
        const bytes = Buffer.from(text);
        const list = scan(bytes);
        if (typeof list === 'string') throw new Error(list);
        const written = prettyJson(bytes, list, false);
        if (written === undefined) expect(list.digitKeys).toBe(true); // keys a parsed object reorders
        else expect(written.toString()).toBe(asJson(JSON.parse(text)));
      }));
      const list = scan('[{"n":1.50,"m":1E2,"z":-0,"big":12345678901234567890}]');
      expect(typeof list !== 'string' && prettyJson(Buffer.from('[{"n":1.50,"m":1E2,"z":-0,"big":12345678901234567890}]'), list, true)?.toString())
        .toBe(`,\n${JSON.stringify(JSON.parse('{"n":1.50,"m":1E2,"z":-0,"big":12345678901234567890}'), null, 2).replace(/^/gm, '  ')}`);
    });
  });

  it('takes any depth of nesting', () => {
    for (const depth of [4095, 4096, 4097, 20_000]) {
      const text = `[${'['.repeat(depth)}${']'.repeat(depth)},{"a":${'['.repeat(depth)}1${']'.repeat(depth)}}]`;
      const list = scan(text);
      if (typeof list === 'string') throw new Error(`${depth}: ${list}`);
      expect(list.starts.length).toBe(2);
      expect(scan(`[${'['.repeat(depth)}${']'.repeat(depth - 1)}]`)).toBe('malformed');
    }
  });

  it('takes any number of elements', () => {
    const list = scan(`[${'1,'.repeat(70_000)}{}]`);
    if (typeof list === 'string') throw new Error(list);
    expect([list.starts.length, list.separators.length, list.objects]).toEqual([70_001, 70_001, false]);
    expect(scan(`[${'1,'.repeat(70_000)}]`)).toBe('malformed');
  });

  it('reports what a list holds the same way on a real page', () => {
    const page = Buffer.from(JSON.stringify(Array.from({ length: 50 }, (_, id) => ({ id, name: `user ${id} \u00e9\n`, email: `u${id}@example.com`, big: 1e21, x: -0, tags: [{ '1a': true }] }))));
    const list = scan(page);
    if (typeof list === 'string') throw new Error(list);
    expect({ ...list, starts: list.starts.length }).toMatchObject({ starts: 50, objects: true, lineBreaks: false, escapes: true, longNumbers: true, digitKeys: true });
  });
});

describe('the WebAssembly scanner', () => {
  /** The list (or verdict) each scanner gives for a text. */
  const both = (text: string) => {
    const bytes = Buffer.from(text);
    setScanner('js');
    const js = scanJsonList(bytes);
    setScanner('wasm');
    return { js, wasm: scanJsonList(bytes) };
  };

  it('says what the JavaScript scanner says, offsets and flags included, of any text', () => {
    const token = fc.constantFrom('[', ']', '{', '}', ',', ':', '"a"', '"1"', '"\\n"', '"\\u00e9"', '"\\u12"', '1', '-0', '-2.5e3', '1E+2', '01', 'true', 'fals', 'null', ' ', '\n', '\r', '\t', '"', '\\', 'x', '\u0001', '\u00e9');
    fc.assert(fc.property(fc.array(token, { maxLength: 24 }), (tokens) => {
      const { js, wasm } = both(`[${tokens.join('')}`);
      expect(wasm).toEqual(js);
    }), { numRuns: 5000 });
    const records = fc.array(fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue({ maxDepth: 5 })), { minLength: 1, maxLength: 4 });
    const replacement = fc.constantFrom('', '"', '\\', ',', ':', '{', '}', '[', ']', ' ', '\n', '0', '-', '.', 'e', 'x', '\u0000', '\u0001', 'n');
    fc.assert(fc.property(records, fc.nat(), replacement, fc.boolean(), fc.boolean(), (list, at, by, insert, spaced) => {
      const text = JSON.stringify(list, null, spaced ? 1 : undefined);
      const k = at % text.length;
      const { js, wasm } = both(text.slice(0, k) + by + text.slice(insert ? k : k + 1));
      expect(wasm).toEqual(js);
    }), { numRuns: 3000 });
  });

  it('is in use by default, built from json-scan.wat as it is now (run `npm run wasm` when this fails)', async () => {
    expect(scannerInUse()).toBe('wasm');
    for (const { file, text } of (await wasmModules()) as Array<{ file: string; text: string }>) {
      expect(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'), `${file} is stale: run npm run wasm`).toBe(text);
    }
  });
});
