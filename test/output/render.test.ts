import { readdirSync, readFileSync } from 'node:fs';
import { Writable, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { render } from '../../src/output/render.js';
import { Io } from '../../src/output/io.js';
import { fitColumns, listTable, type ColumnPriority } from '../../src/output/table.js';
import { csvLine, tsvCell, type Format } from '../../src/output/formats.js';
import { JsonAnswer, TextResult } from '../../src/output/result.js';
import { isJsonCell, type Row } from '../../src/output/fields.js';
import { UsageError } from '../../src/errors.js';
import { plural, pluralNoun } from '../../src/parse.js';

function capture(tty: boolean) {
  const out = Object.assign(new Writable({ write(chunk, _e, cb) { out.text += chunk.toString(); cb(); } }), { text: '', isTTY: tty });
  return out;
}

async function show(result: unknown, format: Format, options: { tty?: boolean; fields?: string[]; columns?: string[]; width?: number } = {}) {
  const stdout = Object.assign(capture(Boolean(options.tty)), { columns: options.width ?? 100 });
  const stderr = capture(Boolean(options.tty));
  const io = new Io({ stdin: Readable.from([]), stdout, stderr }, { quiet: false, color: false });
  await render(result, io, { format, fields: options.fields, columns: options.columns });
  return { stdout: stdout.text, stderr: stderr.text };
}

const rows = [
  { id: 1, name: 'api', scopes: ['api', 'read_api'], owner: { name: 'Alice', id: 7 }, expires_at: '2027-01-01', note: 'a\tb' },
  { id: 2, name: 'web, "site"', scopes: [], owner: { name: 'Bob', id: 8 }, expires_at: null, note: 'line1\nline2' },
];

describe('output formats (contract §4)', () => {
  it('pipes tab-separated lines without a header, using the command\'s columns', async () => {
    const { stdout } = await show(rows, 'table', { columns: ['id', 'name', 'scopes', 'expires_at'] });
    expect(stdout).toBe('1\tapi\tapi,read_api\t2027-01-01\n2\tweb, "site"\t\t\n');
  });

  it('prints aligned columns with a header on a terminal: no borders, no row separators', async () => {
    const { stdout } = await show(rows, 'table', { tty: true, columns: ['id', 'name', 'note'] });
    expect(stdout).toBe('id  name         note\n1   api          a b\n2   web, "site"  line1 line2\n');
  });

  it('writes one JSON array, NDJSON lines, YAML and RFC 4180 CSV', async () => {
    expect(JSON.parse((await show(rows, 'json')).stdout)).toEqual(rows);
    expect(JSON.parse((await show([], 'json')).stdout)).toEqual([]);
    expect((await show(rows, 'ndjson')).stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual(rows);
    expect((await show(rows, 'yaml')).stdout).toContain('- id: 1\n  name: api');
    const csv = (await show(rows, 'csv', { columns: ['id', 'name', 'note'] })).stdout;
    expect(csv).toBe('id,name,note\r\n1,api,a\tb\r\n2,"web, ""site""","line1\nline2"\r\n');
  });

  it('applies --fields with dotted paths to every format', async () => {
    expect(JSON.parse((await show(rows, 'json', { fields: ['id', 'owner.name'] })).stdout)).toEqual([
      { id: 1, owner: { name: 'Alice' } },
      { id: 2, owner: { name: 'Bob' } },
    ]);
    expect((await show(rows, 'table', { fields: ['owner.name', 'id'] })).stdout).toBe('Alice\t1\nBob\t2\n');
    expect((await show(rows[0], 'table', { fields: ['owner.id'] })).stdout).toBe('owner.id\t7\n');
  });

  it('exits 2 listing the known fields for an unknown one', async () => {
    const error = await show(rows, 'json', { fields: ['id', 'nope'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe('unknown field: nope (did you mean note?)');
    expect((error as UsageError).hint).toContain('known fields: id, name, scopes, owner, owner.name, owner.id');
  });

  it('reads a path through an array as jq\'s .[] does: each element\'s value, nesting kept; a path no element has is unknown', async () => {
    const branches = [
      { name: 'main', push_access_levels: [{ access_level: 40, user_id: null }, { access_level: 30, user_id: 7 }] },
      { name: 'dev', push_access_levels: [] },
    ];
    expect(JSON.parse((await show(branches, 'json', { fields: ['name', 'push_access_levels.access_level'] })).stdout)).toEqual([
      { name: 'main', push_access_levels: [{ access_level: 40 }, { access_level: 30 }] },
      { name: 'dev', push_access_levels: [] },
    ]);
    expect((await show(branches, 'table', { fields: ['name', 'push_access_levels.access_level', 'push_access_levels.user_id'] })).stdout).toBe('main\t40,30\t,7\ndev\t\t\n');
    expect((await show(branches, 'table', { fields: ['push_access_levels.0.access_level'] })).stdout).toBe('40\n\n');
    const error = (await show(branches, 'json', { fields: ['push_access_levels.acess_level'] }).catch((e: unknown) => e)) as UsageError;
    expect(error.message).toBe('unknown field: push_access_levels.acess_level (did you mean push_access_levels?)');
    expect(error.hint).toBe('known fields: name, push_access_levels, push_access_levels.access_level, push_access_levels.user_id');
  });

  it('takes a key named __proto__ as a key, and never a property every object has (constructor)', async () => {
    const records = JSON.parse('[{"id": 1, "__proto__": {"x": 1}}]') as Row[];
    expect((await show(records, 'json', { fields: ['id', '__proto__.x'] })).stdout).toBe('[\n  {\n    "id": 1,\n    "__proto__": {\n      "x": 1\n    }\n  }\n]\n');
    expect((await show(records, 'table', { fields: ['__proto__'] })).stdout).toBe('{"x":1}\n');
    for (const field of ['constructor', 'id.toString']) {
      expect(await show(records, 'json', { fields: [field] }).catch((e: unknown) => e), field).toBeInstanceOf(UsageError);
    }
  });

  it('sums up the known fields of a record of a hundred fields instead of listing them all on one line', async () => {
    const record = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`field_${String(i).padStart(3, '0')}`, { a: i, b: i }]));
    const error = (await show(record, 'json', { fields: ['feild_042'] }).catch((e: unknown) => e)) as UsageError;
    expect(error.message).toBe('unknown field: feild_042 (did you mean field_042?)');
    const first = Array.from({ length: 15 }, (_, i) => `field_${String(i).padStart(3, '0')}`).join(', ');
    expect(error.hint).toBe(`300 known fields, among them ${first} …; -o json shows them all`);
  });

  it('shows a single record as key/value lines in a pipe', async () => {
    expect((await show({ id: 3, name: 'x', tags: ['a', 'b'] }, 'table')).stdout).toBe('id\t3\nname\tx\ntags\ta,b\n');
  });

  it('prints text results verbatim whatever the format', async () => {
    expect((await show(new TextResult('glpat-abc'), 'json')).stdout).toBe('glpat-abc\n');
  });

  it('keeps every record on one TSV line and every CSV cell quoted correctly', () => {
    fc.assert(fc.property(fc.array(fc.string()), (cells) => {
      for (const cell of cells) expect(tsvCell(cell)).not.toMatch(/[\t\r\n]/);
      const line = csvLine(cells);
      expect(line.endsWith('\r\n')).toBe(true);
    }));
  });

  it('shows an object or array in a TSV or CSV cell as its compact JSON with one level of escaping: a copied cell is the value', async () => {
    const commit = { id: 'abc', message: 'Fix\n\tthe "path" C:\\tmp', parents: [{ id: 'p1' }], note: 'a\u009bb' };
    const record = { name: 'v1.0', commit, title: 'two\nlines' };
    const tsv = (await show(record, 'table')).stdout;
    // The record's own values first, the nested one after.
    expect(tsv).toBe(`name\tv1.0\ntitle\ttwo\\nlines\ncommit\t{"id":"abc","message":"Fix\\n\\tthe \\"path\\" C:\\\\tmp","parents":[{"id":"p1"}],"note":"a\\u009bb"}\n`);
    expect(JSON.parse(tsv.split('\n')[2].split('\t')[1])).toEqual(commit);
    const list = (await show([record], 'table', { columns: ['name', 'commit'] })).stdout;
    expect(JSON.parse(list.trimEnd().split('\t')[1])).toEqual(commit);
    const csv = (await show([record], 'csv', { columns: ['commit'] })).stdout;
    expect(JSON.parse(csv.split('\r\n')[1].slice(1, -1).replace(/""/g, '"'))).toEqual(commit);
  });

  it('fits a wide list to the terminal: the widest cells are cut with …, every line within the width', async () => {
    const wide = Array.from({ length: 5 }, (_, i) => Object.fromEntries(Array.from({ length: 12 }, (_, c) => [`c${c}`, c % 3 === 0 ? `a long value number ${i} in column ${c} that goes on and on` : `v${i}${c}`])));
    const { stdout } = await show(wide, 'table', { tty: true, width: 100 });
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(6); // a header and one line per record
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    expect(stdout).toContain('…');
    expect(lines[1]).toMatch(/^a long/);
    expect(lines[1]).toContain('v01');
    // Wide enough: nothing is cut.
    expect((await show(wide, 'table', { tty: true, width: 1000 })).stdout).not.toContain('…');
  });

  it('fits columns by cutting only the widest ones', () => {
    expect(fitColumns([2, 10, 40], 80)).toEqual([2, 10, 40]);
    expect(fitColumns([2, 10, 40], 40)).toEqual([2, 10, 24]);
    expect(fitColumns([2, 30, 40], 40)).toEqual([2, 17, 17]);
  });

  it('on a narrow terminal shows times as dates, cuts other values, then leaves out the last columns; headers and the name stay whole', async () => {
    const projects = Array.from({ length: 3 }, (_, i) => ({
      id: 14 - i, path_with_namespace: `acme/team-01/squad-2/svc-01${4 - i}`, visibility: 'private', archived: false, default_branch: 'main', last_activity_at: '2026-11-24T22:42:34.315Z',
    }));
    const columns = ['id', 'path_with_namespace', 'visibility', 'archived', 'default_branch', 'last_activity_at'];
    const at = async (width: number, fields?: string[], records = false) => {
      const { stdout, stderr } = await show(projects, 'table', { tty: true, width, columns, fields });
      const lines = stdout.trimEnd().split('\n');
      if (!records) for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(width);
      return { lines, stderr };
    };
    // 88 columns: every header and value whole, times as dates.
    const wide = await at(88);
    expect(wide.lines[0].split(/\s{2,}/)).toEqual(columns);
    expect(wide.lines[1].split(/\s{2,}/)).toEqual(['14', 'acme/team-01/squad-2/svc-014', 'private', 'false', 'main', '2026-11-24']);
    expect(wide.stderr).toBe('');
    // 80 columns: the last column is left out, and stderr says so, rather than headers cut to "archi…", "defau…".
    const narrow = await at(80);
    expect(narrow.lines[0].split(/\s{2,}/)).toEqual(['id', 'path_with_namespace', 'visibility', 'archived', 'default_branch']);
    expect(narrow.lines[3].split(/\s{2,}/)).toEqual(['12', 'acme/team-01/squad-2/svc-012', 'private', 'false', 'main']);
    expect(narrow.stderr).toBe('columns left out to fit the terminal: last_activity_at (--fields picks them)\n');
    // 60 columns: more are left out; the path stays whole on every row.
    expect((await at(60)).lines[0].split(/\s{2,}/)).toEqual(['id', 'path_with_namespace', 'visibility', 'archived']);
    // Columns asked for by --fields are never left out: their headers are cut instead.
    const asked = await at(60, columns);
    expect(asked.lines[0].split(/\s{2,}/)).toHaveLength(6);
    expect(asked.lines[0]).toContain('…');
    expect(asked.stderr).toBe('');
    // So narrow that only the id and the path would be left: a table that leaves out more than it shows gives way
    // to the records one after the other, each value whole.
    const records = await at(34, undefined, true);
    expect(records.lines.slice(0, 7)).toEqual(['id                   14', 'path_with_namespace  acme/team-01/squad-2/svc-014', 'visibility           private', 'archived             false', 'default_branch       main', 'last_activity_at     2026-11-24T22:42:34.315Z', '']);
    expect(records.stderr).toBe('');
  });

  it('leaves out the last columns (or those the command ranks first) rather than cut a header to its short or empty values', () => {
    const columns = ['name', 'current', 'url', 'token_storage', 'default_project', 'default_group'];
    const rows = [['default', 'true', 'https://git.example.com', 'none', '', ''], ['dana', 'false', 'https://dana.example.com', 'keyring', 'acme/api', '']];
    const headers = (priority?: ColumnPriority) => listTable(columns, rows, { color: false, width: 80, mayDrop: true, priority }).text.split('\n')[0].split(/\s+/);
    // "default_group" would say nothing as "defaul…": it is left out, and the caller told so.
    expect(listTable(columns, rows, { color: false, width: 80, mayDrop: true, priority: { whole: ['url'] } })).toMatchObject({ left: ['default_group'] });
    expect(headers({ whole: ['url'] })).toEqual(columns.slice(0, 5));
    // A command ranks the columns that say least: they go first, wherever they stand.
    expect(listTable(columns, rows, { color: false, width: 80, mayDrop: true, priority: { whole: ['url'], dropFirst: ['current'] } })).toMatchObject({ left: ['current'] });
    // Columns named by --fields cannot be left out: there a header gives way.
    expect(listTable(columns, rows, { color: false, width: 80 }).text.split('\n')[0]).toContain('…');
  });

  it('keeps a fix whole and times as dates: cuts and leaves out other columns first, else shows record by record', () => {
    const runners = [
      ['100', '6', 'acme-arm', 'group_type', 'Acme', 'stale', '2026-08-21T06:23:05.147Z', 'forgectl runners delete 6'],
      ['60', '3', 'shared-macos', 'instance_type', 'instance', 'stale', 'never', 'forgectl runners delete 3'],
    ];
    const columns = ['idle_days', 'id', 'description', 'runner_type', 'owner', 'status', 'last_contact', 'fix'];
    const table = (width: number, priority?: ColumnPriority) => listTable(columns, runners, { color: false, width, mayDrop: true, priority });
    // The command names its identifying column and a column to keep: at 80 columns both stay whole, with the fix.
    const audit = table(80, { identifying: 'description', whole: ['last_contact'] });
    expect(audit.text.split('\n').map((line) => line.split(/\s{2,}/))).toEqual([
      ['idle_days', 'id', 'description', 'last_contact', 'fix'],
      ['100', '6', 'acme-arm', '2026-08-21', 'forgectl runners delete 6'],
      ['60', '3', 'shared-macos', 'never', 'forgectl runners delete 3'],
      [''],
    ]);
    expect(audit.left).toEqual(['runner_type', 'owner', 'status']);
    // By default the fix stays whole too; a time column is never cut (shown as a date, or left out).
    for (const width of [60, 70, 80, 90]) {
      const { text } = table(width);
      for (const line of text.trimEnd().split('\n').slice(1)) expect(line).toMatch(/forgectl runners delete \d$/);
      expect(text).not.toMatch(/\d{4}-\d\d-\d?…|forgectl …/);
    }
    // Where the fix and the columns kept cannot share a line, each record is a block of lines, every value whole.
    const tokens = [['expires in 45 days', '45', '2027-01-13', '4', 'acme-ci', 'forgectl tokens rotate 4 --group acme --expires-in 90d --yes']];
    const narrow = listTable(['finding', 'days_left', 'expires_at', 'id', 'name', 'fix'], tokens, { color: false, width: 70, mayDrop: true, priority: { whole: ['expires_at'] } });
    expect(narrow).toEqual({
      text: [
        'finding     expires in 45 days',
        'days_left   45',
        'expires_at  2027-01-13',
        'id          4',
        'name        acme-ci',
        'fix         forgectl tokens rotate 4 --group acme --expires-in 90d --yes',
        '',
      ].join('\n'),
      left: [],
    });
  });

  it('a long list is laid out a slice at a time, line for line as one table lays it out', async () => {
    const { default: Table } = await import('cli-table3');
    const columns = ['id', 'username', 'name', 'state'];
    const rows = Array.from({ length: 1234 }, (_, i) => [String(i), `user${i}`, `A name of ${'x'.repeat(i % 40)}`, i % 3 ? 'active' : 'blocked']);
    const { text } = listTable(columns, rows, { color: false, width: 60, mayDrop: true });
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(1 + rows.length);
    // The widths listTable chose, read from its header line, given to one cli-table3 table of every row.
    const widths = [...lines[0].matchAll(/\S+\s*/g)].map((m, i, all) => (i < all.length - 1 ? m[0].length - 2 : 60));
    const chars = { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' };
    const one = new Table({ head: columns, colWidths: widths, wordWrap: false, truncate: '…', chars, style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 } });
    for (const row of rows) one.push(row);
    expect(lines.slice(1)).toEqual(one.toString().split('\n').slice(1).map((line: string) => line.trimEnd()));
  });

  it('cuts a dotted header too wide from its start, so that paths stay apart; others at the end', async () => {
    const rows = [{ id: 1, merge_request: { iid: 12, title: 'A title long enough to be cut on a narrow terminal' }, target_branch: 'a-branch-name-long-enough' }];
    const fields = ['id', 'merge_request.iid', 'merge_request.title', 'target_branch'];
    const [head] = (await show(rows, 'table', { tty: true, width: 44, columns: fields, fields })).stdout.split('\n');
    // The header of short values (iid) is kept longest; the dotted ones keep their ends, the other its start.
    expect(head.split(/\s{2,}/)).toEqual(['id', '…request.iid', '…quest.title', 'target_bran…']);
  });

  it('keeps headers whole, taking the room from long values', async () => {
    const rows = [{ key: 'API_URL', environment_scope: 'production', protected: false, masked: true, value: 'https://api.example.com/a/long/path' }];
    const [head] = (await show(rows, 'table', { tty: true, width: 60, columns: ['key', 'environment_scope', 'protected', 'masked', 'value'] })).stdout.split('\n');
    // Neither "environme…" nor "prote…": the value is cut.
    expect(head.split(/\s{2,}/)).toEqual(['key', 'environment_scope', 'protected', 'masked', 'value']);
  });

  it('shows terminal control sequences from server data as visible escapes in table, TSV and CSV (JSON escapes them)', async () => {
    const hostile = [{ id: 1, body: 'hi\u001b]0;owned\u0007 \u001b[2J\u009b31m end' }];
    const table = (await show(hostile, 'table', { tty: true, columns: ['id', 'body'] })).stdout;
    const tsv = (await show(hostile, 'table', { columns: ['id', 'body'] })).stdout;
    const csv = (await show(hostile, 'csv', { columns: ['id', 'body'] })).stdout;
    const record = (await show(hostile[0], 'table', { tty: true })).stdout;
    for (const text of [table, tsv, csv, record]) {
      // eslint-disable-next-line no-control-regex
      expect(text).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/);
      expect(text).toContain('hi\\x1b]0;owned\\x07 \\x1b[2J\\x9b31m end');
    }
    expect(JSON.parse((await show(hostile, 'json')).stdout)).toEqual(hostile);
  });

  it('escapes DEL and C1 controls, which JSON and YAML leave raw, in JSON, NDJSON and YAML on a terminal: the same document', async () => {
    const hostile = [{ id: 1, body: 'a\u009b31mred\u009d0;title\u009c\u007f\u0085 é', [`k\u009b`]: 'line\n\u009bx\n' }];
    const { parse } = (await import('yaml')).default;
    for (const [result, format, read] of [
      [hostile, 'json', JSON.parse], [hostile[0], 'json', JSON.parse], [hostile, 'ndjson', (t: string) => [JSON.parse(t)]],
      [hostile[0], 'ndjson', JSON.parse], [hostile, 'yaml', parse], [hostile[0], 'yaml', parse],
    ] as const) {
      const text = (await show(result, format, { tty: true })).stdout;
      expect(text).not.toMatch(/[\u007f-\u009f]/);
      expect(read(text)).toEqual(result);
    }
    expect((await show(hostile, 'json')).stdout).toContain('\u009b'); // a pipe gets JSON.stringify's own text
  });
});


describe('counts in messages', () => {
  it('say one noun or many, with thousands separated by commas, through one helper', () => {
    expect([plural(0, 'group'), plural(1, 'group'), plural(2, 'group'), plural(1234, 'record')]).toEqual(['0 groups', '1 group', '2 groups', '1,234 records']);
    expect(plural(1, 'entry', 'entries')).toBe('1 entry');
    expect(plural(12_000, 'entry', 'entries')).toBe('12,000 entries');
    expect([pluralNoun(1, 'field'), pluralNoun(3, 'field')]).toEqual(['field', 'fields']);
  });

  it('are written through that helper everywhere: no hand-made plural is left in the sources', () => {
    const src = new URL('../../src/', import.meta.url);
    const handMade = /[a-z](?<!http)\(s\)[\s:,;`'"]|=== 1 \? '' : 's'|> 1 \? 's' : ''|=== 1 \? 'y' : 'ies'/;
    const found = (readdirSync(src, { recursive: true }) as string[])
      // The sandbox's messages are the service's own; tests beside the code are not the CLI's words.
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.startsWith('sandbox') && !/\/sandbox(-[a-z-]+)?\.ts$/.test(name))
      .flatMap((name) => readFileSync(new URL(name, src), 'utf8').split('\n').filter((line) => handMade.test(line)).map((line) => `${name}: ${line.trim()}`));
    expect(found).toEqual([]);
  });
});


describe('every format path gives back the value it was given', () => {
  // Strings that JavaScript or other readers treat specially: line and paragraph separators (line terminators to a
  // regular expression's ^ and $), lone surrogates, controls, DEL and C1, a byte order mark.
  const unit = fc.oneof(fc.constantFrom('\u2028', '\u2029', '\ud800', '\udfff', '\u0000', '\u001b', '\u007f', '\u0085', '\u009b', '\n', '\r', '\t', '"', '\\', '\ufeff', ' ', 'é'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
  // What parsing and re-serialising gives (no -0: JSON has none).
  const json = fc.jsonValue({ stringUnit: unit, maxDepth: 3 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown);
  const records = fc
    .uniqueArray(fc.string({ unit: fc.constantFrom('a', 'b', '_', '\u2028', 'é', ' ', '\ud800'), minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 })
    .chain((keys) => fc.array(fc.tuple(...keys.map(() => json)).map((values) => Object.fromEntries(keys.map((key, i) => [key, values[i]]))), { minLength: 1, maxLength: 3 }));

  it('JSON, NDJSON and YAML of a list and of a record, with and without --fields, in a pipe and on a terminal', async () => {
    const { parse } = (await import('yaml')).default;
    const ndjson = (text: string) => text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown);
    // YAML 1.1 readers (PyYAML) take these for line breaks or refuse them: they are written as escapes.
    const yaml = (text: string) => {
      expect(text).not.toMatch(/[\u007f-\u009f\u2028\u2029\ufeff]/);
      return parse(text) as unknown;
    };
    await fc.assert(
      fc.asyncProperty(records, fc.boolean(), async (list, tty) => {
        const fields = Object.keys(list[0]);
        for (const options of [{ tty }, { tty, fields }]) {
          expect(JSON.parse((await show(list, 'json', options)).stdout)).toEqual(list);
          expect(ndjson((await show(list, 'ndjson', options)).stdout)).toEqual(list);
          expect(yaml((await show(list, 'yaml', options)).stdout)).toEqual(list);
          expect(JSON.parse((await show(list[0], 'json', options)).stdout)).toEqual(list[0]);
          expect(ndjson((await show(list[0], 'ndjson', options)).stdout)).toEqual([list[0]]);
          expect(yaml((await show(list[0], 'yaml', options)).stdout)).toEqual(list[0]);
        }
        // TSV: a cell holding an object or array is its JSON.
        const lines = (await show(list, 'table', { fields })).stdout.split('\n');
        list.forEach((record, i) => {
          const cells = lines[i].split('\t');
          fields.forEach((field, c) => isJsonCell(record[field]) && expect(JSON.parse(cells[c])).toEqual(record[field]));
        });
      }),
      { numRuns: 200 },
    );
  });

  it("--jq '.': each record as JSON that reads back as it was (a lone surrogate as U+FFFD, as jq reads it), from records and from an answer's text", async () => {
    const { compileJq, printJq, answerSource } = await import('../../src/output/jq.js');
    const program = await compileJq('.', {});
    const wellFormed = (text: string) => (text as string & { toWellFormed(): string }).toWellFormed();
    const asJqReadsIt = (value: unknown): unknown =>
      typeof value === 'string' ? wellFormed(value) : Array.isArray(value) ? value.map(asJqReadsIt) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [wellFormed(k), asJqReadsIt(v)])) : value;
    const printed = async (source: Parameters<typeof printJq>[1], tty: boolean) => {
      const stdout = capture(tty);
      await printJq(program, source, new Io({ stdin: Readable.from([]), stdout, stderr: capture(tty) }, { quiet: true, color: false }));
      return stdout.text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown);
    };
    await fc.assert(
      fc.asyncProperty(records, fc.boolean(), async (list, tty) => {
        const expected = list.map(asJqReadsIt);
        expect(await printed({ pages: (async function* () { yield list; })() }, tty)).toEqual(expected);
        expect(await printed(answerSource(new JsonAnswer(list, JSON.stringify(list)), false), tty)).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });
});

