import { accessTokens as accessTokenDeclaration } from '../../resources/access-tokens/resource.js';
import { defineTable } from '../db.js';
import { deployTokens as deployTokenDeclaration } from '../../resources/deploy-tokens/resource.js';
import type { StoredOf } from '../../api/fields.js';
import { USER_PROFILE_FIELDS, users as userDeclaration } from '../../resources/users/resource.js';
import { emails as emailDeclaration } from '../../resources/emails/resource.js';
import { gpgKeys as gpgKeyDeclaration } from '../../resources/gpg-keys/resource.js';
import { userStatus as userStatusDeclaration } from '../../resources/user-status/resource.js';
import { sshKeys } from '../../resources/keys/resource.js';
import { collectionTable, type StoredRecord } from './declared.js';

/** Users and what they sign in and sign with: tokens, SSH and GPG keys, emails, their status; deploy tokens. */

/** The profile and settings a user record may hold (src/resources/users/resource.ts); unset, they are presented with their defaults. */
type UserProfile = Partial<Pick<StoredOf<typeof userDeclaration>, keyof typeof USER_PROFILE_FIELDS | 'note' | 'commit_email' | 'theme_id' | 'color_scheme_id' | 'projects_limit' | 'can_create_group' | 'two_factor_enabled' | 'private_profile' | 'is_auditor' | 'provisioned_by_group_id'>>;

/**
 * A user as stored: the declared fields every user has, the profile fields that are set, and what the sandbox keeps
 * beside them (the creator's id, an avatar, identities, custom attributes …).
 */
export type User = UserProfile & Pick<StoredOf<typeof userDeclaration>, 'id' | 'username' | 'name' | 'email' | 'is_admin' | 'bot' | 'external' | 'created_at'> & {
  /**
   * ldap_blocked: blocked by the LDAP synchronisation (the API cannot change it); blocked_pending_approval: signed up
   * on an instance that requires an administrator's approval.
   */
  state: 'active' | 'blocked' | 'deactivated' | 'banned' | 'ldap_blocked' | 'blocked_pending_approval';
  /** The day of the user's last activity (YYYY-MM-DD): deactivation needs none in the last 90 days. */
  last_activity_on?: string | null;
  /** Group or project of a bot user created for an access token. */
  bot_of?: { type: 'group' | 'project'; id: number };
  [key: string]: unknown;
};

/** Where a user's avatar is served (a default one when none was uploaded). */
export const userAvatarUrl = (user: Pick<User, 'id'>, rootUrl: string): string => `${rootUrl}/uploads/-/system/user/avatar/${user.id}/avatar.png`;

/** An external identity of a user (`identities` of the user record: LDAP, SAML …). */
export interface Identity {
  provider: string;
  extern_uid: string;
  saml_provider_id?: number | null;
}

/**
 * The id of a user's personal namespace. Groups and personal namespaces share one id space on the service; the
 * sandbox keeps group ids small (acme is 1) and puts personal namespaces far above them.
 */
export const USER_NAMESPACE_BASE = 1_000_000;
export const userNamespaceId = (user: Pick<User, 'id'>): number => USER_NAMESPACE_BASE + user.id;

export type TokenKind = 'personal' | 'group' | 'project' | 'job' | 'oauth';

/** A stored token (src/resources/access-tokens/resource.ts): the declared fields, its secret, and what the sandbox keeps to act as the service does. */
export type AccessToken = StoredRecord<typeof accessTokenDeclaration, {
  kind: TokenKind;
  /** Group or project id of a group or project token. */
  resource_id?: number;
  /** A group or project token's role; none: Maintainer. Personal tokens have none. */
  access_level?: number;
  description: string;
  token: string;
  /** Tokens created by rotating one another share a family (reuse detection revokes it whole). */
  family_id: number;
  /** Revoked because it was rotated (presenting it to rotate again triggers reuse detection). */
  rotated?: boolean;
  /** An impersonation token: made by an administrator, it acts as its user. */
  impersonation?: boolean;
}>;

export const users = defineTable<User>('users');
export const tokens = defineTable<AccessToken>('tokens');

/**
 * An SSH key (src/resources/keys/resource.ts): a user's, or a deploy key (deploy_keys_projects: the projects it is
 * enabled on); its owner (`user`) is presented from user_id.
 */
export type SshKey = StoredRecord<typeof sshKeys, {
  /** Owner of an SSH key; creator of a deploy key. */
  user_id: number;
  /** An instance deploy key (`POST /deploy_keys`): any project's maintainers may enable it. */
  public?: boolean;
  /** Projects a deploy key is enabled on; absent for a user's SSH key. */
  deploy_keys_projects?: Array<{ id: number; project_id: number; can_push: boolean; created_at: string; updated_at: string }>;
}, 'user'>;

export const sshKeyTable = defineTable<SshKey>('ssh_keys');

/** A user's secondary email address (src/resources/emails/resource.ts). */
export type Email = StoredRecord<typeof emailDeclaration, { user_id: number }>;

export const emailTable = defineTable<Email>('emails');

/** A user's GPG key (src/resources/gpg-keys/resource.ts). */
export type GpgKey = StoredRecord<typeof gpgKeyDeclaration, { user_id: number }>;

export const gpgKeys = defineTable<GpgKey>('gpg_keys');

/** A user's status (src/resources/user-status/resource.ts): its message is rendered, and clear_status_after answered as clear_status_at. */
export type UserStatus = Omit<StoredOf<typeof userStatusDeclaration>, 'message_html' | 'clear_status_after'> & { user_id: number };

export const userStatuses = defineTable<UserStatus>('user_statuses');

/** A deploy token as stored: the declared fields but `expired` (from the clock), its secret, when it was made. */
export type StoredDeployToken = StoredRecord<typeof deployTokenDeclaration, { token: string; created_at: string }, 'expired'>;

export const deployTokenTable = collectionTable<StoredDeployToken>(deployTokenDeclaration);
