import type { ArgDef } from '../../cli/command.js';
import { SETTABLE_PROFILE_KEYS } from '../../config/store.js';

/** The name of a profile (completed from the config file). */
export const profileNameArg = (spec: '<name>' | '[name]', description: string): ArgDef => ({ spec, description, values: 'profile' });

/** A key of a profile, one of those a user sets (completed from them). */
export const profileKeyArg = (description: string): ArgDef => ({ spec: '<key>', description, values: { values: SETTABLE_PROFILE_KEYS } });

/**
 * The hint for `profile set|unset` given more words than they take: a profile named before the key (it is chosen with
 * -p NAME), else, for set, a value of several words unquoted.
 */
export const extraWordsHint = (verb: 'set' | 'unset') => ([first, ...rest]: string[]): string | undefined => {
  if (!SETTABLE_PROFILE_KEYS.includes(first)) return `the profile is chosen with -p NAME: forgectl -p ${first} profile ${verb} ${rest.join(' ')}`;
  return verb === 'set' ? `quote a value of several words: forgectl profile set ${first} "${rest.join(' ')}"` : undefined;
};
