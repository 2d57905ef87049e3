import type { DocumentNode, OperationDefinitionNode, SelectionSetNode } from 'graphql';
import { Kind } from 'graphql/language/kinds.js';
import { parse } from 'graphql/language/parser.js';
import { ApiError, CliError, ExitCode, UsageError, type ExitCodeValue } from '../errors.js';
import { readJson, type Api, type ApiConnection } from './client.js';

/**
 * The service's GraphQL API (/api/graphql, at the instance root beside /api/v4) through the same client as every
 * request (authentication, redaction, --verbose, --dry-run): the query document read here first (what it runs and
 * whether it changes anything), the answer's `errors` turned into the exit codes of every command, and --paginate
 * following the first connection's pageInfo through an $endCursor variable, as gh does.
 */

export interface GraphqlRequest {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** A query document, checked: its text, its parsed form, and the one operation it runs. */
export interface GraphqlDocument {
  text: string;
  document: DocumentNode;
  operation: OperationDefinitionNode;
}

export interface GraphqlError {
  message?: unknown;
  path?: unknown;
  extensions?: { code?: unknown } & Record<string, unknown>;
}

/** An answer: `data`, `errors`, or both, with the text it was parsed from. */
export interface GraphqlAnswer {
  value: { data?: Record<string, unknown> | null; errors?: GraphqlError[] } & Record<string, unknown>;
  text: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  requestId?: string;
}

/** The GraphQL endpoint of the connection's instance: its root (the API base without /api/v4) + /api/graphql. */
export const graphqlUrl = (connection: Pick<ApiConnection, 'baseUrl'>): string => `${connection.baseUrl.replace(/\/api\/v4$/, '')}/api/graphql`;

/**
 * Parses a query document and picks the operation it runs (the only one, or `operationName`'s). Exit 2, nothing
 * sent, for a document that is not GraphQL or whose operation is not clear.
 */
export function parseGraphql(text: string, operationName?: string): GraphqlDocument {
  let document: DocumentNode;
  try {
    document = parse(text);
  } catch (error) {
    const { message, locations } = error as { message: string; locations?: Array<{ line: number; column: number }> };
    const where = locations?.[0] ? ` (line ${locations[0].line}, column ${locations[0].column})` : '';
    throw new UsageError(`the query is not GraphQL: ${message}${where}`, text.startsWith('@') ? 'to read the query from a file, give -F query=@FILE (-f takes the text as it is)' : undefined);
  }
  const operations = document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  const named = operations.map((op) => op.name?.value ?? '(unnamed)');
  const operation = operationName === undefined ? (operations.length === 1 ? operations[0] : undefined) : operations.find((op) => op.name?.value === operationName);
  if (!operation) {
    if (!operations.length) throw new UsageError('the query document has no query or mutation');
    if (operationName !== undefined) throw new UsageError(`the query document has no operation named ${operationName} (it has ${named.join(', ')})`);
    throw new UsageError(`the query document has ${operations.length} operations (${named.join(', ')})`, 'name the one to run: -f operationName=NAME');
  }
  return { text, document, operation };
}

/** Whether the operation may change anything: a mutation (or a subscription, which is no read either). */
export const isMutation = (document: GraphqlDocument): boolean => document.operation.operation !== 'query';

/** The fields an operation selects at its top (a mutation's: what it changes), fragments of the document followed. */
export function operationFields(document: GraphqlDocument): string[] {
  const fragments = new Map(document.document.definitions.flatMap((definition) => (definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition.selectionSet] as const] : [])));
  const seen = new Set<string>();
  const fieldsOf = (selections: SelectionSetNode | undefined): string[] =>
    (selections?.selections ?? []).flatMap((selection) => {
      if (selection.kind === Kind.FIELD) return [selection.name.value];
      if (selection.kind === Kind.INLINE_FRAGMENT) return fieldsOf(selection.selectionSet);
      if (seen.has(selection.name.value)) return [];
      seen.add(selection.name.value);
      return fieldsOf(fragments.get(selection.name.value));
    });
  return [...new Set(fieldsOf(document.operation.selectionSet))];
}

