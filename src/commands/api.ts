import { defineCommand, type Context } from '../cli/command.js';
import { UsageError } from '../errors.js';
import { collect, pairReadsFile } from '../parse.js';
import { readLocalFile } from '../files.js';
import { assignField, typedValue, type Json } from '../cli/json-fields.js';
import { isDeepStrictEqual } from 'node:util';
import { readJson } from '../api/client.js';
import { sameOrigin } from '../http/url.js';
import { DownloadResult } from '../download/result.js';
import { JsonAnswer, TextResult } from '../output/result.js';
import { withoutSecretValues } from '../api/resources/variables.js';
import { mayShowValues, showValuesOption } from '../cli/secrets.js';

interface Options {
  path: string;
  method?: string;
  rawField?: string[];
  field?: string[];
  header?: string[];
  input?: string;
  paginate?: boolean;
  include?: boolean;
  showValues?: boolean;
}

function isText(type: string | undefined): boolean {
  return !type || type.includes('json') || type.startsWith('text/');
}

function splitPair(pair: string, flag: string): [string, string] {
  const index = pair.indexOf('=');
  if (index <= 0) throw new UsageError(`${flag} takes key=value, got "${pair}"`);
  return [pair.slice(0, index), pair.slice(index + 1)];
}

async function buildFields(opts: Options, ctx: Context): Promise<Record<string, Json>> {
  const fields: Record<string, Json> = {};
  for (const pair of opts.rawField ?? []) {
    const [key, value] = splitPair(pair, '-f');
    assignField(fields, key, value);
  }
  for (const pair of opts.field ?? []) {
    const [key, value] = splitPair(pair, '-F');
    assignField(fields, key, await typedValue(value, () => ctx.io.readStdin()));
  }
  return fields;
}

