import { defineCommand, instanceName } from '../cli/command.js';
import { UsageError } from '../errors.js';
import { collect, pairReadsFile, parseChoice, parseInteger } from '../parse.js';
import { readLocalFile } from '../files.js';
import { readJson } from '../api/client.js';
import { sameOrigin } from '../http/url.js';
import { limitOption, perPageOption } from '../cli/options.js';
import type { PageOptions } from '../api/paginate.js';
import type { Json } from '../json-fields.js';
import { DownloadResult } from '../download/result.js';
import { TextResult } from '../output/result.js';
import { withoutSecretValues } from '../resources/variables/resource.js';
import { mayShowValues, showValuesOption } from '../resources/variables/show-values.js';
import { buildFields, jsonAnswer, parseHeaders, printHead, type ApiOptions } from './api/shared.js';

/** The methods the REST API answers: anything else is a typo, refused before it is sent. */
const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

function isText(type: string | undefined): boolean {
  return !type || type.includes('json') || type.startsWith('text/');
}

export default defineCommand<ApiOptions>({
  effect: 'destructive',
  description: [
    'The path is relative to /api/v4 (or a full URL on the same instance). Fields go to the query string for GET and HEAD and to a JSON body otherwise; with fields (or --input) and no -X the method is POST, as with gh api; --paginate means GET. Same authentication, retries, errors and exit codes as every command.',
    'A DELETE, or a POST, PUT or PATCH to an action that deletes (a path ending in /erase, /delete, /purge, /destroy, /remove or /wipe, such as a job\'s erase), asks first at a terminal, naming the method and path; in a script it needs --yes (exit 2 otherwise, nothing sent); --dry-run shows it without asking.',
    '--paginate follows every page (--per-page records each, 100 by default) into one JSON array; --limit N stops after N records without requesting the pages past them.',
    'The path graphql (exactly that word, as with gh api; /graphql is a REST path) sends a GraphQL request to /api/graphql at the root of the instance: -f query=TEXT or -F query=@FILE, -f operationName=NAME, and every other field a variable (-F typed: -F first=50). The query is parsed before anything is sent (not GraphQL: exit 2). A query is retried as a GET is and runs under --dry-run, and never asks. A mutation asks first at a terminal, naming the fields it runs (bulkRunnerDelete); in a script it needs --yes (exit 2 otherwise, nothing sent); --dry-run shows it without sending it, and it is never sent twice.',
    'With graphql, --paginate follows the first connection that has pageInfo: it requires that the query accepts an $endCursor: String variable and that it fetches pageInfo { hasNextPage endCursor } from a collection, as with gh. The pages print as one JSON array (NDJSON with -o ndjson); --jq runs on each page, or once on all of them with --slurp.',
    'A GraphQL answer with errors and no data fails with the exit code of the first error: 5 when what it names does not exist (or may not be seen), 4 for authentication and permission, 7 when rate limited, 8 when the server failed, and 6 for anything else the server refused (a query it could not parse or validate, a value of the wrong kind). An answer with data and errors is printed, the errors go to stderr, and the exit is 9.',
    'The values of masked and hidden CI/CD variables in an answer, and a group\'s or project\'s runner registration token (runners_token), are shown as null: --show-values shows masked values and that token at a terminal, never in a pipe or a file.',
  ].join(' '),
  examples: [
    'forgectl api /user',
    'forgectl api /projects/acme%2Fapi/badges -f link_url=https://ci.example.com -f image_url=https://ci.example.com/b.svg',
    'forgectl api -X GET /users -f username=alice',
    'forgectl api -X PUT /application/settings -F signup_enabled=false',
    'forgectl api -X DELETE /projects/acme%2Fapi/badges/2 --yes   # the badge just created; at a terminal it asks instead',
    'forgectl api /users --paginate -o ndjson',
    "forgectl api /projects --paginate --limit 250 --jq '.path_with_namespace'",
    'forgectl api -X POST /projects/1/hooks --input hook.json',
    "forgectl api graphql -f query='{ currentUser { username } }'",
    "forgectl api graphql -F query=@runners.graphql -f status=STALE --jq '.data.runners.nodes[] | [.id, .description, .upgradeStatus] | @tsv'",
    "forgectl api graphql --paginate -f query='query($endCursor: String) { users(first: 100, after: $endCursor) { pageInfo { hasNextPage endCursor } nodes { username } } }' --jq '.data.users.nodes[].username'",
    "forgectl api graphql --dry-run -f query='mutation($ids: [CiRunnerID!]) { bulkRunnerDelete(input: {ids: $ids}) { deletedIds errors } }' -f 'ids[]=gid://gitlab/Ci::Runner/3'",
  ],
  args: ['<path>'],
  defaultFormat: 'json',
  options: [
    { flags: '-X, --method <method>', description: 'HTTP method (default GET, or POST with fields)', parse: parseChoice('--method', HTTP_METHODS) },
    { flags: '-f, --raw-field <key=value>', description: 'a string field (repeatable)', parse: collect },
    { flags: '-F, --field <key=value>', description: 'a typed field: numbers, true/false, null, @file (repeatable)', parse: collect, localFile: pairReadsFile },
    { flags: '-H, --header <name:value>', description: 'an extra request header (repeatable)', parse: collect },
    { flags: '--input <file>', description: 'request body from a file, or - for stdin (graphql: {"query": …, "variables": {…}})', localFile: true },
    { flags: '--paginate', description: 'fetch every page (graphql: through $endCursor); prints one JSON array (or NDJSON with -o ndjson)' },
    { ...perPageOption, description: 'with --paginate: records per page, 1-100 (default 100; -f per_page=N says the same)' },
    { ...limitOption, description: 'with --paginate: stop after this many records (no page past them is requested)' },
    { flags: '-i, --include', description: 'print the status line and response headers before the body' },
    showValuesOption,
  ],
  async run(opts, ctx) {
    checkPaging(opts, ctx.paging);
    const fields = await buildFields(opts, ctx);
    if (opts.input && Object.keys(fields).length) throw new UsageError('--input and fields cannot be combined');
    // `graphql` as gh takes it: the GraphQL API. A path (`/graphql`) is a REST path below /api/v4 as always.
    if (opts.path === 'graphql') return (await import('./api/graphql.js')).runGraphql(opts, fields, mayShowValues(opts, ctx), ctx);
    const hasFields = Object.keys(fields).length > 0;
    const method = (opts.method ?? ((hasFields || opts.input) && !opts.paginate ? 'POST' : 'GET')).toUpperCase();
    const headers = parseHeaders(opts.header);
    const absolute = /^https?:\/\//i.test(opts.path);
    const path = absolute || opts.path.startsWith('/') ? opts.path : `/${opts.path}`;
    // The token goes only to its own instance; a full URL elsewhere is not an API call of this instance.
    if (absolute && !sameOrigin(opts.path, ctx.connection().baseUrl)) {
      throw new UsageError(`${opts.path} is not on the instance in use (${ctx.connection().rootUrl})`, 'give a path below /api/v4, or --server URL (with FORGECTL_TOKEN) for another instance');
    }
    const inQuery = method === 'GET' || method === 'HEAD';
    const show = mayShowValues(opts, ctx);

    if (opts.paginate) {
      if (method !== 'GET') throw new UsageError('--paginate works with GET only');
      const list = ctx.api.list(path, fields as Record<string, string>, { all: true, limit: ctx.paging.limit, perPage: pageSize(fields, ctx.paging.perPage) });
      return show ? list : list.map(withoutSecretValues);
    }

    // A DELETE, or a write to an action that deletes (a job's erase), is asked for as every command that deletes
    // asks (--yes off a terminal); --dry-run sends it nowhere.
    if (deletes(method, path)) await ctx.confirm(`Send ${method} ${path} to ${instanceName(ctx)}?`);
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
      // JSON or text from another origin is not this instance's answer; a download may come from object storage.
      sameOrigin: (header) => isText(header('content-type')),
    });
    if (opts.include) await printHead(ctx, response.status, response.headers);
    if (isText(response.header('content-type'))) {
      const body = await readJson(response);
      if (body.kind === 'json') {
        return body.value === undefined ? undefined : jsonAnswer(body.value, body.text, show);
      }
      if (body.kind === 'malformed' || /html/i.test(body.type)) {
        // An HTML page or broken JSON is rarely what was asked for: a failure of the server where records were to be
        // shaped (--jq, --template); else printed as it came, and said so on stderr.
        if (ctx.globals.jq !== undefined || ctx.globals.template !== undefined) throw ctx.api.notJson({ method, path, query: inQuery ? fields : undefined }, response.status, body.kind, body.type, body.why);
        ctx.io.warn(body.kind === 'malformed' ? `the server answered ${response.status} with ${body.why ?? 'malformed JSON'}; printed as text` : `the server answered ${response.status} with ${body.type}, not JSON (a sign-in page of a proxy?)`);
      }
      return new TextResult(body.text);
    }
    return new DownloadResult(response.body, { size: Number(response.header('content-length')) || undefined });
  },
});