/** Whether a selection, or one below it, fetches `pageInfo { hasNextPage endCursor }`. */
function selectsPageInfo(selections: SelectionSetNode | undefined): boolean {
  return (selections?.selections ?? []).some((selection) => {
    if (selection.kind === Kind.FIELD && selection.name.value === 'pageInfo') {
      const fields = new Set((selection.selectionSet?.selections ?? []).map((field) => (field.kind === Kind.FIELD ? field.name.value : '')));
      if (fields.has('hasNextPage') && fields.has('endCursor')) return true;
    }
    return 'selectionSet' in selection && selectsPageInfo(selection.selectionSet);
  });
}

/**
 * --paginate needs what gh needs: the operation accepts an `$endCursor: String` variable, and the document fetches
 * `pageInfo { hasNextPage endCursor }` of a connection. Otherwise every request would ask for the first page again.
 */
export function checkPaginated(document: GraphqlDocument): void {
  const declares = (document.operation.variableDefinitions ?? []).some((definition) => definition.variable.name.value === 'endCursor');
  const fetches = document.document.definitions.some((definition) => 'selectionSet' in definition && selectsPageInfo(definition.selectionSet));
  if (declares && fetches) return;
  const missing = [declares ? '' : 'declares no $endCursor variable', fetches ? '' : 'fetches no pageInfo { hasNextPage endCursor }'].filter(Boolean).join(' and ');
  throw new UsageError(
    `--paginate with graphql requires that the query accepts an $endCursor: String variable and that it fetches the pageInfo { hasNextPage endCursor } set of fields from a collection; this query ${missing}`,
    "for example: -f query='query($endCursor: String) { users(first: 100, after: $endCursor) { pageInfo { hasNextPage endCursor } nodes { username } } }'",
  );
}

/**
 * Sends one operation (POST, JSON). A query is read-only: sent under --dry-run and retried as a GET is; a mutation
 * is a change: printed instead under --dry-run, and never sent again once it may have reached the server.
 */
export async function sendGraphql(api: Api, request: GraphqlRequest, options: { mutation: boolean; headers?: Record<string, string> }): Promise<GraphqlAnswer> {
  const path = graphqlUrl(api.connection);
  const response = await api.send({ method: 'POST', path, body: request, headers: options.headers, read: true, reads: !options.mutation });
  const body = await readJson(response);
  if (body.kind !== 'json' || !body.value || typeof body.value !== 'object' || Array.isArray(body.value)) {
    throw api.notJson({ method: 'POST', path }, response.status, body.kind === 'json' ? 'malformed' : body.kind, body.kind === 'json' ? '' : body.type);
  }
  return { value: body.value as GraphqlAnswer['value'], text: body.text, status: response.status, headers: response.headers, requestId: response.header('x-request-id') };
}

/** What a server says of a query it could not parse or validate, or of a value of the wrong kind (graphql-js, graphql-ruby). */
const REFUSED = /^(syntax error|parse error)|cannot query field|doesn't exist on type|unknown (argument|type|fragment|directive)|^(variable|argument) |expected (type|value)|must have (a selection|selections)|doesn't accept argument|is not a valid global id|does not represent an instance/i;

/**
 * The exit code of a GraphQL error, by its `extensions.code` or else its message: a query the server could not parse
 * or validate, or a value it refused, 6; a record that does not exist or may not be seen 5; authentication or
 * permission 4; rate limit 7; a failure of the server 8; anything else 6.
 */
export function exitCodeOfGraphqlError(error: GraphqlError): ExitCodeValue {
  const given = String(error.extensions?.code ?? '');
  const code = given.toUpperCase().replace(/[^A-Z]/g, '');
  const message = String(error.message ?? '');
  // graphql-ruby names its validation errors in lower camel case (undefinedField, argumentNotAccepted …).
  if (['GRAPHQLPARSEFAILED', 'GRAPHQLVALIDATIONFAILED', 'BADUSERINPUT'].includes(code) || /^[a-z]+[A-Z]\w*$/.test(given) || REFUSED.test(message)) return ExitCode.rejected;
  if (['NOTFOUND', 'RESOURCENOTAVAILABLE'].includes(code) || /does not exist|not found|could not find/i.test(message)) return ExitCode.notFound;
  if (['UNAUTHENTICATED', 'UNAUTHORIZED', 'FORBIDDEN', 'PERMISSIONDENIED'].includes(code) || /invalid token|unauthori[sz]ed|authenticat|forbidden|permission|not allowed|access denied/i.test(message)) return ExitCode.auth;
  if (['RATELIMITED', 'TOOMANYREQUESTS', 'THROTTLED'].includes(code) || /rate limit|too many requests|throttl/i.test(message)) return ExitCode.rateLimited;
  if (['INTERNALSERVERERROR', 'SERVICEUNAVAILABLE', 'TIMEOUT'].includes(code) || /internal server error|timed out|timeout|unavailable/i.test(message)) return ExitCode.server;
  return ExitCode.rejected;
}

