import type { ArgDef } from '../../cli/command.js';
import { profileValueParser } from '../../config/resolve.js';
import { SETTABLE_PROFILE_KEYS } from '../../config/store.js';
import { choicesOf } from '../../parse.js';

/** The name of a profile (completed from the config file). */
export const profileNameArg = (spec: '<name>' | '[name]', description: string): ArgDef => ({ spec, description, values: 'profile' });

/** A key of a profile, one of those a user sets (completed from them). */
export const profileKeyArg = (description: string): ArgDef => ({ spec: '<key>', description, values: { values: SETTABLE_PROFILE_KEYS } });

/** The value of the key before it: one of a list where the key takes one (output, token_type, booleans), a file for ca_file. */
export const profileValueArg: ArgDef = {
  spec: '<value>',
  description: 'its value',
  values: ([key]) => {
    const choices = choicesOf(profileValueParser(key));
    return choices ? { values: choices } : key === 'ca_file' ? 'file' : 'text';
  },
};

/**
 * The hint for `profile set|unset` given more words than they take: a profile named before the key (it is chosen with
 * -p NAME), else, for set, a value of several words unquoted.
 */
export const extraWordsHint = (verb: 'set' | 'unset') => ([first, ...rest]: string[]): string | undefined => {
  if (!SETTABLE_PROFILE_KEYS.includes(first)) return `the profile is chosen with -p NAME: forgectl -p ${first} profile ${verb} ${rest.join(' ')}`;
  return verb === 'set' ? `quote a value of several words: forgectl profile set ${first} "${rest.join(' ')}"` : undefined;
};