export default defineCommand<Options>({
  effect: 'destructive',
  description:
    'The path is relative to /api/v4 (or a full URL on the same instance). Fields go to the query string for GET and HEAD and to a JSON body otherwise; with fields (or --input) and no -X the method is POST, as with gh api; --paginate means GET. Same authentication, retries, errors and exit codes as every command. ' +
    'The values of masked and hidden CI/CD variables in an answer are shown as null: --show-values shows masked ones at a terminal, never in a pipe or a file.',
  examples: [
    'forgectl api /user',
    'forgectl api /projects/acme%2Fapi/badges -f link_url=https://ci.example.com -f image_url=https://ci.example.com/b.svg',
    'forgectl api -X GET /users -f username=alice',
    'forgectl api -X PUT /application/settings -F signup_enabled=false',
    'forgectl api /users --paginate -o ndjson',
    'forgectl api -X POST /projects/1/hooks --input hook.json',
  ],
  args: ['<path>'],
  defaultFormat: 'json',
  options: [
    { flags: '-X, --method <method>', description: 'HTTP method (default GET, or POST with fields)' },
    { flags: '-f, --raw-field <key=value>', description: 'a string field (repeatable)', parse: collect },
    { flags: '-F, --field <key=value>', description: 'a typed field: numbers, true/false, null, @file (repeatable)', parse: collect, localFile: pairReadsFile },
    { flags: '-H, --header <name:value>', description: 'an extra request header (repeatable)', parse: collect },
    { flags: '--input <file>', description: 'request body from a file, or - for stdin', localFile: true },
    { flags: '--paginate', description: 'fetch every page; prints one JSON array (or NDJSON with -o ndjson)' },
    { flags: '-i, --include', description: 'print the status line and response headers before the body' },
    showValuesOption,
  ],
  async run(opts, ctx) {
    const fields = await buildFields(opts, ctx);
    const hasFields = Object.keys(fields).length > 0;
    const method = (opts.method ?? ((hasFields || opts.input) && !opts.paginate ? 'POST' : 'GET')).toUpperCase();
    if (!/^[A-Z]+$/.test(method)) throw new UsageError(`invalid method "${opts.method}"`);
    const headers: Record<string, string> = {};
    for (const header of opts.header ?? []) {
      const index = header.indexOf(':');
      const name = header.slice(0, index).trim();
      const value = header.slice(index + 1).trim();
      // What HTTP allows: a token for the name, no control characters (line breaks) in the value.
      if (index <= 0 || !/^[!#$%&'*+.^`|~\w-]+$/.test(name)) throw new UsageError(`-H takes "Name: value", got "${header}"`);
      if (/[^\t\x20-\x7e\x80-\xff]/.test(value)) throw new UsageError(`-H ${name}: the value may not contain control characters (such as line breaks) or characters beyond Latin-1`);
      headers[name.toLowerCase()] = value;
    }
    const absolute = /^https?:\/\//i.test(opts.path);
    const path = absolute || opts.path.startsWith('/') ? opts.path : `/${opts.path}`;
    // The token goes only to its own instance; a full URL elsewhere is not an API call of this instance.
    if (absolute && !sameOrigin(opts.path, ctx.connection().baseUrl)) {
      throw new UsageError(`${opts.path} is not on the instance in use (${ctx.connection().rootUrl})`, 'give a path below /api/v4, or --server URL (with FORGECTL_TOKEN) for another instance');
    }
    const inQuery = method === 'GET' || method === 'HEAD';
    if (opts.input && hasFields) throw new UsageError('--input and fields cannot be combined');
    const show = mayShowValues(opts, ctx);

    if (opts.paginate) {
      if (method !== 'GET') throw new UsageError('--paginate works with GET only');
      const list = ctx.api.list(path, fields as Record<string, string>, { ...ctx.paging, all: true });
      return show ? list : list.map(withoutSecretValues);
    }

    let rawBody: { data: Buffer | string; contentType: string } | undefined;
    if (opts.input) {
      const data = opts.input === '-' ? await ctx.io.readStdinBuffer() : readLocalFile(opts.input);
      rawBody = { data, contentType: headers['content-type'] ?? 'application/json' };
    }
    const response = await ctx.api.send({
      method,
      path,
      headers,
      query: inQuery ? fields : undefined,
      body: !inQuery && hasFields ? fields : undefined,
      rawBody,
      // JSON and text are read whole (and retried if cut off); anything else streams to stdout or a file.
      read: (header) => isText(header('content-type')),
    });
    if (opts.include) {
      let head = `HTTP ${response.status}\n`;
      for (const [name, value] of Object.entries(response.headers)) head += `${name}: ${Array.isArray(value) ? value.join(', ') : value}\n`;
      await ctx.io.out(`${head}\n`);
    }
    if (isText(response.header('content-type'))) {
      const body = await readJson(response);
      if (body.kind === 'json') {
        if (body.value === undefined) return undefined;
        if (show) return new JsonAnswer(body.value, body.text);
        // jq reads the answer's own text (numbers as written), unless a secret value was taken out of it.
        const value = withoutSecretValues(body.value);
        return new JsonAnswer(value, isDeepStrictEqual(value, body.value) ? body.text : JSON.stringify(value));
      }
      if (body.kind === 'malformed' || /html/i.test(body.type)) {
        // An HTML page or broken JSON is rarely what was asked for: a failure of the server where records were to be
        // shaped (--jq, --template); else printed as it came, and said so on stderr.
        if (ctx.globals.jq !== undefined || ctx.globals.template !== undefined) throw ctx.api.notJson({ method, path, query: inQuery ? fields : undefined }, response.status, body.kind, body.type);
        ctx.io.warn(body.kind === 'malformed' ? `the server answered ${response.status} with malformed JSON; printed as text` : `the server answered ${response.status} with ${body.type}, not JSON (a sign-in page of a proxy?)`);
      }
      return new TextResult(body.text);
    }
    return new DownloadResult(response.body, { size: Number(response.header('content-length')) || undefined });
  },
});
