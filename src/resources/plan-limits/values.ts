/** The plan limits record of spec document 3: every field is an integer. Shared by `plan-limits set` and the sandbox. */

/** Each limit with its value on a fresh instance (bytes for file sizes and dotenv_size, MiB for storage limits). */
export const PLAN_LIMITS: Record<string, number> = {
  ci_instance_level_variables: 25,
  ci_pipeline_size: 0,
  ci_active_jobs: 0,
  ci_project_subscriptions: 2,
  ci_pipeline_schedules: 10,
  ci_needs_size_limit: 50,
  ci_registered_group_runners: 1000,
  ci_registered_project_runners: 1000,
  dotenv_size: 5120,
  dotenv_variables: 20,
  conan_max_file_size: 3221225472,
  generic_packages_max_file_size: 5368709120,
  helm_max_file_size: 5242880,
  maven_max_file_size: 3221225472,
  npm_max_file_size: 524288000,
  nuget_max_file_size: 524288000,
  pypi_max_file_size: 3221225472,
  terraform_module_max_file_size: 1073741824,
  enforcement_limit: 0,
  notification_limit: 0,
  storage_size_limit: 0,
};

/** Plans of an enterprise instance; the community edition only has `default`. */
export const PLANS = ['default', 'free', 'bronze', 'silver', 'premium', 'premium_trial', 'gold', 'ultimate', 'ultimate_trial', 'ultimate_trial_paid_customer', 'opensource'] as const;
