import type { ArgDef } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { SLUG } from './values.js';
import { integrations } from './resource.js';

/** Slugs are lower-case words joined by dashes (custom-issue-tracker); underscores are accepted for them. */
export function parseSlug(value: string): string {
  const slug = value.trim().toLowerCase().replace(/_/g, '-');
  if (!SLUG.test(slug)) throw new UsageError(`"${value}" is not an integration slug (for example asana, custom-issue-tracker)`);
  return slug;
}

/** The routes of a group's integrations (the commands work on groups). */
export const groupIntegrations = integrations.parents.group.routes;

/** An integration, by the name the service's routes give it. */
export const integrationArg: ArgDef = { spec: '<slug>', description: 'the integration, by its name in the service\'s API (slack, jira, bugzilla …)' };
