import { noEmptyRegex, singletonSection } from '../../desired/sections/generic.js';
import { specsOf } from '../../desired/section.js';
import { PUSH_RULE_REGEX_FIELDS, pushRule } from './resource.js';

/** The push rule in a desired-state file (a project's `push_rule`). */

const REGEX_FIELDS: readonly string[] = PUSH_RULE_REGEX_FIELDS;

export const pushRuleSection = singletonSection(pushRule, {
  key: 'push_rule',
  help: 'The push rule (Premium): what every push must satisfy. null: no push rule.',
  fields: specsOf(pushRule, [], Object.fromEntries(REGEX_FIELDS.map((name) => [name, { nullable: true }]))),
  overrides: { check: noEmptyRegex(REGEX_FIELDS), lostWithDelete: () => 'pushes are no longer checked by any of its rules' },
});
