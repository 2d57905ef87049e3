import { isHttpUrl } from '../api/fields.js';
import { errors, ok, required, type SandboxRequest, type SandboxResponse } from './http.js';

/** Badges of projects and of groups (one table, model/namespaces.ts) share how their URLs are checked. */

/** URLs are validated as written; placeholders are fine in the path and query but not as the host. */
export function validateBadgeUrls(fields: { link_url?: string; image_url?: string }): void {
  const problems: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined && !isHttpUrl(value)) problems[key] = ['is blocked: URI is invalid'];
  if (Object.keys(problems).length) throw errors.validation(problems);
}

/**
 * A badge's URLs rendered with a project's placeholder values; a placeholder without a value stays as written (own
 * values only: `%{constructor}` is not the object's).
 */
export function renderedBadgeUrls(link: string, image: string, values: Record<string, string>): { rendered_link_url: string; rendered_image_url: string } {
  const render = (url: string): string => url.replace(/%\{([a-z_]+)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? values[name] : whole));
  return { rendered_link_url: render(link), rendered_image_url: render(image) };
}

/** `GET …/badges/render`: the URLs given, checked as a badge's are, and rendered with the placeholder values. */
export function renderBadge(req: SandboxRequest, values: Record<string, string>): SandboxResponse {
  const link = String(required(req, 'link_url'));
  const image = String(required(req, 'image_url'));
  validateBadgeUrls({ link_url: link, image_url: image });
  return ok({ link_url: link, image_url: image, ...renderedBadgeUrls(link, image, values) });
}