/** The last word of a path whose POST, PUT or PATCH deletes: a job's erase (its log and artifacts), and their kin. */
const DELETING_ACTIONS = new Set(['delete', 'erase', 'purge', 'destroy', 'remove', 'wipe']);

/** Whether a request deletes: a DELETE, or a write whose path ends in a deleting action (/jobs/7/erase). */
function deletes(method: string, path: string): boolean {
  if (method === 'DELETE') return true;
  if (!['POST', 'PUT', 'PATCH'].includes(method)) return false;
  const last = new URL(path, 'http://instance').pathname.split('/').filter(Boolean).pop() ?? '';
  return DELETING_ACTIONS.has(last.toLowerCase());
}

/** --per-page and --limit size and end the pages of a REST --paginate; a GraphQL query sizes its own (first: N). */
function checkPaging(opts: ApiOptions, paging: PageOptions): void {
  const given = [paging.perPage !== undefined && '--per-page', paging.limit !== undefined && '--limit'].filter(Boolean).join(' and ');
  if (!given) return;
  if (opts.path === 'graphql') throw new UsageError(`${given} cannot be used with graphql`, 'a GraphQL query sizes its pages itself: first: N in the query');
  if (!opts.paginate) throw new UsageError(`${given} go${given.includes(' and ') ? '' : 'es'} with --paginate`, 'add --paginate, or ask for one page with -f per_page=N');
}

/** The size of --paginate's pages: --per-page, or a per_page field (taken, not replaced by the default of 100). */
function pageSize(fields: Record<string, Json>, perPage: number | undefined): number | undefined {
  if (fields.per_page === undefined) return perPage;
  const field = parseInteger('per_page', 1, 100)(String(fields.per_page));
  if (perPage !== undefined && perPage !== field) throw new UsageError(`--per-page ${perPage} and -f per_page=${field} disagree`, 'give one of them');
  return field;
}
