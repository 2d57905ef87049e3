/**
 * The application settings record, field by field, as spec document 3 types it. One table serves both sides: the
 * `settings set` command parses `key=value` with it, and the sandbox validates `PUT /application/settings` with it.
 */

/** The application settings record: read, and changed key by key. */
export const SETTINGS_ROUTES = { get: 'GET /application/settings', update: 'PUT /application/settings' } as const;

export type SettingType = 'integer' | 'number' | 'boolean' | 'string' | 'array' | 'object';

export interface SettingField {
  type: SettingType;
  /** The value on a fresh instance (the sandbox's record). */
  default: unknown;
  /** An integer or number that may also be null. Strings are always nullable ("string or null"). */
  nullable?: boolean;
  min?: number;
  max?: number;
  /** Allowed values (of a string, an integer, or each item of an array). */
  choices?: readonly (string | number)[];
  /** Shown, never accepted (id, timestamps). */
  readOnly?: boolean;
  /** Still accepted; the name of the setting that replaces it. */
  deprecatedBy?: string;
  /** Only on Premium and Ultimate. */
  premium?: boolean;
  /** A credential: masked in output unless asked for by name, read from a file or stdin, never from argv. */
  secret?: boolean;
  /** Shape check of an object value; returns what is wrong, or undefined. */
  shape?: (value: Record<string, unknown>) => string | undefined;
}

const integer = (value: number | null, extra: Partial<SettingField> = {}): SettingField => ({ type: 'integer', default: value, min: 0, ...extra });
const number = (value: number, extra: Partial<SettingField> = {}): SettingField => ({ type: 'number', default: value, min: 0, ...extra });
const boolean = (value: boolean, extra: Partial<SettingField> = {}): SettingField => ({ type: 'boolean', default: value, ...extra });
const string = (value: string | null, extra: Partial<SettingField> = {}): SettingField => ({ type: 'string', default: value, ...extra });
const array = (value: string[] = [], extra: Partial<SettingField> = {}): SettingField => ({ type: 'array', default: value, ...extra });
const object = (value: Record<string, unknown>, extra: Partial<SettingField> = {}): SettingField => ({ type: 'object', default: value, ...extra });

/** A rate limit's three settings: `<name>_enabled`, `<name>_requests_per_period`, `<name>_period_in_seconds`. */
const throttle = (name: string, requests: number): Record<string, SettingField> => ({
  [`${name}_enabled`]: boolean(false),
  [`${name}_requests_per_period`]: integer(requests, { min: 1 }),
  [`${name}_period_in_seconds`]: integer(3600, { min: 1 }),
});

const VISIBILITY = ['private', 'internal', 'public'] as const;
/** SSH key restrictions: 0 allows every key, -1 forbids the type, otherwise the minimum length in bits. */
const keyRestriction = () => integer(0, { min: -1 });

function accessLevelList(value: unknown, name: string): string | undefined {
  if (!Array.isArray(value)) return `${name} must be an array of {"access_level": N}`;
  const bad = value.find((item) => !item || typeof item !== 'object' || !Number.isInteger((item as { access_level?: unknown }).access_level));
  return bad === undefined ? undefined : `${name} items must be {"access_level": N}`;
}

function branchProtectionShape(value: Record<string, unknown>): string | undefined {
  const known = ['allowed_to_push', 'allow_force_push', 'allowed_to_merge', 'developer_can_initial_push'];
  const unknown = Object.keys(value).filter((k) => !known.includes(k));
  if (unknown.length) return `unknown keys ${unknown.join(', ')} (known: ${known.join(', ')})`;
  for (const key of ['allowed_to_push', 'allowed_to_merge']) {
    if (value[key] !== undefined) {
      const problem = accessLevelList(value[key], key);
      if (problem) return problem;
    }
  }
  for (const key of ['allow_force_push', 'developer_can_initial_push']) {
    if (value[key] !== undefined && typeof value[key] !== 'boolean') return `${key} must be true or false`;
  }
  return undefined;
}

function storageWeightsShape(value: Record<string, unknown>): string | undefined {
  const bad = Object.entries(value).find(([, weight]) => !Number.isInteger(weight) || (weight as number) < 0 || (weight as number) > 100);
  return bad ? `the weight of storage "${bad[0]}" must be a whole number from 0 to 100` : undefined;
}

