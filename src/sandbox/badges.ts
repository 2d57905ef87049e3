import { isHttpUrl } from '../api/fields.js';
import { errors } from './http.js';

/** Badges of projects and of groups (one table, model/namespaces.ts) share how their URLs are checked. */

/** URLs are validated as written; placeholders are fine in the path and query but not as the host. */
export function validateBadgeUrls(fields: { link_url?: string; image_url?: string }): void {
  const problems: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined && !isHttpUrl(value)) problems[key] = ['is blocked: URI is invalid'];
  if (Object.keys(problems).length) throw errors.validation(problems);
}
