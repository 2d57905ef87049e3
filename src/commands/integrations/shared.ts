import { UsageError } from '../../errors.js';
import { SLUG } from '../../api/integrations.js';
import { integrations } from '../../api/resources/integrations.js';

/** Slugs are lower-case words joined by dashes (custom-issue-tracker); underscores are accepted for them. */
export function parseSlug(value: string): string {
  const slug = value.trim().toLowerCase().replace(/_/g, '-');
  if (!SLUG.test(slug)) throw new UsageError(`"${value}" is not an integration slug (for example asana, custom-issue-tracker)`);
  return slug;
}

/** The routes of a group's integrations (the commands work on groups). */
export const groupIntegrations = integrations.parents.group.routes;
