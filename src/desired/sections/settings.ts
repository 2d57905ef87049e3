import { projectSettings } from '../../resources/projects/resource.js';
import { groupSettings } from '../../resources/groups/resource.js';
import type { FieldSpec } from '../model.js';
import { pick, specsOf } from '../section.js';
import { singletonSection } from './generic.js';

/**
 * General settings of a project or a group: the fields of the declarations that admins standardise (visibility,
 * default branch, merge method, squash option, pipeline and discussion requirements; for groups who may create
 * projects and subgroups, two-factor authentication …). Only the settings the file gives are compared and set.
 */

/** Settings the service presents as null (or "") when unset: the file writes null for them. */
const NULLABLE = ['description', 'default_branch', 'ci_config_path', 'merge_commit_template', 'squash_commit_template', 'allow_merge_on_skipped_pipeline', 'mentions_disabled'];
const nullable = Object.fromEntries(NULLABLE.map((name) => [name, { nullable: true }]));

/** The live settings in the file's shape: an empty text is "not set", null (a description of "" is none). */
const valuesOf = (fields: Record<string, FieldSpec>) => (record: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(pick(record, fields)).map(([name, value]) => [name, value === '' && NULLABLE.includes(name) ? null : value]));

export const projectSettingsSection = singletonSection(projectSettings, {
  key: 'settings',
  help: 'General project settings: visibility, default_branch, merge_method, squash_option, only_allow_merge_if_pipeline_succeeds, only_allow_merge_if_all_discussions_are_resolved, remove_source_branch_after_merge, feature access levels … Only the settings given are compared.',
  fields: specsOf(projectSettings, [], nullable),
  values: (record) => valuesOf(projectSettingsSection.fields)(record),
});

export const groupSettingsSection = singletonSection(groupSettings, {
  key: 'settings',
  help: 'General group settings: visibility, project_creation_level, subgroup_creation_level, request_access_enabled, require_two_factor_authentication … Only the settings given are compared.',
  fields: specsOf(groupSettings, [], nullable),
  values: (record) => valuesOf(groupSettingsSection.fields)(record),
});
