import { createHash } from 'node:crypto';
import type { Api } from '../api/client.js';
import { CliError, ExitCode } from '../errors.js';
import type { Field } from '../api/fields.js';

/**
 * The shapes desired state is made of. A desired-state file declares, per project, group and for the instance,
 * sections (push_rule, badges, hooks …); each section is read from the live instance as objects in the file's own
 * shape, compared field by field with what the file declares, and changed through the resource's declared routes.
 */

/** A secret in a desired-state file is a reference to where its value is, never the value. */
export type SecretRef = { env: string } | { file: string } | { command: string };

export function isSecretRef(value: unknown): value is SecretRef {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && ['env', 'file', 'command'].includes(keys[0]) && typeof (value as Record<string, unknown>)[keys[0]] === 'string';
}

export type Level = 'project' | 'group' | 'instance';

/** Where objects live: a project or group (by full path, with what the listing said of it), or the instance. */
export interface Owner {
  level: Level;
  /** Full path; '' for the instance. */
  path: string;
  id?: number;
  defaultBranch?: string;
}

export const ownerLabel = (owner: Owner): string => (owner.level === 'instance' ? 'instance' : `${owner.level} ${owner.path}`);

/** A value the file may write for a field: its schema, how it is checked, and how the live value compares. */
export interface FieldSpec {
  /** JSON Schema of the value in the file (editors complete and check with it). */
  schema: Record<string, unknown>;
  help?: string;
  /** Checks and converts the file's value (as the field kind parses a flag's text): throws UsageError naming `label`. */
  parse?: (value: unknown, label: string) => unknown;
  /** A credential: the file gives a secret reference; sent, never compared, never shown. */
  secret?: boolean;
  /** Sent but never compared: the service does not return it (a mirror's auth_user). */
  writeOnly?: boolean;
  /** The live value may be a secret reference (where a value that cannot be read back is to come from): export writes it. */
  exportsRef?: boolean;
  /** The value as an exported file writes it (an access level by name). */
  toFile?: (value: unknown) => unknown;
  /** The declared field the spec comes from. */
  field?: Field;
}

/** One live object as a section reads it: its identity as text, its values in the file's shape. */
export interface LiveObject {
  key: string;
  values: Record<string, unknown>;
  /** What the section needs to change or delete it (its id). */
  ref?: Record<string, unknown>;
  /** Carries forgectl's mark: it was created by forgectl (prune: managed may delete it). */
  managed?: boolean;
}

/** JSON with sorted keys, so two values compare equal whatever the key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export const sameValue = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);

/** The digest of a live object's values: a saved plan compares it with the object's values when applied. */
export function digestOf(values: Record<string, unknown> | undefined): string {
  return values ? digestOfValue(values) : '';
}

/** sha256 of a value written canonically (keys sorted, so the order of keys never matters). */
export const digestOfValue = (value: unknown): string => createHash('sha256').update(canonical(value)).digest('hex');

/** A field that differs: from (live) → to (desired). Write-only fields show no values. */
export interface FieldChange {
  field: string;
  from?: unknown;
  to?: unknown;
  writeOnly?: boolean;
  /** from and to are the values' sizes ("143 characters"), not the values: a credential the plan may not print. */
  withheld?: boolean;
}

export type Action = 'create' | 'update' | 'replace' | 'delete' | 'violation';

/** One change of a plan: what happens to one object, and what it looked like when planned. */
export interface Change {
  owner: Owner;
  section: string;
  /** The object's identity in words: `"ci"`, `https://ci.example.com/hook`. */
  key: string;
  action: Action;
  fields: FieldChange[];
  /** The desired values (secret references unresolved) the change sends. */
  desired?: Record<string, unknown>;
  /** The live object's handle (its id). */
  ref?: Record<string, unknown>;
  /** The live object carries forgectl's mark (an update keeps it). */
  managed?: boolean;
  /** Digest of the live object's values when planned; '' when there was none. A saved plan is refused when it moved. */
  digest: string;
  /** A delete only `apply --prune` carries out. */
  prune?: boolean;
  /** A replace: why the service needs the object deleted and created again. */
  replace_reason?: string;
  /** A replace whose old object cannot be read back (a hidden value): should the create fail, the old one is gone. */
  old_unreadable?: boolean;
  /** Only write-only values the file asks to write on every apply (a variable's rewrite: always): not drift. */
  rewrite?: boolean;
  /** Why an audit-only section reports the object (never changed by apply); on a deletion, what else goes with it (a bot's token). */
  note?: string;
  /** Who last changed the object, and when, as the owner's audit events say (absent when they do not, or cannot be read). */
  changed_by?: { author: string; at: string };
}

/** What a section's API calls get: the client, and how secrets and local files are read. */
export interface SectionIo {
  api: Api;
  /** The value of a secret reference (apply only). */
  secret(ref: SecretRef, label: string): Promise<string>;
  /** A local file named in the desired-state file, relative to it. */
  readLocal(path: string): Buffer;
}

/** A replace that failed after its delete: what happened, and what became of the old object. */
export class ReplaceFailed extends CliError {
  constructor(
    message: string,
    readonly reason: unknown,
  ) {
    super(message, reason instanceof CliError ? reason.exitCode : ExitCode.internal);
    this.name = 'ReplaceFailed';
  }
}
