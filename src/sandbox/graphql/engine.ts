import { buildSchema, defaultFieldResolver, execute, getOperationAST, GraphQLError, GraphQLScalarType, Kind, parse, validate, type DocumentNode, type ExecutionResult, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { globalId, idOfGlobalId, type GlobalModel } from '../../api/global-id.js';
import type { SandboxRequest } from '../http.js';
import { root } from './resolvers.js';
import { SCHEMA } from './schema.js';

/**
 * The sandbox's GraphQL engine: the reference implementation (graphql-js) over the schema and resolvers beside
 * this file. Loaded only when a request reaches /api/graphql, so that starting the sandbox does not pay for it.
 */

/** One operation of a request, as the service reads it from a body or the query string. */
export interface Operation {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

/** The service refuses longer query texts (its MAX_QUERY_SIZE), before parsing them. */
export const MAX_QUERY_SIZE = 10_000;

/** A refusal of the whole request, before any operation runs: answered with this status and `{"errors":[{message}]}`. */
export class RequestRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let schema: GraphQLSchema | undefined;

/**
 * A field of an object read as graphql-js reads it, or, when the object has no such field, under its REST name
 * (webUrl: web_url): the resolvers build their nodes from the REST records.
 */
const fieldResolver: GraphQLFieldResolver<unknown, unknown> = (source, args, context, info) => {
  if (typeof source === 'object' && source !== null && !(info.fieldName in source)) {
    return (source as Record<string, unknown>)[info.fieldName.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
  }
  return defaultFieldResolver(source, args, context, info);
};

/** A global ID scalar of one model, checked as the service checks it: a number in, its global ID out. */
function globalIdScalar(type: GraphQLScalarType, model: GlobalModel): void {
  const parseId = (value: unknown): number => {
    const text = String(value);
    if (typeof value !== 'string' || !/^gid:\/\/[^/]+\/[^/]+\/[^/]+$/.test(value)) throw new GraphQLError(`${JSON.stringify(text)} is not a valid Global ID`);
    const id = idOfGlobalId(model, value);
    if (id === undefined) throw new GraphQLError(`${JSON.stringify(value)} does not represent an instance of ${model}`);
    return id;
  };
  type.serialize = (value) => (typeof value === 'number' ? globalId(model, value) : value);
  type.parseValue = parseId;
  type.parseLiteral = (node) => parseId(node.kind === Kind.STRING ? node.value : undefined);
}

function sandboxSchema(): GraphQLSchema {
  if (schema) return schema;
  const built = buildSchema(SCHEMA);
  globalIdScalar(built.getType('CiRunnerID') as GraphQLScalarType, 'Ci::Runner');
  globalIdScalar(built.getType('UserID') as GraphQLScalarType, 'User');
  // Times as the service writes them: ISO 8601 in UTC, to the second.
  (built.getType('Time') as GraphQLScalarType).serialize = (value) => (typeof value === 'string' ? new Date(value).toISOString().replace(/\.\d{3}Z$/, 'Z') : value);
  schema = built;
  return schema;
}

/** The operation's variables as the service reads them: an object, JSON text of one, or nothing (422 otherwise). */
function variablesOf(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      throw new RequestRefused(422, (error as Error).message);
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new RequestRefused(422, `Unexpected parameter: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return parsed as Record<string, unknown>;
}

/** The parsed document, or the parse error as the answer's only error. */
function parsed(source: string): DocumentNode | GraphQLError {
  try {
    return parse(source);
  } catch (error) {
    if (error instanceof GraphQLError) return error;
    throw error;
  }
}

/**
 * Runs one operation for the request's user. Over GET only queries run (the service refuses mutations there, 422);
 * a query text over MAX_QUERY_SIZE is refused (422) before it is parsed.
 */
export async function runOperation(req: SandboxRequest, operation: Operation): Promise<ExecutionResult> {
  const source = typeof operation.query === 'string' ? operation.query : '';
  if (source.length > MAX_QUERY_SIZE) throw new RequestRefused(422, 'Query too large');
  const variableValues = variablesOf(operation.variables);
  const operationName = typeof operation.operationName === 'string' ? operation.operationName : undefined;
  const document = parsed(source);
  if (document instanceof GraphQLError) return { errors: [document] };
  const selected = getOperationAST(document, operationName);
  if ((req.method === 'GET' || req.method === 'HEAD') && selected?.operation === 'mutation') throw new RequestRefused(422, `Mutations are forbidden in ${req.method} requests`);
  const problems = validate(sandboxSchema(), document);
  if (problems.length) return { errors: problems };
  return execute({ schema: sandboxSchema(), document, rootValue: root, contextValue: { req }, variableValues, operationName, fieldResolver });
}