/** "users.nodes.0.email: message" */
export const describeGraphqlError = (error: GraphqlError): string =>
  `${Array.isArray(error.path) && error.path.length ? `${error.path.join('.')}: ` : ''}${typeof error.message === 'string' ? error.message : JSON.stringify(error)}`;

/** Whether an answer holds data: `data` with at least one field that is not null. */
const hasData = (answer: GraphqlAnswer): boolean => Object.values(answer.value.data ?? {}).some((value) => value !== null);

/** The errors of an answer (none when it has no `errors` array). */
export const errorsOf = (answer: GraphqlAnswer): GraphqlError[] => (Array.isArray(answer.value.errors) ? answer.value.errors.filter((e) => e && typeof e === 'object') : []);

/**
 * An answer with errors and no data is a failure: the first error's message, with the exit code of its kind. An
 * answer with data (even beside errors) is none: the caller prints it and warns with the errors.
 */
export function failureOf(answer: GraphqlAnswer, api: Api): ApiError | undefined {
  const errors = errorsOf(answer);
  if (hasData(answer) || (!errors.length && answer.value.data !== undefined && answer.value.data !== null)) return undefined;
  if (!errors.length) return new ApiError('the GraphQL answer has neither data nor errors', answer.status, 'POST', pathOf(api), answer.requestId, undefined, answer.value, ExitCode.server);
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  const exitCode = exitCodeOfGraphqlError(errors[0]);
  const hint = exitCode === ExitCode.auth ? 'a change needs a token with the api scope; read_api is enough for queries' : undefined;
  return new ApiError(`${describeGraphqlError(errors[0])}${more}`, answer.status, 'POST', pathOf(api), answer.requestId, hint, answer.value, exitCode);
}

const pathOf = (api: Api): string => new URL(graphqlUrl(api.connection)).pathname;

/** The data of an answer, or its failure thrown (a command's own queries and mutations). */
export function dataOf<T>(answer: GraphqlAnswer, api: Api): T {
  const failure = failureOf(answer, api);
  if (failure) throw failure;
  return answer.value.data as T;
}

/**
 * Where the next page starts: the endCursor of the first `pageInfo` in the answer (in the order of its fields, as
 * gh reads it) that says hasNextPage; undefined on the last page.
 */
export function nextCursor(value: unknown): string | undefined {
  if (!value || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    if (key === 'pageInfo' && child && typeof child === 'object' && 'hasNextPage' in child) {
      const info = child as { hasNextPage?: unknown; endCursor?: unknown };
      return info.hasNextPage === true && typeof info.endCursor === 'string' && info.endCursor ? info.endCursor : undefined;
    }
    const found = nextCursor(child);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The answers of a query page by page: each next one asked with `endCursor` set to the cursor the last one gave,
 * until a page has no next one. A server that gives the same cursor twice ends it (exit 8) instead of looping.
 */
export async function* graphqlPages(api: Api, request: GraphqlRequest, headers?: Record<string, string>): AsyncGenerator<GraphqlAnswer> {
  let variables = request.variables ?? {};
  const seen = new Set<string>();
  for (;;) {
    const answer = await sendGraphql(api, { ...request, variables }, { mutation: false, headers });
    yield answer;
    if (failureOf(answer, api)) return;
    const cursor = nextCursor(answer.value.data);
    if (cursor === undefined) return;
    if (seen.has(cursor)) throw new CliError(`the server gave the endCursor ${cursor} a second time: stopped instead of asking for the same page again`, ExitCode.server);
    seen.add(cursor);
    variables = { ...variables, endCursor: cursor };
  }
}
