/** Integrations (spec document 1): what their settings look like; their routes are declared in resources/integrations.ts. */

/** Parameters that hold credentials: never taken from the command line, given as secret references in files. */
export const SECRET_PARAM = /(^|_)(token|password|api_key|secret|private_key)$/i;

/** Slugs are lower-case words joined by dashes (custom-issue-tracker). */
export const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** The event flags every integration kind has (the rest of its settings are its `properties`). */
export const INTEGRATION_EVENT_FLAGS = [
  'commit_events', 'push_events', 'issues_events', 'alert_events', 'confidential_issues_events', 'merge_requests_events', 'tag_push_events',
  'deployment_events', 'note_events', 'confidential_note_events', 'pipeline_events', 'wiki_page_events', 'job_events', 'comment_on_event_enabled', 'vulnerability_events',
] as const;
