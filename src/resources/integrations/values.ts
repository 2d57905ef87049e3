import { closestName } from '../../parse.js';
import { UsageError } from '../../errors.js';

/** Integrations: every kind the service offers and its settings (the commands and the sandbox read them here); their routes are declared in resource.ts. */

/** Parameters that hold credentials: never taken from the command line, given as secret references in files. */
export const SECRET_PARAM = /(^|_)(token|password|api_key|secret|private_key)$/i;

/** Slugs are lower-case words joined by dashes (custom-issue-tracker). */
export const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** The event flags every integration kind has (the rest of its settings are its `properties`). */
export const INTEGRATION_EVENT_FLAGS = [
  'commit_events', 'push_events', 'issues_events', 'alert_events', 'confidential_issues_events', 'merge_requests_events', 'tag_push_events',
  'deployment_events', 'note_events', 'confidential_note_events', 'pipeline_events', 'wiki_page_events', 'job_events', 'comment_on_event_enabled', 'vulnerability_events',
] as const;

/**
 * Every integration kind the service offers, with the parameters its set-up call requires and accepts (from the
 * service's integrations API documentation). Event flags (push_events, …) are common to all kinds and handled
 * separately. Kinds whose parameters the documentation does not list accept any parameter.
 */
export interface IntegrationKind {
  title: string;
  required: string[];
  optional: string[];
  /** Write-only fields: accepted, never returned. */
  secret: string[];
  /** Offered on projects only (not through the group integrations API). */
  projectOnly?: boolean;
}

/** Fields the service treats as passwords: they are never returned. */
const SECRET = /^(token|api_key|api_token|password|user_key|webhook|google_iap_service_account_json)$|_(secret|private_key|license_key|account_key|token)$/;

const CHANNELS = 'push_channel issue_channel confidential_issue_channel merge_request_channel note_channel confidential_note_channel tag_push_channel pipeline_channel wiki_page_channel';
const CHAT = `notify_only_broken_pipelines notify_only_default_branch branches_to_be_notified labels_to_be_notified labels_to_be_notified_behavior ${CHANNELS}`;
const TRACKER = ['new_issue_url issues_url project_url', ''] as const;

