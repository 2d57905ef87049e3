/**
 * The same records whatever the destination: a list whose pages hold escapes, numbers in other than their shortest
 * form and a duplicated key prints the same values to a pipe and to a terminal, with and without --fields, --limit
 * and --all, in every format; JSON and NDJSON are what parsing and writing the records again gives.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, tempDir } from '../helpers/cli.js';

/** Two pages of users, as a service (or a proxy in front of it) may write them: escaped, long numbers, a key twice. */
const PAGES = [
  '[{"id":1,"username":"ren\\u00e9","name":"Ren\\u00e9 \\u0026 co \\/ \\"q\\"","score":1.0,"big":1e400,"neg":-0,"long":123456789012345678901234567890,"id2":5,"id2":6},\n  {"id":2,"username":"b","name":"B","score":2.50,"big":1,"neg":0,"long":1,"id2":7}]',
  '[{"id":3, "username":"c","name":"line\\nbreak \\u2028","score":3e0,"big":2,"neg":-0.0,"long":2,"id2":8,"id2":9}]',
];
/** What parsing and writing each record again gives. */
const RECORDS = [
  { id: 1, username: 'rené', name: 'René & co / "q"', score: 1, big: null, neg: 0, long: 1.2345678901234568e29, id2: 6 },
  { id: 2, username: 'b', name: 'B', score: 2.5, big: 1, neg: 0, long: 1, id2: 7 },
  { id: 3, username: 'c', name: 'line\nbreak \u2028', score: 3, big: 2, neg: 0, long: 2, id2: 9 },
];

/**
 * Pages of records of one shape (an instance under /shaped): as JSON.stringify writes them, but the second has a key
 * twice and the fourth an escape it writes otherwise. NDJSON takes the bytes of the first and third as they are.
 */
const SHAPED_RECORDS = [1, 2, 3, 4, 5, 6, 7, 8].map((id) => ({ id, username: `u${id}`, name: id === 7 ? 'Ren\u00e9' : `U ${id}`, groups: [{ id: id * 10, path: `g${id}` }], admin: id % 2 === 0 }));
const SHAPED = [0, 2, 4, 6].map((at) => JSON.stringify(SHAPED_RECORDS.slice(at, at + 2)));
SHAPED[1] = SHAPED[1].replace('"admin":false', '"admin":true,"admin":false');
SHAPED[3] = SHAPED[3].replace('Ren\u00e9', 'Ren\\u00e9');

let server: Server;
let url = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    const pages = req.url?.startsWith('/shaped/') ? SHAPED : PAGES;
    const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
    const next = page < pages.length ? String(page + 1) : '';
    res.writeHead(200, { 'content-type': 'application/json', 'x-next-page': next, 'x-page': String(page), 'x-per-page': '2' });
    res.end(pages[page - 1] ?? '[]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const list = (extra: string[], tty = false, instance = url) =>
  run(['users', 'list', '--per-page', '2', ...extra], { tty, env: { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: instance, FORGECTL_TOKEN: 'glpat-test' } });

describe('list values do not depend on where they go', () => {
  it('NDJSON and JSON are the parsed records written again: one key once, escapes and numbers normalised', async () => {
    const ndjson = await list(['--all', '-o', 'ndjson']);
    expect(ndjson.code, ndjson.stderr).toBe(0);
    expect(ndjson.stdout).toBe(RECORDS.map((record) => `${JSON.stringify(record)}\n`).join(''));
    const json = await list(['--all', '-o', 'json']);
    expect(json.stdout).toBe(`${JSON.stringify(RECORDS, null, 2)}\n`);
  });

  it.each(['ndjson', 'json', 'yaml', 'csv', 'table'])('-o %s prints the same to a pipe and to a terminal, with --all, --limit and --fields', async (format) => {
    for (const extra of [['--all'], ['--limit', '3'], ['--all', '--fields', 'id,name,score,big,neg,long,id2'], ['--limit', '3', '--fields', 'id,name,score,big,neg,long,id2']]) {
      const [piped, shown] = [await list([...extra, '-o', format]), await list([...extra, '-o', format], true)];
      expect([piped.code, shown.code], piped.stderr + shown.stderr).toEqual([0, 0]);
      if (format === 'table') expect(cells(shown.stdout)).toEqual(cells(piped.stdout));
      else expect(shown.stdout).toBe(piped.stdout);
    }
  });

  it('NDJSON written from the pages\' own bytes is the parsed records written again, pages of either kind in one list', async () => {
    const expected = SHAPED_RECORDS.map((record) => `${JSON.stringify(record)}\n`).join('');
    const piped = await list(['--all', '-o', 'ndjson'], false, `${url}/shaped`);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toBe(expected);
    expect((await list(['--all', '-o', 'ndjson'], true, `${url}/shaped`)).stdout).toBe(expected);
    expect((await list(['--limit', '5', '-o', 'ndjson'], false, `${url}/shaped`)).stdout).toBe(expected.split('\n').slice(0, 5).map((line) => `${line}\n`).join(''));
  });

  it('--fields, --limit and --all give the same values of each record', async () => {
    const fields = 'id,name,score,big,neg,long,id2';
    const outputs = await Promise.all([['--all'], ['--limit', '3'], ['--all', '--fields', fields], ['--limit', '2', '--fields', fields]].map((extra) => list([...extra, '-o', 'json'])));
    for (const output of outputs) {
      const records = output.json<Array<Record<string, unknown>>>();
      for (const record of records) expect(RECORDS.find((r) => r.id === record.id)).toMatchObject(record);
    }
    expect(outputs[2].stdout).toBe(outputs[0].stdout.replace(/\n {4}"username": "[^"]*",/g, ''));
  });
});

/**
 * The cells of a table on a terminal (columns apart by two spaces or more) or of TSV lines, without the header and
 * the empty cells at the end of a row (a table's are blank). A line break in a value is a space in a table's cell
 * and `\n` in a TSV cell: both read as a space here, and cells without the spaces around them.
 */
function cells(text: string): string[][] {
  const plain = stripVTControlCharacters(text).trimEnd();
  const rows = plain.split('\n').map((line) => (line.includes('\t') ? line.replaceAll('\\n', ' ').split('\t') : line.trim().split(/\s{2,}/)));
  const body = rows[0][0] === 'id' ? rows.slice(1) : rows;
  return body.map((row) => {
    const trimmed = row.map((cell) => cell.trim());
    while (trimmed.at(-1) === '') trimmed.pop();
    return trimmed;
  });
}