export const SETTINGS: Record<string, SettingField> = {
  // integer
  id: integer(1, { readOnly: true }),
  default_projects_limit: integer(100000),
  default_branch_protection: integer(2, { choices: [0, 1, 2, 3, 4], deprecatedBy: 'default_branch_protection_defaults' }),
  deletion_adjourned_period: integer(7, { min: 1, max: 90 }),
  failed_login_attempts_unlock_period_in_minutes: integer(null, { nullable: true, min: 1 }),
  max_attachment_size: integer(100, { min: 1 }),
  max_decompressed_archive_size: integer(25600),
  max_export_size: integer(0),
  max_import_size: integer(0),
  max_import_remote_file_size: integer(10240),
  max_login_attempts: integer(null, { nullable: true, min: 1 }),
  session_expire_delay: integer(10080, { min: 1 }),
  container_registry_cleanup_tags_service_max_list_size: integer(200),
  container_registry_delete_tags_service_timeout: integer(250),
  container_registry_expiration_policies_worker_capacity: integer(4),
  container_registry_token_expire_delay: integer(5, { min: 1 }),
  decompress_archive_file_timeout: integer(210),
  package_registry_cleanup_policies_worker_capacity: integer(2),
  terminal_max_session_time: integer(0),
  first_day_of_week: integer(0, { choices: [0, 1, 6] }),
  performance_bar_allowed_group_id: integer(null, { nullable: true, min: 1 }),
  snippet_size_limit: integer(52428800, { min: 1 }),
  issues_create_limit: integer(300),
  raw_blob_request_limit: integer(300),
  wiki_page_max_content_bytes: integer(52428800, { min: 1024 }),
  rsa_key_restriction: keyRestriction(),
  dsa_key_restriction: keyRestriction(),
  ecdsa_key_restriction: keyRestriction(),
  ed25519_key_restriction: keyRestriction(),
  ecdsa_sk_key_restriction: keyRestriction(),
  ed25519_sk_key_restriction: keyRestriction(),
  local_markdown_version: integer(0),
  external_pipeline_validation_service_timeout: integer(null, { nullable: true, min: 1 }),
  bulk_import_max_download_file_size: integer(5120),
  project_jobs_api_rate_limit: integer(600),
  bulk_import_concurrent_pipeline_batch_limit: integer(25),
  concurrent_relation_batch_export_limit: integer(8),
  concurrent_github_import_jobs_limit: integer(1000),
  concurrent_bitbucket_import_jobs_limit: integer(100),
  concurrent_bitbucket_server_import_jobs_limit: integer(100),
  downstream_pipeline_trigger_limit_per_project_user_sha: integer(0),
  projects_api_rate_limit_unauthenticated: integer(400),
  users_api_limit_followers: integer(100),
  users_api_limit_following: integer(100),
  users_api_limit_status: integer(240),
  users_api_limit_ssh_keys: integer(120),
  users_api_limit_ssh_key: integer(120),
  users_api_limit_gpg_keys: integer(120),
  users_api_limit_gpg_key: integer(120),
  // number
  polling_interval_multiplier: number(1),
  external_authorization_service_timeout: number(0.5, { min: 0.001, max: 10 }),
  // boolean
  signup_enabled: boolean(true),
  password_authentication_enabled_for_web: boolean(true),
  user_oauth_applications: boolean(true),
  domain_denylist_enabled: boolean(false),
  avatar_service_enabled: boolean(true),
  container_expiration_policies_enable_historic_entries: boolean(false),
  container_registry_expiration_policies_caching: boolean(true),
  plantuml_enabled: boolean(false),
  kroki_enabled: boolean(false),
  diagramsnet_enabled: boolean(true),
  enforce_terms: boolean(false),
  user_show_add_ssh_key_message: boolean(true),
  allow_account_deletion: boolean(true),
  updating_name_disabled_for_users: boolean(false),
  allow_local_requests_from_hooks_and_services: boolean(false, { deprecatedBy: 'allow_local_requests_from_web_hooks_and_services' }),
  allow_local_requests_from_web_hooks_and_services: boolean(false),
  allow_local_requests_from_system_hooks: boolean(true),
  asset_proxy_enabled: boolean(false),
  maven_package_requests_forwarding: boolean(true),
  npm_package_requests_forwarding: boolean(true),
  pypi_package_requests_forwarding: boolean(true),
  require_admin_approval_after_user_signup: boolean(true),
  require_personal_access_token_expiry: boolean(true),
  keep_latest_artifact: boolean(true),
  admin_mode: boolean(false),
  floc_enabled: boolean(false),
  silent_mode_enabled: boolean(false),
  package_registry_allow_anyone_to_pull_option: boolean(true),
  silent_admin_exports_enabled: boolean(false),
  top_level_group_creation_enabled: boolean(true),
  disable_invite_members: boolean(false),
  can_create_group: boolean(true),
  user_defaults_to_private_profile: boolean(false),
  external_authorization_service_enabled: boolean(false),
  tracker_connect_public_key_storage_enabled: boolean(false),
  allow_project_creation_for_guest_and_below: boolean(true),
  receptive_cluster_agents_enabled: boolean(false),
  // string or null
  created_at: string(null, { readOnly: true }),
  updated_at: string(null, { readOnly: true }),
  default_preferred_language: string('en'),
  default_project_visibility: string('private', { choices: VISIBILITY }),
  default_group_visibility: string('private', { choices: VISIBILITY }),
  default_snippet_visibility: string('private', { choices: VISIBILITY }),
  default_ci_config_path: string(null),
  home_page_url: string(null),
  after_sign_out_path: string(null),
  terms: string(''),
  asset_proxy_url: string(null),
  personal_access_token_prefix: string('glpat-'),
  rate_limiting_response_text: string(null),
  security_txt_content: string(null),
  external_pipeline_validation_service_url: string(null),
  external_pipeline_validation_service_token: string(null, { secret: true }),
  external_authorization_service_url: string(null),
  external_authorization_service_default_label: string(null),
  globally_allowed_ips: string(''),
  plantuml_url: string(null),
  kroki_url: string(null),
  diagramsnet_url: string('https://embed.diagrams.net'),
  tracker_connect_application_key: string(null),
  tracker_connect_proxy_url: string(null),
  tracker_connect_additional_audience_url: string(null),
  // array
  restricted_visibility_levels: array([], { choices: VISIBILITY }),
  domain_allowlist: array(),
  domain_denylist: array(),
  outbound_local_requests_whitelist: array(),
  asset_proxy_allowlist: array(),
  asset_proxy_whitelist: array([], { deprecatedBy: 'asset_proxy_allowlist' }),
  // object
  default_branch_protection_defaults: object(
    { allowed_to_push: [{ access_level: 40 }], allow_force_push: false, allowed_to_merge: [{ access_level: 40 }], developer_can_initial_push: false },
    { shape: branchProtectionShape },
  ),
  sign_in_restrictions: object({}),
  repository_storages_weighted: object({ default: 100 }, { shape: storageWeightsShape }),
  // User and IP rate limits (requests per period, per user or per IP address; each off until enabled)
  ...throttle('throttle_authenticated_api', 7200),
  ...throttle('throttle_unauthenticated_api', 3600),
  ...throttle('throttle_authenticated_web', 7200),
  ...throttle('throttle_unauthenticated_web', 3600),
  // Premium and Ultimate
  allow_all_integrations: boolean(true, { premium: true }),
  allowed_integrations: array([], { premium: true }),
  group_owners_can_manage_default_branch_protection: boolean(true, { premium: true }),
  file_template_project_id: integer(null, { nullable: true, min: 1, premium: true }),
  geo_node_allowed_ips: string('0.0.0.0/0, ::/0', { premium: true }),
  geo_status_timeout: integer(10, { min: 1, premium: true }),
  default_project_deletion_protection: boolean(false, { premium: true }),
  disable_personal_access_tokens: boolean(false, { premium: true }),
  security_policy_global_group_approvers_enabled: boolean(true, { premium: true }),
  security_approval_policies_limit: integer(5, { min: 1, max: 20, premium: true }),
  scan_execution_policies_action_limit: integer(0, { max: 20, premium: true }),
  scan_execution_policies_schedule_limit: integer(0, { max: 20, premium: true }),
  delete_unconfirmed_users: boolean(false, { premium: true }),
  unconfirmed_users_delete_after_days: integer(7, { min: 1, premium: true }),
  duo_features_enabled: boolean(true, { premium: true }),
  lock_duo_features_enabled: boolean(false, { premium: true }),
  use_clickhouse_for_analytics: boolean(false, { premium: true }),
  secret_push_protection_available: boolean(false, { premium: true }),
  virtual_registries_endpoints_api_limit: integer(1000, { premium: true }),
  lock_memberships_to_saml: boolean(false, { premium: true }),
};

