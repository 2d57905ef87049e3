import { f, type RecordOf } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/**
 * The event kinds a project webhook subscribes to: the name on the command line (`--events push,merge_requests`)
 * and in the payload's X-Gitlab-Event header, by flag field.
 */
export const HOOK_EVENTS = {
  push_events: { name: 'push', header: 'Push Hook', trigger: 'push_hooks' },
  tag_push_events: { name: 'tag_push', header: 'Tag Push Hook', trigger: 'tag_push_hooks' },
  issues_events: { name: 'issues', header: 'Issue Hook', trigger: 'issue_hooks' },
  confidential_issues_events: { name: 'confidential_issues', header: 'Confidential Issue Hook', trigger: 'confidential_issue_hooks' },
  merge_requests_events: { name: 'merge_requests', header: 'Merge Request Hook', trigger: 'merge_request_hooks' },
  note_events: { name: 'note', header: 'Note Hook', trigger: 'note_hooks' },
  confidential_note_events: { name: 'confidential_note', header: 'Confidential Note Hook', trigger: 'confidential_note_hooks' },
  job_events: { name: 'job', header: 'Job Hook', trigger: 'job_hooks' },
  pipeline_events: { name: 'pipeline', header: 'Pipeline Hook', trigger: 'pipeline_hooks' },
  wiki_page_events: { name: 'wiki_page', header: 'Wiki Page Hook', trigger: 'wiki_page_hooks' },
  deployment_events: { name: 'deployment', header: 'Deployment Hook', trigger: 'deployment_hooks' },
  releases_events: { name: 'releases', header: 'Release Hook', trigger: 'release_hooks' },
  feature_flag_events: { name: 'feature_flag', header: 'Feature Flag Hook', trigger: 'feature_flag_hooks' },
  resource_access_token_events: { name: 'resource_access_token', header: 'Resource Access Token Hook', trigger: 'resource_access_token_hooks' },
  emoji_events: { name: 'emoji', header: 'Emoji Hook', trigger: 'emoji_hooks' },
  milestone_events: { name: 'milestone', header: 'Milestone Hook', trigger: 'milestone_hooks' },
  vulnerability_events: { name: 'vulnerability', header: 'Vulnerability Hook', trigger: 'vulnerability_hooks' },
} as const;

export type HookEventFlag = keyof typeof HOOK_EVENTS;
export const HOOK_EVENT_FLAGS = Object.keys(HOOK_EVENTS) as HookEventFlag[];

/** Why a hook is not delivering (alert_status). */
export const ALERT_STATUSES = ['executable', 'temporarily_disabled', 'disabled'] as const;

const event = (what: string, on = false) => f.bool({ default: on, help: `deliver ${what}` });

/** Webhooks of a project: an HTTP POST to `url` for each event kind the hook subscribes to. */
export const hooks = defineResource({
  noun: 'webhook',
  command: 'hooks',
  parent: 'project',
  id: { param: 'hook_id', field: 'id' },
  routes: {
    list: 'GET /projects/{project}/hooks',
    get: 'GET /projects/{project}/hooks/{hook_id}',
    create: 'POST /projects/{project}/hooks',
    update: 'PUT /projects/{project}/hooks/{hook_id}',
    delete: 'DELETE /projects/{project}/hooks/{hook_id}',
    test: 'POST /projects/{project}/hooks/{hook_id}/test/{trigger}',
    events: 'GET /projects/{project}/hooks/{hook_id}/events',
    resend: 'POST /projects/{project}/hooks/{hook_id}/events/{hook_event_id}/resend',
    setUrlVariable: 'PUT /projects/{project}/hooks/{hook_id}/url_variables/{key}',
    deleteUrlVariable: 'DELETE /projects/{project}/hooks/{hook_id}/url_variables/{key}',
    setCustomHeader: 'PUT /projects/{project}/hooks/{hook_id}/custom_headers/{key}',
    deleteCustomHeader: 'DELETE /projects/{project}/hooks/{hook_id}/custom_headers/{key}',
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    url: f.url({ create: 'required', help: 'where deliveries are POSTed; {name} parts are filled from URL variables' }),
    name: f.string({ help: 'a name for the hook', placeholder: '<name>' }),
    description: f.string({ help: 'what the hook is for', placeholder: '<text>' }),
    project_id: f.int({ readOnly: true }),
    push_events: event('pushes to branches', true),
    push_events_branch_filter: f.string({ help: 'only pushes to branches matching this (see --branch-filter-strategy)', placeholder: '<filter>' }),
    branch_filter_strategy: f.enum(['wildcard', 'regex', 'all_branches'], { default: 'wildcard', help: 'how the branch filter matches' }),
    issues_events: event('issue events'),
    confidential_issues_events: event('confidential issue events'),
    merge_requests_events: event('merge request events'),
    tag_push_events: event('tag pushes'),
    note_events: event('comments'),
    confidential_note_events: event('internal comments'),
    job_events: event('job status changes'),
    pipeline_events: event('pipeline status changes'),
    wiki_page_events: event('wiki page changes'),
    deployment_events: event('deployments'),
    releases_events: event('releases'),
    feature_flag_events: event('feature flag changes'),
    enable_ssl_verification: f.bool({ default: true, help: "verify the receiver's TLS certificate" }),
    repository_update_events: f.bool({ readOnly: true, default: false }),
    resource_access_token_events: event('access token expiry warnings'),
    emoji_events: event('emoji reactions'),
    milestone_events: event('milestone changes'),
    vulnerability_events: event('vulnerability changes'),
    alert_status: f.enum(ALERT_STATUSES, { readOnly: true }),
    disabled_until: f.time({ readOnly: true }),
    url_variables: f.object<Array<{ key: string }>>({ readOnly: false, help: 'URL variables ({key}; values are write-only)' }),
    created_at: f.time({ readOnly: true }),
    custom_webhook_template: f.string({ help: 'a payload template instead of the event JSON', placeholder: '<template>' }),
    custom_headers: f.object<Array<{ key: string }>>({ readOnly: false, help: 'extra request headers ({key}; values are write-only)' }),
    token: f.secret({ writeOnly: true, help: 'the secret sent as X-Gitlab-Token (never returned)' }),
  },
  columns: ['id', 'url', 'events', 'status'],
  computed: ['events', 'status'],
  identity: ['url'],
  roles: { read: 'maintainer', write: 'maintainer' },
});

/** A webhook as the service presents it (its token never). */
export type Hook = RecordOf<typeof hooks>;

/** A delivery as the service records it and the events endpoint presents it, newest first. */
export const hookEvents = {
  fields: {
    id: f.int({ readOnly: true }),
    url: f.string({ readOnly: true }),
    trigger: f.string({ readOnly: true }),
    request_headers: f.object<Record<string, string>>(),
    request_data: f.object(),
    response_headers: f.object<Record<string, string>>(),
    response_body: f.string({ readOnly: true }),
    /** Seconds, with a fraction. */
    execution_duration: f.int({ readOnly: true }),
    /** The receiver's HTTP status, or "internal error" when no answer came. */
    response_status: f.string({ readOnly: true }),
    created_at: f.time({ readOnly: true }),
  },
};

export type HookEvent = RecordOf<typeof hookEvents>;
