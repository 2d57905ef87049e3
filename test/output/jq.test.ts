import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../helpers/cli.js';
import { needs } from '../helpers/system.js';
import { timeAgo } from '../../src/output/template.js';
import { keysRead } from '../../src/output/jq.js';

const sandbox = useTestSandbox({ users: 230 });

describe('--jq', () => {
  it('runs on each record of a list as its pages arrive: strings raw, the rest compact JSON, a result a line', async () => {
    const all = (await sandbox.run(['users', 'list', '--all', '-o', 'json'])).json() as Array<{ id: number; username: string }>;
    const result = await sandbox.run(['users', 'list', '--all', '--jq', '.username, {id}']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(all.map((u) => `${u.username}\n{"id":${u.id}}\n`).join(''));
  });

  it('with --slurp runs once on the whole collection: one number for length', async () => {
    const result = await sandbox.run(['users', 'list', '--all', '--slurp', '--jq', 'length']);
    expect(result).toMatchObject({ code: 0, stdout: `${sandbox.db.table('users').length}\n` });
    expect(await sandbox.run(['api', '/user', '--slurp', '--jq', 'length, .[0].username'])).toMatchObject({ code: 0, stdout: '1\nroot\n' });
  });

  it('runs once on a single record, whatever the profile or -o json says', async () => {
    expect(await sandbox.run(['api', '/user', '--jq', '.username'])).toMatchObject({ code: 0, stdout: 'root\n' });
    expect(await sandbox.run(['api', '/user', '-o', 'json', '--jq', '[.id, .is_admin]'])).toMatchObject({ code: 0, stdout: '[1,true]\n' });
  });

  it('filters the records of api --paginate across pages', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['api', '/users', '--paginate', '-f', 'per_page=50', '--jq', 'select(.username | test("^user1[0-9]$")) | .username']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').filter(Boolean).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `user1${i}`).sort());
    expect(sandbox.requests().length).toBeGreaterThan(1);
  });

  it('refuses a bad expression with jq\'s message and the column, exit 2, before any request', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['users', 'list', '--jq', '.a | | .b']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: --jq: syntax error, unexpected '|'");
    expect(result.stderr).toContain('at line 1, column 6');
    const undefinedFunction = await sandbox.run(['users', 'list', '--jq', '.a | nosuch(1)']);
    expect(undefinedFunction).toMatchObject({ code: 2, stderr: expect.stringContaining('nosuch/1 is not defined at line 1, column 6') });
    expect(sandbox.requests()).toEqual([]);
  });

  it('stops at a runtime error with exit 2 and the record\'s index, after the results the expression gave before it (as jq prints them)', async () => {
    const all = (await sandbox.run(['users', 'list', '--all', '-o', 'json'])).json() as Array<{ id: number; username: string }>;
    const failing = 150;
    const result = await sandbox.run(['users', 'list', '--all', '--jq', `.id, if .id == ${all[failing].id} then .username.x else empty end`]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe(all.slice(0, failing + 1).map((u) => `${u.id}\n`).join(''));
    expect(result.stderr).toContain(`error: --jq: Cannot index string with string "x" (on record ${failing + 1}, index ${failing})`);
    expect(result.stderr).toContain(`output is incomplete: ${failing} records written`);
    expect(await sandbox.run(['api', '/user', '--jq', '.id, .username.x'])).toMatchObject({ code: 2, stdout: '1\n' });
    const caught = await sandbox.run(['api', '/user', '--jq', '"hi", ("ho" | error)']);
    expect(caught).toMatchObject({ code: 2, stdout: 'hi\n', stderr: 'error: --jq: ho\n' });
    const slurped = await sandbox.run(['tags', 'list', '--project', 'acme/api', '--slurp', '--jq', '.name']);
    expect(slurped).toMatchObject({ code: 2, stdout: '', stderr: 'error: --jq: Cannot index array with string "name"\nhint: the value is an array (with --slurp, all the records): take each element\'s with .[].name or map(.name)\n' });
  });

  it('points at --slurp when an expression written for the whole array runs on each record of it', async () => {
    for (const expression of ['.[0].username', 'first', 'sort']) {
      const result = await sandbox.run(['api', '/users', '--jq', expression]);
      expect(result.code, expression).toBe(2);
      expect(result.stderr, expression).toContain('(on record 1, index 0)\nhint: the expression runs once on each record of the list; --slurp runs it once on all of them as one array');
    }
    expect(await sandbox.run(['api', '/users', '--slurp', '--jq', '.[0].username | type'])).toMatchObject({ code: 0, stdout: 'string\n' });
    // An error of another kind, or on a single record, gets no such hint.
    expect((await sandbox.run(['api', '/users', '--jq', '.username.x'])).stderr).not.toContain('hint:');
    expect((await sandbox.run(['api', '/user', '--jq', '.[0]'])).stderr).toBe('error: --jq: Cannot index object with number\n');
  });

  it('refuses input and inputs with exit 2 before any request: each record runs by itself', async () => {
    sandbox.clearRequests();
    for (const expression of ['input', '[inputs]', '., input', 'first(inputs)']) {
      const result = await sandbox.run(['users', 'list', '--jq', expression]);
      expect(result, expression).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('error: --jq: input and inputs are not available') });
    }
    expect(sandbox.requests()).toEqual([]);
    // A function of the expression's own by that name is its own.
    expect(await sandbox.run(['api', '/user', '--jq', 'def input: .username; input'])).toMatchObject({ code: 0, stdout: 'root\n' });
  });

  it('runs on the answer of api as it was written: null, numbers as jq 1.7 keeps them, a byte order mark left out', async () => {
    const answer = (body: string) => sandbox.fault({ method: 'GET', path: '^/answer$', status: 200, body, headers: { 'Content-Type': 'application/json' }, times: 1 });
    answer('null');
    expect(await sandbox.run(['api', '/answer', '--jq', '., "abc", (. == null)'])).toMatchObject({ code: 0, stdout: 'null\nabc\ntrue\n' });
    answer('null');
    expect(await sandbox.run(['api', '/answer'])).toMatchObject({ code: 0, stdout: 'null\n' });
    const numbers = '[100000000000000000001, 1.0, -0, 13911860366432393, 1E2]';
    answer(`{"n": ${numbers}}`);
    expect(await sandbox.run(['api', '/answer', '--jq', '.n, (.n[3] | tostring), .n[0] + 0'])).toMatchObject({ code: 0, stdout: '[100000000000000000001,1.0,-0,13911860366432393,1E+2]\n13911860366432393\n1e+20\n' });
    answer(numbers);
    expect(await sandbox.run(['api', '/answer', '--jq', '.'])).toMatchObject({ code: 0, stdout: '100000000000000000001\n1.0\n-0\n13911860366432393\n1E+2\n' });
    answer(numbers);
    expect(await sandbox.run(['api', '/answer', '--slurp', '--jq', '.[0]'])).toMatchObject({ code: 0, stdout: '100000000000000000001\n' });
    // A lone surrogate, which jq refuses (high) or reads as U+FFFD (low), is U+FFFD; a pair and an escaped backslash stay.
    answer(String.raw`["\ud800x", "\ud83d\ude00", "\\ud800", "\udc00", "\ud800\ud800\udc00"]`);
    expect(await sandbox.run(['api', '/answer', '--jq', '.'])).toMatchObject({ code: 0, stdout: '\ufffdx\n\u{1f600}\n\\ud800\n\ufffd\n\ufffd\u{10000}\n' });
    answer('\uFEFF{"id": 7}');
    expect(await sandbox.run(['api', '/answer', '--jq', '.id'])).toMatchObject({ code: 0, stdout: '7\n' });
  });

  it('refuses an answer that is not JSON, printing nothing: an HTML page or broken JSON is exit 8, other text exit 2', async () => {
    const answer = (body: string, type: string) => sandbox.fault({ method: 'GET', path: '^/answer$', status: 200, body, headers: { 'Content-Type': type }, times: 1 });
    for (const flag of [['--jq', 'length'], ['--template', '{{ id }}']]) {
      answer('<!DOCTYPE html><title>Sign in</title>', 'text/html');
      const html = await sandbox.run(['api', '/answer', ...flag]);
      expect(html).toMatchObject({ code: 8, stdout: '', stderr: 'error: the server answered 200 with text/html, not JSON (GET /answer)\nhint: a web page answered instead of the API (a sign-in page of a proxy?); check the instance URL\n' });
      answer('[1, NaN]', 'application/json');
      expect(await sandbox.run(['api', '/answer', ...flag])).toMatchObject({ code: 8, stdout: '', stderr: 'error: the server answered 200 with malformed JSON (GET /answer)\n' });
      answer('plain words', 'text/plain');
      expect(await sandbox.run(['api', '/answer', ...flag])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining(`error: ${flag[0]} works on records; this answer is text, not JSON`) });
    }
    // Without them the text is printed as it came, and stderr says what it is.
    answer('<!DOCTYPE html><title>Sign in</title>', 'text/html');
    expect(await sandbox.run(['api', '/answer'])).toMatchObject({ code: 0, stdout: '<!DOCTYPE html><title>Sign in</title>\n', stderr: expect.stringContaining('not JSON') });
  });

  it('refuses text a command prints (a token) under --jq or --template: exit 2, the text not printed', async () => {
    for (const shaping of [['--jq', '.'], ['--template', '{{ value }}']]) {
      const result = await sandbox.run(['auth', 'token', ...shaping]);
      expect(result, shaping.join(' ')).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining(`error: ${shaping[0]} works on records; this answer is text, not JSON`) });
    }
  });

  it('keeps a key named __proto__ as a key, on the fast path too', async () => {
    sandbox.fault({ method: 'GET', path: '^/answer$', status: 200, body: '[{"__proto__": {"x": 1}, "id": 1}, {"id": 2}]', headers: { 'Content-Type': 'application/json' }, times: 3 });
    expect(await sandbox.run(['api', '/answer', '--jq', '.__proto__'])).toMatchObject({ code: 0, stdout: '{"x":1}\nnull\n' });
    expect(await sandbox.run(['api', '/answer', '--jq', '{__proto__}'])).toMatchObject({ code: 0, stdout: '{"__proto__":{"x":1}}\n{"__proto__":null}\n' });
    const fields = await sandbox.run(['api', '/answer', '--fields', '__proto__.x,id', '-o', 'ndjson']);
    expect(fields).toMatchObject({ code: 0, stdout: '{"__proto__":{"x":1},"id":1}\n{"__proto__":{"x":null},"id":2}\n' });
  });

  it('hands jq only the keys a plain path or {a, b} reads, with the same results and errors as the whole record', async () => {
    expect(keysRead('.username')).toEqual(['username']);
    expect(keysRead(' .a.b , .c ')).toEqual(['a', 'c']);
    expect(keysRead('{id, username}')).toEqual(['id', 'username']);
    for (const expression of ['.username | ascii_upcase', 'keys', '.[]', '.a?', '{id: .x}', '..']) expect(keysRead(expression), expression).toBeUndefined();
    for (const [fast, whole] of [['.id, .namespace_id', '(.id, .namespace_id) | .'], ['{id, username, nosuch}', '{id, username, nosuch} | .'], ['.nosuch.deeper', '.nosuch.deeper | .']]) {
      const a = await sandbox.run(['users', 'list', '--all', '--jq', fast]);
      const b = await sandbox.run(['users', 'list', '--all', '--jq', whole]);
      expect(a).toMatchObject({ code: 0, stdout: b.stdout });
    }
    const error = await sandbox.run(['users', 'list', '--all', '--jq', '.username.x']);
    expect(error).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('Cannot index string with string "x" (on record 1, index 0)') });
  });

  it('refuses what means nothing with it: -o table, --fields, --template, --slurp alone', async () => {
    for (const argv of [['-o', 'table', '--jq', '.'], ['--fields', 'id', '--jq', '.'], ['--jq', '.', '--template', '{{ id }}'], ['--slurp'], ['--jq', ' ']]) {
      const result = await sandbox.run(['users', 'list', ...argv]);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
    }
  });

  it('shows no secret of the environment: $ENV has the rest', async () => {
    const result = await sandbox.run(['api', '/user', '--jq', '[$ENV.FORGECTL_TOKEN, env.FORGECTL_URL, $ENV.WANTED]'], { env: { WANTED: 'root' } });
    expect(result).toMatchObject({ code: 0, stdout: `[null,${JSON.stringify(sandbox.rootUrl)},"root"]\n` });
  });

  it('makes control characters from the server visible on a terminal, and leaves them to a pipe', async () => {
    await sandbox.call('PUT', '/users/1', { bio: 'a\u001b]0;owned\u0007b' });
    expect((await sandbox.run(['api', '/users/1', '--jq', '.bio'], { tty: true })).stdout).toBe('a\\x1b]0;owned\\x07b\n');
    expect((await sandbox.run(['api', '/users/1', '--jq', '.bio'])).stdout).toBe('a\u001b]0;owned\u0007b\n');
  });

  it("prints the same lines as -o json | jq -r '.[].username'", async (context) => {
    needs(context, 'jq');
    const json = await sandbox.run(['users', 'list', '--all', '-o', 'json']);
    const theirs = spawnSync('jq', ['-r', '.[].username'], { input: json.stdout, encoding: 'utf8' }).stdout;
    expect((await sandbox.run(['users', 'list', '--all', '--jq', '.username'])).stdout).toBe(theirs);
  });
});

