import { blankAsNull, nullables, singletonSection } from '../../desired/sections/generic.js';
import { specsOf } from '../../desired/section.js';
import { groupSettings } from './resource.js';

/**
 * A group's general settings in a desired-state file (`settings`): the fields of the declaration that admins
 * standardise (visibility, who may create projects and subgroups, two-factor authentication …). Only the settings
 * the file gives are compared and set.
 */

/** Settings the service presents as null (or "") when unset: the file writes null for them. */
const NULLABLE = ['description', 'default_branch', 'mentions_disabled'];

export const groupSettingsSection = singletonSection(groupSettings, {
  key: 'settings',
  help: 'General group settings: visibility, project_creation_level, subgroup_creation_level, request_access_enabled, require_two_factor_authentication … Only the settings given are compared.',
  fields: specsOf(groupSettings, [], nullables(NULLABLE)),
  values: (record) => blankAsNull(groupSettingsSection.fields, NULLABLE)(record),
});
