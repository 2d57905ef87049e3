import { isAbsolute, resolve } from 'node:path';
import type { Context } from '../../cli/command.js';
import { readSecret } from '../../cli/secrets.js';
import { secretFromCommand } from '../../config/resolve.js';
import { UsageError } from '../../errors.js';
import { REDACTED } from '../../http/redact.js';
import type { SecretRef, SectionIo } from '../../desired/model.js';
import type { LocalFiles } from '../../desired/section.js';

/**
 * What the sections' API calls get: the client, local files, and secrets. A secret reference is read only when a
 * request needs its value (never while planning), once per run however many objects use it, and its value goes
 * only into request bodies: never into plans, logs, exports or error messages. A --dry-run shows each request with
 * the values read from references masked, whatever their field is called (a chat webhook, pushover's user_key).
 */
export function sectionIo(ctx: Context, local: LocalFiles, baseDir: string): SectionIo {
  const values = new Map<string, Promise<string>>();
  const known = new Set<string>();
  const api = ctx.globals.dryRun ? ctx.forkApi((text) => ctx.io.streams.stdout.write(withoutSecrets(text, known))) : ctx.api;
  const read = async (ref: SecretRef, label: string): Promise<string> => {
    if (!('command' in ref)) return readSecret(ctx, label, 'env' in ref ? ref : { file: isAbsolute(ref.file) ? ref.file : resolve(baseDir, ref.file) });
    let value: string;
    try {
      value = secretFromCommand(ref.command, ctx.env);
    } catch (error) {
      throw new UsageError(`${label}: the command ${JSON.stringify(ref.command)} failed: ${(error as Error).message}`);
    }
    return value;
  };
  return {
    api,
    secret(ref, label) {
      const key = JSON.stringify(ref);
      let value = values.get(key);
      if (!value) {
        value = read(ref, label).then((text) => (known.add(text), text));
        values.set(key, value);
      }
      return value;
    },
    readLocal: (path) => local.read(path),
  };
}

/** A --dry-run request as printed (JSON text), each secret value in it masked, as its JSON string form too. */
function withoutSecrets(text: string, secrets: ReadonlySet<string>): string {
  let masked = text;
  for (const secret of secrets) {
    if (!secret) continue;
    for (const form of new Set([secret, JSON.stringify(secret).slice(1, -1)])) masked = masked.split(form).join(REDACTED);
  }
  return masked;
}
