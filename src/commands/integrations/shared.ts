import { UsageError } from '../../errors.js';
import { SLUG } from '../../api/integrations.js';
import { p } from '../../api/path.js';

/** Slugs are lower-case words joined by dashes (custom-issue-tracker); underscores are accepted for them. */
export function parseSlug(value: string): string {
  const slug = value.trim().toLowerCase().replace(/_/g, '-');
  if (!SLUG.test(slug)) throw new UsageError(`"${value}" is not an integration slug (for example asana, custom-issue-tracker)`);
  return slug;
}

export const integrationsPath = (group: string): string => p`/groups/${group}/integrations`;
export const integrationPath = (group: string, slug: string): string => p`/groups/${group}/integrations/${slug}`;
