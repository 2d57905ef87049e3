import { p } from './path.js';

/** Group, project and personal access tokens share one record and one set of verbs; only the paths differ. */
export type TokenKind = 'group' | 'project' | 'personal';

/** An access token's fields as the service shows them; `token`, the secret, only in the answer of a create or a rotate. */
export interface TokenFields {
  id: number;
  name: string;
  description?: string;
  scopes: string[];
  access_level?: number;
  active: boolean;
  revoked: boolean;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  user_id: number;
  token?: string;
}

/** An access token record as the client reads it: the fields above, and whatever else the service adds. */
export interface TokenRecord extends TokenFields {
  [key: string]: unknown;
}

/** Where the tokens of a group or a project (`resource`: its id or path), or the personal ones, are listed. */
export function tokenCollection(kind: TokenKind, resource: string): string {
  if (kind === 'group') return p`/groups/${resource}/access_tokens`;
  if (kind === 'project') return p`/projects/${resource}/access_tokens`;
  return '/personal_access_tokens';
}