/** slug → [title, required parameters, optional parameters, project only]. */
const CATALOGUE: Record<string, [string, string, string, boolean?]> = {
  'apple-app-store': ['Apple App Store Connect', 'app_store_issuer_id app_store_key_id app_store_private_key app_store_private_key_file_name', 'app_store_protected_refs', true],
  asana: ['Asana', 'api_key', 'restrict_to_branch'],
  assembla: ['Assembla', 'token', 'subdomain'],
  bamboo: ['Atlassian Bamboo', 'bamboo_url build_key username password', 'enable_ssl_verification'],
  bugzilla: ['Bugzilla', ...TRACKER],
  buildkite: ['Buildkite', 'token project_url', 'enable_ssl_verification'],
  campfire: ['Campfire Classic', 'token', 'subdomain room'],
  clickup: ['ClickUp', 'issues_url project_url', ''],
  confluence: ['Confluence Workspace', 'confluence_url', ''],
  'custom-issue-tracker': ['Custom issue tracker', ...TRACKER],
  datadog: ['Datadog', 'api_key', 'api_url datadog_env datadog_service datadog_site datadog_tags archive_trace_events'],
  'diffblue-cover': ['Diffblue Cover', 'diffblue_license_key diffblue_access_token_name diffblue_access_token_secret', ''],
  discord: ['Discord Notifications', 'webhook', `branches_to_be_notified notify_only_broken_pipelines group_mentions_channel group_confidential_mentions_channel confidential_issue_channel deployment_channel ${CHANNELS}`],
  'drone-ci': ['Drone', 'token drone_url', 'enable_ssl_verification'],
  'emails-on-push': ['Emails on push', 'recipients', 'disable_diffs send_from_committer_email branches_to_be_notified'],
  ewm: ['EWM', ...TRACKER],
  'external-wiki': ['External wiki', 'external_wiki_url', ''],
  'git-guardian': ['GitGuardian', 'token', ''],
  github: ['GitHub', 'token repository_url', 'static_context'],
  'gitlab-slack-application': ['GitLab for Slack app', '', `channel ${CHAT} alert_channel deployment_channel incident_channel vulnerability_channel`],
  'google-cloud-platform-artifact-registry': ['Google Artifact Management', 'artifact_registry_project_id artifact_registry_location artifact_registry_repositories', ''],
  'google-cloud-platform-workload-identity-federation': ['Google Cloud IAM', 'workload_identity_federation_project_id workload_identity_federation_project_number workload_identity_pool_id workload_identity_pool_provider_id', ''],
  'google-play': ['Google Play', 'package_name service_account_key service_account_key_file_name', 'google_play_protected_refs', true],
  'hangouts-chat': ['Google Chat', 'webhook', CHAT],
  harbor: ['Harbor', 'url project_name username password', ''],
  irker: ['irker (IRC gateway)', 'recipients', 'default_irc_uri server_host server_port colorize_messages'],
  jenkins: ['Jenkins', 'jenkins_url project_name', 'username password enable_ssl_verification', true],
  jira: ['Jira', 'url password', 'api_url username jira_auth_type jira_issue_prefix jira_issue_regex jira_issue_transition_automatic jira_issue_transition_id issues_enabled project_keys'],
  'jira-cloud-app': ['GitLab for Jira Cloud app', '', 'jira_cloud_app_service_ids jira_cloud_app_enable_deployment_gating jira_cloud_app_deployment_gating_environments'],
  matrix: ['Matrix notifications', 'token room', `hostname ${CHAT}`],
  mattermost: ['Mattermost notifications', 'webhook', `username channel ${CHAT}`],
  'mattermost-slash-commands': ['Mattermost slash commands', 'token', ''],
  'microsoft-teams': ['Microsoft Teams notifications', 'webhook', CHAT],
  'mock-ci': ['Mock CI', 'mock_service_url', 'enable_ssl_verification'],
  packagist: ['Packagist', 'username token', 'server'],
  phorge: ['Phorge', 'issues_url project_url', ''],
  'pipelines-email': ['Pipeline status emails', 'recipients', 'notify_only_broken_pipelines notify_only_default_branch branches_to_be_notified'],
  pivotaltracker: ['Pivotal Tracker', 'token', 'restrict_to_branch'],
  prometheus: ['Prometheus', '', 'api_url google_iap_audience_client_id google_iap_service_account_json manual_configuration', true],
  pumble: ['Pumble', 'webhook', 'branches_to_be_notified notify_only_broken_pipelines'],
  pushover: ['Pushover', 'api_key user_key priority', 'device sound'],
  redmine: ['Redmine', ...TRACKER],
  slack: ['Slack notifications', 'webhook', `username channel ${CHAT} alert_channel deployment_channel incident_channel`],
  'slack-slash-commands': ['Slack slash commands', 'token', ''],
  'squash-tm': ['Squash TM', 'url', 'token'],
  teamcity: ['JetBrains TeamCity', 'teamcity_url build_type username password', 'enable_ssl_verification'],
  telegram: ['Telegram', 'token room', `hostname thread ${CHAT}`],
  'unify-circuit': ['Unify Circuit', 'webhook', CHAT],
  'webex-teams': ['Webex Teams', 'webhook', CHAT],
  youtrack: ['YouTrack', 'issues_url project_url', ''],
  zentao: ['ZenTao', 'url api_token zentao_product_xid', 'api_url', true],
};

const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);

export const INTEGRATION_KINDS: Record<string, IntegrationKind> = Object.fromEntries(
  Object.entries(CATALOGUE).map(([slug, [title, required, optional, projectOnly]]) => {
    const fields = [...words(required), ...words(optional)];
    return [slug, { title, required: words(required), optional: words(optional), secret: fields.filter((f) => SECRET.test(f)), ...(projectOnly ? { projectOnly } : {}) }];
  }),
);

/** Parameters sent as booleans (the rest are text). */
export const BOOLEAN_PROPERTIES = new Set([
  'enable_ssl_verification', 'notify_only_broken_pipelines', 'notify_only_default_branch', 'disable_diffs', 'send_from_committer_email',
  'colorize_messages', 'static_context', 'archive_trace_events', 'jira_issue_transition_automatic', 'issues_enabled',
  'jira_cloud_app_enable_deployment_gating', 'manual_configuration',
]);

/**
 * Refuses a setting the kind does not take, before anything is sent (the service drops unknown parameters without a
 * word, so a typo would leave the setting unchanged). Kinds not in the catalogue (newer than it) are left to the service.
 */
export function checkIntegrationParam(slug: string, name: string): void {
  const kind = INTEGRATION_KINDS[slug];
  if (!kind) return;
  const known = [...kind.required, ...kind.optional, ...INTEGRATION_EVENT_FLAGS];
  if (known.includes(name)) return;
  const guess = closestName(name, known);
  throw new UsageError(`${slug} has no setting ${name}`, guess ? `did you mean ${guess}?` : `its settings: ${[...kind.required, ...kind.optional].join(', ') || 'none but the event flags'}`);
}

/** Whether a setting holds a credential: by its name, or because the service keeps it write-only (pushover's user_key). */
export const isSecretSetting = (slug: string, name: string): boolean => SECRET_PARAM.test(name) || (INTEGRATION_KINDS[slug]?.secret.includes(name) ?? false);
