import { UsageError } from '../errors.js';
import { kindField } from './fields.js';

/**
 * Push rule regexes are run by the service with RE2, which has no lookaround and no backreferences. A pattern
 * must compile as a JavaScript regex and avoid those constructs; returns the problem, or undefined when fine.
 */
export function re2Problem(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
  } catch (error) {
    return (error as Error).message.replace(/^Invalid regular expression: /, '');
  }
  const unescaped = pattern.replace(/\\\\/g, '');
  if (/\(\?<?[=!]/.test(unescaped)) return 'lookahead and lookbehind are not supported by RE2';
  if (/\\[1-9]|\\k</.test(unescaped)) return 'backreferences are not supported by RE2';
  return undefined;
}

/** Every field of a push rule that the create and update calls take (spec 1). */
export const PUSH_RULE_REGEX_FIELDS = ['commit_message_regex', 'commit_message_negative_regex', 'branch_name_regex', 'author_email_regex', 'file_name_regex'] as const;
export const PUSH_RULE_BOOLEAN_FIELDS = [
  'deny_delete_tag', 'member_check', 'prevent_secrets', 'commit_committer_check', 'commit_committer_name_check', 'reject_unsigned_commits', 'reject_non_dco_commits',
] as const;

/** The field kind of a regular expression the service runs with RE2 ("" clears it). */
export const re2Regex = kindField<string>({
  name: 'regex',
  type: 'string',
  placeholder: '<regex>',
  parse(text, label) {
    const problem = text ? re2Problem(text) : undefined;
    if (problem) throw new UsageError(`${label} "${text}" is not a valid regular expression: ${problem}`);
    return text;
  },
});
