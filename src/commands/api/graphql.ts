import { instanceName, type Context } from '../../cli/command.js';
import type { Json } from '../../json-fields.js';
import { checkPaginated, describeGraphqlError, errorsOf, failureOf, graphqlPages, isMutation, operationFields, parseGraphql, sendGraphql, type GraphqlAnswer, type GraphqlRequest } from '../../api/graphql.js';
import { withoutSecretValues } from '../../resources/variables/resource.js';
import { ExitCode, UsageError } from '../../errors.js';
import { readLocalFile } from '../../files.js';
import { ResultWithExit } from '../../output/result.js';
import { plural } from '../../parse.js';
import { jsonAnswer, parseHeaders, printHead, type ApiOptions } from './shared.js';

/**
 * `api graphql`: the fields are the request as gh builds it (`query` and `operationName` as they are, every other
 * field a variable), or --input a whole JSON body. The answer is printed as it came; with errors beside data it is
 * printed and the errors are warned about (exit 9); errors without data fail with the exit code of their kind.
 */
export async function runGraphql(opts: ApiOptions, fields: Record<string, Json>, show: boolean, ctx: Context): Promise<unknown> {
  if (opts.method !== undefined && opts.method.toUpperCase() !== 'POST') throw new UsageError(`api graphql sends POST; -X ${opts.method} is for REST paths`);
  const request = opts.input ? await requestFromInput(opts.input, ctx) : requestFromFields(fields);
  const document = parseGraphql(request.query, request.operationName);
  const mutation = isMutation(document);
  const headers = parseHeaders(opts.header);
  if (opts.paginate) {
    if (mutation) throw new UsageError('--paginate goes with a query, not a mutation');
    checkPaginated(document);
    return paginated(ctx, graphqlPages(ctx.api, request, headers), show);
  }
  // A mutation changes or deletes (bulkRunnerDelete): asked for as a DELETE is, naming what it runs.
  if (mutation) await ctx.confirm(`Send the GraphQL ${document.operation.operation} ${operationFields(document).join(', ')} to ${instanceName(ctx)}?`);
  const answer = await sendGraphql(ctx.api, request, { mutation, headers });
  if (opts.include) await printHead(ctx, answer.status, answer.headers);
  const failure = failureOf(answer, ctx.api);
  if (failure) throw failure;
  const printed = jsonAnswer(answer.value, answer.text, show);
  const errors = warnErrors(answer, ctx);
  return errors ? new ResultWithExit(printed, ExitCode.attention, attention(errors)) : printed;
}

function requestFromFields(fields: Record<string, Json>): GraphqlRequest {
  const { query, operationName, ...variables } = fields;
  if (query === undefined) throw new UsageError('api graphql needs a query', "give it as -f query='{ currentUser { username } }', or from a file: -F query=@FILE");
  if (typeof query !== 'string') throw new UsageError('the query is text: -f query=TEXT or -F query=@FILE');
  if (operationName !== undefined && typeof operationName !== 'string') throw new UsageError('operationName is the name of an operation of the query');
  return { query, operationName, variables: Object.keys(variables).length ? variables : undefined };
}

/** --input FILE (or - for stdin): the whole request body, `{"query": …, "variables": {…}, "operationName": …}`. */
async function requestFromInput(input: string, ctx: Context): Promise<GraphqlRequest> {
  const text = input === '-' ? await ctx.io.readStdin() : readLocalFile(input, 'utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--input ${input} is not JSON: ${(error as Error).message}`);
  }
  const { query, variables, operationName } = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  if (typeof query !== 'string') throw new UsageError(`--input ${input} has no "query" text`, 'the body of a GraphQL request: {"query": "…", "variables": {…}}');
  if (variables !== undefined && (variables === null || typeof variables !== 'object' || Array.isArray(variables))) throw new UsageError(`--input ${input}: "variables" is an object`);
  if (operationName !== undefined && typeof operationName !== 'string') throw new UsageError(`--input ${input}: "operationName" is text`);
  return { query, variables: variables as Record<string, unknown> | undefined, operationName };
}

/** The pages of --paginate as records, as they arrive; errors beside data are warned about and end the run with 9. */
function paginated(ctx: Context, answers: AsyncGenerator<GraphqlAnswer>, show: boolean): ResultWithExit {
  let errors = 0;
  async function* pages(): AsyncGenerator<Record<string, unknown>> {
    for await (const answer of answers) {
      const failure = failureOf(answer, ctx.api);
      if (failure) throw failure;
      errors += warnErrors(answer, ctx);
      if (errors) {
        result.exitCode = ExitCode.attention;
        result.message = attention(errors);
      }
      yield show ? answer.value : withoutSecretValues(answer.value);
    }
  }
  const result = new ResultWithExit(pages(), ExitCode.ok);
  return result;
}

/** Each error of an answer that has data, on stderr; how many there were. */
function warnErrors(answer: GraphqlAnswer, ctx: Context): number {
  const errors = errorsOf(answer);
  for (const error of errors) ctx.io.warn(`GraphQL error: ${describeGraphqlError(error)}`);
  return errors.length;
}

const attention = (errors: number): string => `attention: the answer came with ${plural(errors, 'GraphQL error')} beside its data (above)`;
