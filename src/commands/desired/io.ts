import { isAbsolute, resolve } from 'node:path';
import type { Api } from '../../api/client.js';
import type { Context } from '../../cli/command.js';
import { readSecret } from '../../cli/secrets.js';
import { secretFromCommand } from '../../config/resolve.js';
import { UsageError } from '../../errors.js';
import type { SecretRef, SectionIo } from '../../desired/model.js';
import type { LocalFiles } from '../../desired/section.js';

/**
 * What the sections' API calls get: the client, local files, and secrets. A secret reference is read only when a
 * request needs its value (never while planning), once per run however many objects use it, and its value goes
 * only into request bodies: never into plans, logs, exports or error messages.
 */
export function sectionIo(ctx: Context, api: Api, local: LocalFiles, baseDir: string): SectionIo {
  const values = new Map<string, Promise<string>>();
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
        value = read(ref, label);
        values.set(key, value);
      }
      return value;
    },
    readLocal: (path) => local.read(path),
  };
}
