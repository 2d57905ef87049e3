import { createHash } from 'node:crypto';
import { ConfigError } from '../errors.js';
import { shellQuote } from '../parse.js';
import { keyringDelete, keyringWrite, tokenStorage } from './keyring.js';
import { updateConfig, type Profile, type TokenType } from './store.js';

/** Where a profile's token is saved: the OS keyring, the config file, or wherever the profile keeps it now. */
export type SaveStorage = 'keyring' | 'file' | 'same';

export interface SaveToken {
  storage: SaveStorage;
  /** Instance root URL: the url of a profile created here, and the host named in a new keyring entry. */
  url: string;
  /** Set when given (login); rotation keeps the profile's own. `private` is the default and is not written. */
  tokenType?: TokenType;
  /** Replace token_command by the token (login and rotation do; migrate never meets one). */
  replaceCommand?: boolean;
  /** Make the profile the current one when none is. */
  makeCurrent?: boolean;
}

/**
 * Saves a profile's token (a missing profile is created). Into the keyring: the entry is written (and read back)
 * first, then the profile gets the reference and loses any token in the file; a keyring that refuses throws
 * KeyringUnavailable and the config file is left as it was. Into the file: the token is written, then the keyring
 * entry the profile referred to is removed. Returns where the token went and any clean-up that failed.
 */
export async function saveProfileToken(configDir: string, name: string, token: string, how: SaveToken, existing: Profile | undefined): Promise<{ storage: 'keyring' | 'file'; current?: string; leftover?: string }> {
  const storage = how.storage === 'same' ? (tokenStorage(existing) === 'keyring' ? 'keyring' : 'file') : how.storage;
  let account: string | undefined;
  if (storage === 'keyring') {
    account = existing?.token_keyring ?? keyringAccount(name, URL.canParse(how.url) ? new URL(how.url).host : 'no-url', configDir);
    await keyringWrite(account, token);
  }
  const { previous, current } = await updateConfig(configDir, (data) => {
    const profile: Profile = { ...(data.profiles[name] ?? { url: how.url }) };
    const before = profile.token_keyring;
    if (account) {
      profile.token_keyring = account;
      delete profile.token;
    } else {
      profile.token = token;
      delete profile.token_keyring;
    }
    if (how.replaceCommand) delete profile.token_command;
    if (how.tokenType) {
      if (how.tokenType === 'private') delete profile.token_type;
      else profile.token_type = how.tokenType;
    }
    data.profiles[name] = profile;
    if (how.makeCurrent) data.current ??= name;
    return { previous: before, current: data.current };
  });
  return { storage, current, leftover: storage === 'file' && previous ? await removeKeyringEntry(previous) : undefined };
}

/** Removes a keyring entry; returns why it could not be removed (the caller warns), undefined when done. */
export async function removeKeyringEntry(account: string): Promise<string | undefined> {
  try {
    await keyringDelete(account);
    return undefined;
  } catch (error) {
    return `the old keyring entry "${account}" (service forgectl) could not be removed: ${(error as Error).message}; ${removeByHand(account)}`;
  }
}

/**
 * Deletes the keyring entry of a profile that is about to lose its reference to it. A keyring that does not answer
 * throws (exit 3) before anything else is removed: a reference gone while its entry stayed is a token nobody finds.
 * `instead` says what else the user can do there (run again elsewhere, or a flag); the hint adds how to remove the
 * entry by hand.
 */
export async function deleteProfileEntry(name: string, account: string, instead: string): Promise<void> {
  try {
    await keyringDelete(account);
  } catch (error) {
    throw new ConfigError(
      `the token of profile "${name}" is still in the OS keyring (entry "${account}" of service forgectl): ${(error as Error).message}; nothing was removed`,
      `${instead}; to remove the entry yourself, ${removeByHand(account)}`,
    );
  }
}

/**
 * What a user should know before a profile's token is deleted: where it is kept, that forgectl keeps no other copy,
 * and that it stays valid on the instance until revoked, with how to revoke it. Undefined when it keeps no token.
 */
export function tokenLeft(name: string, profile: Profile, file: string): { where: string; fate: string } | undefined {
  const places = [profile.token && `the config file ${file}`, profile.token_keyring && `the OS keyring (entry "${profile.token_keyring}" of service forgectl)`].filter(Boolean);
  if (!places.length) return undefined;
  const revoke = `forgectl -p ${shellQuote(name)} auth token | forgectl -p ${shellQuote(name)} tokens identify --revoke --yes`;
  return { where: places.join(' and '), fate: `forgectl keeps no other copy of it, and it stays valid on ${profile.url ?? 'the instance'} until it is revoked; to revoke it first, run: ${revoke} (a personal token; a group's or project's access token: forgectl tokens revoke ID --group G or --project P)` };
}

/** How to remove a keyring entry without forgectl. */
export function removeByHand(account: string): string {
  const quoted = shellQuote(account);
  if (process.platform === 'darwin') return `remove it with: security delete-generic-password -s forgectl -a ${quoted}`;
  if (process.platform === 'win32') return `remove it in the Credential Manager (entry ${account}.forgectl)`;
  return `remove it with your keyring tool, such as: secret-tool clear service forgectl username ${quoted}`;
}

/**
 * The account of a profile's entry: the profile and its instance, and a short mark of the config folder, so two
 * config folders (FORGECTL_CONFIG_DIR) with a profile of the same name never share an entry.
 */
export function keyringAccount(profileName: string, instanceHost: string, configDir: string): string {
  return `${profileName}@${instanceHost} #${createHash('sha256').update(configDir).digest('hex').slice(0, 8)}`;
}
