import { collectionSection } from '../../desired/sections/generic.js';
import { specsOf } from '../../desired/section.js';
import { freezePeriods } from './resource.js';

/** Deploy freeze periods in a desired-state file (a project's `freeze_periods`). */

export const freezePeriodsSection = collectionSection(freezePeriods, {
  key: 'freeze_periods',
  help: 'Deploy freeze periods, paired by their start, end (cron expressions, checked as the flags are) and time zone (default UTC).',
  fields: specsOf(freezePeriods),
  required: ['freeze_start', 'freeze_end'],
});
