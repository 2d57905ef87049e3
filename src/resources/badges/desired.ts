import { collectionSection } from '../../desired/sections/generic.js';
import { specsOf } from '../../desired/section.js';
import { badges } from './resource.js';

/** A project's badges in a desired-state file (`badges`). */

export const badgesSection = collectionSection(badges, {
  key: 'badges',
  help: "The project's own badges, paired by name (its groups' badges are left alone). Badges forgectl creates carry [forgectl] at the end of their name.",
  fields: specsOf(badges),
  keep: (record) => record.kind !== 'group',
  marker: 'name',
  required: ['name', 'link_url', 'image_url'],
});
