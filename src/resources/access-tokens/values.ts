import type { RecordOf } from '../../api/fields.js';
import { expandRoute } from '../../api/path.js';
import { accessTokens } from './resource.js';

/** Group, project and personal access tokens share one record and one set of verbs; only the routes differ. */
export type TokenKind = keyof typeof accessTokens.parents;

/**
 * An access token's fields as the service shows them (its declaration's); personal tokens have no access level, and
 * `token`, the secret, is only in the answer of a create or a rotate.
 */
export interface TokenFields extends Omit<RecordOf<typeof accessTokens>, 'access_level' | 'description'> {
  access_level?: number;
  description?: string | null;
  token?: string;
}

/** An access token record as the client reads it: the fields above, and whatever else the service adds. */
export interface TokenRecord extends TokenFields {
  [key: string]: unknown;
}

/** The path of a token route (`list`, `get`, `rotate` …) of a group or a project (`resource`: its id or path), or the personal ones. */
export function tokenPath(kind: TokenKind, resource: string, route: 'list' | 'get' | 'delete' | 'rotate', id?: number | 'self'): string {
  return expandRoute(accessTokens.parents[kind].routes[route], { [kind]: resource, token_id: id }).path;
}

/** Where the tokens of a group or a project, or the personal ones, are listed. */
export const tokenCollection = (kind: TokenKind, resource: string): string => tokenPath(kind, resource, 'list');