/** Settings earlier releases removed; instances ignore them, so setting one is a mistake worth naming. */
export const REMOVED_SETTINGS = ['repository_storages', 'delayed_project_deletion', 'delayed_group_deletion', 'in_product_marketing_emails_enabled', 'user_email_lookup_limit'];

export type Coerced = { ok: true; value: unknown } | { ok: false; problem: string };

const TRUE = ['true', 't', '1', 'yes', 'y', 'on'];
const FALSE = ['false', 'f', '0', 'no', 'n', 'off'];

/**
 * Converts a value to the field's type, as the service's parameter coercion does: JSON values and form/query
 * strings alike. With `text` (command-line input) the literal `null` means null and arrays and objects may be JSON.
 */
export function coerceSetting(field: SettingField, raw: unknown, text = false): Coerced {
  const fail = (problem: string): Coerced => ({ ok: false, problem });
  const nullable = field.type === 'string' || field.nullable;
  if (raw === null || (text && raw === 'null')) return nullable ? { ok: true, value: null } : fail('cannot be null');
  switch (field.type) {
    case 'integer': {
      const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isInteger(value)) return fail('must be a whole number');
      // Beyond 2^53 a number is no longer exact: 99999999999999999999 would be stored as 1e20.
      if (!Number.isSafeInteger(value)) return fail(`is too large (at most ${Number.MAX_SAFE_INTEGER})`);
      return { ok: true, value };
    }
    case 'number': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
      return Number.isFinite(n) ? { ok: true, value: n } : fail('must be a number');
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return { ok: true, value: raw };
      const v = String(raw).trim().toLowerCase();
      if (TRUE.includes(v)) return { ok: true, value: true };
      if (FALSE.includes(v)) return { ok: true, value: false };
      return fail('must be true or false');
    }
    case 'string':
      return typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean' ? { ok: true, value: String(raw) } : fail('must be a string');
    case 'array': {
      let value: unknown = raw;
      if (typeof raw === 'string') {
        if (text && raw.trim().startsWith('[')) {
          try {
            value = JSON.parse(raw);
          } catch {
            return fail('is not a valid JSON array');
          }
        } else {
          value = raw.split(',').map((item) => item.trim()).filter(Boolean);
        }
      }
      if (!Array.isArray(value) || value.some((item) => item !== null && typeof item === 'object')) return fail('must be a list of values');
      return { ok: true, value: value.map(String) };
    }
    case 'object': {
      let value: unknown = raw;
      if (typeof raw === 'string' && text) {
        try {
          value = JSON.parse(raw);
        } catch {
          return fail('must be a JSON object');
        }
      }
      if (!value || typeof value !== 'object' || Array.isArray(value)) return fail('must be a JSON object');
      return { ok: true, value };
    }
  }
}

