import { readFileSync } from 'node:fs';
import { coerceSetting, REMOVED_SETTINGS, SETTINGS, settingConstraint } from './resource.js';
import type { Context } from '../../cli/command.js';
import { readSecret } from '../../cli/secrets.js';
import { UsageError } from '../../errors.js';
import { REDACTED } from '../../http/redact.js';
import { closestName, splitPairs } from '../../parse.js';

export const CACHE_NOTE = 'Settings are cached by the instance: changes can take up to 60 seconds to take effect.';

/** Masks credentials (external_pipeline_validation_service_token) unless --fields names them. */
export function maskSecrets(record: Record<string, unknown>, fields: string[] | undefined): Record<string, unknown> {
  const shown = { ...record };
  for (const [key, field] of Object.entries(SETTINGS)) {
    if (field.secret && shown[key] !== null && shown[key] !== undefined && shown[key] !== '' && !fields?.includes(key)) shown[key] = REDACTED;
  }
  return shown;
}

/** `@file` (or `@-` for stdin) reads the value; credentials may only come that way, never from argv. */
async function readValue(ctx: Context, key: string, text: string, secret: boolean): Promise<string> {
  if (!text.startsWith('@')) {
    if (secret && text !== '' && text !== 'null') {
      throw new UsageError(`${key} is a credential and is not accepted on the command line`, `pass ${key}=@FILE, or ${key}=@- to read it from stdin`);
    }
    return text;
  }
  const source = text.slice(1);
  if (source === '-' && secret) return readSecret(ctx, key, { stdin: true }); // a hidden prompt on a terminal
  try {
    const value = source === '-' ? await ctx.io.readStdin() : readFileSync(source, 'utf8');
    return value.replace(/\r?\n$/, '');
  } catch (error) {
    throw new UsageError(`cannot read the value of ${key} from ${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * `key=value` arguments typed by the settings table: unknown, read-only and removed keys and values of the wrong
 * type are usage errors, found before anything is sent.
 */
export async function parseSettingPairs(ctx: Context, pairs: string[]): Promise<Record<string, unknown>> {
  const wanted: Record<string, unknown> = {};
  for (const [key, text] of splitPairs(pairs)) {
    const field = SETTINGS[key];
    if (!field) {
      if (REMOVED_SETTINGS.includes(key)) throw new UsageError(`${key} was removed from the application settings in an earlier release`);
      const guess = closestName(key, Object.keys(SETTINGS));
      throw new UsageError(`unknown setting "${key}"${guess ? ` (did you mean ${guess}?)` : ''}`, 'forgectl settings get lists every setting');
    }
    if (field.readOnly) throw new UsageError(`${key} is read-only`);
    const coerced = coerceSetting(field, await readValue(ctx, key, text, Boolean(field.secret)), true);
    if (!coerced.ok && coerced.problem.startsWith('is too large')) throw new UsageError(`${key} ${coerced.problem}, got "${text}"`);
    if (!coerced.ok) throw new UsageError(`${key} must be ${describeType(key)}, got "${field.secret ? '…' : text}"`, coerced.problem.includes('JSON') ? coerced.problem : undefined);
    const constraint = settingConstraint(field, coerced.value);
    if (constraint) throw new UsageError(`${key} ${constraint.problem}`);
    if (field.deprecatedBy) ctx.io.warn(`${key} is deprecated; use ${field.deprecatedBy}`);
    wanted[key] = coerced.value;
  }
  return wanted;
}

/** How a value of the setting is written on the command line. */
export function describeType(key: string): string {
  const field = SETTINGS[key];
  switch (field.type) {
    case 'integer':
      return field.nullable ? 'an integer or null' : 'an integer';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'string':
      return 'a string, or null';
    case 'array':
      return 'a comma list or a JSON array';
    case 'object':
      return 'a JSON object';
  }
}