describe('--template', () => {
  it('prints a line per record with fields, relative times and aligned rows; colour only on a terminal', async () => {
    const now = () => new Date(Date.now() + 3 * 86_400_000);
    const lines = await sandbox.run(['users', 'list', '--limit', '2', '--template', '{{ username }} {{ created_at | timeago }} {{ state | color: "green" }}'], { now });
    expect(lines.code).toBe(0);
    expect(lines.stdout).toMatch(/^\S+ 3 days ago active\n\S+ 3 days ago active\n$/);
    const painted = await sandbox.run(['users', 'list', '--limit', '1', '--template', '{{ state | color: "green" }}'], { tty: true, env: { FORCE_COLOR: '1' } });
    expect(painted.stdout).toBe('\u001b[32mactive\u001b[39m\n');
    const rows = await sandbox.run(['users', 'list', '--limit', '3', '--template', '{% row id, username %}']);
    const cells = rows.stdout.trimEnd().split('\n').map((line) => line.split(/ {2,}/));
    expect(cells).toHaveLength(3);
    expect(new Set(rows.stdout.trimEnd().split('\n').map((line) => line.indexOf(cells[0][1] === undefined ? '' : line.split(/ {2,}/)[1])))).toHaveProperty('size', 1);
  });

  it('reads @FILE, escapes control characters in values (also in coloured ones), and cannot read other files', async () => {
    await sandbox.call('PUT', '/users/1', { bio: 'x\u001b[2Jy' });
    const file = join(tempDir(), 't.liquid');
    writeFileSync(file, '{{ bio }}|{{ bio | color: "red" }}');
    expect((await sandbox.run(['api', '/users/1', '--template', `@${file}`])).stdout).toBe('x\\x1b[2Jy|x\\x1b[2Jy\n');
    sandbox.clearRequests();
    const include = await sandbox.run(['api', '/users/1', '--template', '{% include "/etc/passwd" %}']);
    expect(include).toMatchObject({ code: 2, stdout: '' });
    expect(include.stderr).toContain('cannot read files');
    const bad = await sandbox.run(['api', '/users/1', '--template', '{{ id | nosuch }}']);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('undefined filter: nosuch') });
    expect(sandbox.requests()).toEqual([]);
  });

  it('refuses a name that is neither a field nor a filter, naming it and the fields, instead of printing nothing', async () => {
    const typo = await sandbox.run(['api', '/user', '--template', '{{ username }} {{ nosuchfield }}']);
    expect(typo).toMatchObject({ code: 2, stdout: '' });
    expect(typo.stderr).toMatch(/^error: --template: undefined variable: nosuchfield, line:1, col:\d+\nhint: \d+ known fields, among them id, username, /);
    expect(typo.stderr).toContain('{% if name %} and {{ name | default: "-" }} take a field a record may lack');
    const list = await sandbox.run(['users', 'list', '--template', '{{ nope }}']);
    expect(list).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('undefined variable: nope') });
    // if, unless and default may name a field a record lacks; a null field is empty text.
    const lenient = await sandbox.run(['api', '/user', '--template', '{% if nope %}x{% else %}{{ username }}{% endif %} {{ nope | default: "-" }} {{ website_url }}.']);
    expect(lenient).toMatchObject({ code: 0, stdout: 'root - .\n' });
  });

  it('refuses Go template syntax (as gh takes it) before any request, saying the language is Liquid', async () => {
    sandbox.clearRequests();
    for (const [template, tag] of [
      ['{{range .}}{{.name}}{{end}}', '{{range .}}'],
      ['{{printf "#%v" .id}} {{.name}}', '{{printf "#%v" .id}}'],
      ['{{.name}} {{timeago .created_at}}', '{{timeago .created_at}}'],
      ['{{ $id := .id }}{{ $id }}', '{{ $id := .id }}'],
    ]) {
      const result = await sandbox.run(['users', 'list', '--template', template]);
      expect(result, template).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr, template).toBe(`error: --template: ${tag} is Go template syntax, not Liquid\nhint: --template takes Liquid: '{{ id }} {{ name | upcase }} {{ created_at | timeago }}'; a list field: {% for label in labels %}{{ label }} {% endfor %}\n`);
    }
    const filter = await sandbox.run(['users', 'list', '--template', '{{ username | upper }}']);
    expect(filter).toMatchObject({ code: 2, stderr: expect.stringContaining("error: --template: undefined filter: upper, line:1, col:1\nhint: the filters are Liquid's (upcase, ") });
    expect(sandbox.requests()).toEqual([]);
  });

  it('says times relative to now', () => {
    const now = new Date('2026-01-10T12:00:00Z');
    expect(timeAgo('2026-01-10T11:59:50Z', now)).toBe('just now');
    expect(timeAgo('2026-01-10T10:00:00Z', now)).toBe('2 hours ago');
    expect(timeAgo('2026-01-13T12:00:00Z', now)).toBe('in 3 days');
    expect(timeAgo('not a time', now)).toBe('not a time');
  });
});