/** Value constraints beyond the type: allowed values (→ "does not have a valid value") and ranges and shapes. */
export function settingConstraint(field: SettingField, value: unknown): { kind: 'choice' | 'range'; problem: string } | undefined {
  if (value === null) return undefined;
  if (field.choices) {
    const items = Array.isArray(value) ? value : [value];
    const bad = items.find((item) => !field.choices!.includes(item as string | number));
    if (bad !== undefined) return { kind: 'choice', problem: `must be ${Array.isArray(value) ? 'a list of' : 'one of'} ${field.choices.join(', ')}` };
  }
  if (typeof value === 'number') {
    if (field.min !== undefined && value < field.min) return { kind: 'range', problem: `must be greater than or equal to ${field.min}` };
    if (field.max !== undefined && value > field.max) return { kind: 'range', problem: `must be less than or equal to ${field.max}` };
  }
  if (field.shape && value && typeof value === 'object' && !Array.isArray(value)) {
    const problem = field.shape(value as Record<string, unknown>);
    if (problem) return { kind: 'range', problem };
  }
  return undefined;
}

/** The record of a fresh instance; Premium fields only on Premium and Ultimate. */
export function defaultSettings(premium: boolean): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(SETTINGS)) {
    if (!field.premium || premium) record[key] = structuredClone(field.default);
  }
  return record;
}
