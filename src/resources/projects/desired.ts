import { blankAsNull, nullables, singletonSection } from '../../desired/sections/generic.js';
import { specsOf } from '../../desired/section.js';
import { projectSettings } from './resource.js';

/**
 * A project's general settings in a desired-state file (`settings`): the fields of the declaration that admins
 * standardise (visibility, default branch, merge method, squash option, pipeline and discussion requirements …).
 * Only the settings the file gives are compared and set.
 */

/** Settings the service presents as null (or "") when unset: the file writes null for them. */
const NULLABLE = ['description', 'default_branch', 'ci_config_path', 'merge_commit_template', 'squash_commit_template', 'allow_merge_on_skipped_pipeline'];

export const projectSettingsSection = singletonSection(projectSettings, {
  key: 'settings',
  help: 'General project settings: visibility, default_branch, merge_method, squash_option, only_allow_merge_if_pipeline_succeeds, only_allow_merge_if_all_discussions_are_resolved, remove_source_branch_after_merge, feature access levels … Only the settings given are compared.',
  fields: specsOf(projectSettings, [], nullables(NULLABLE)),
  values: (record) => blankAsNull(projectSettingsSection.fields, NULLABLE)(record),
});
