import { realpathSync } from 'node:fs';
import { extname, resolve, sep } from 'node:path';
import { desiredStateSchema } from '../../desired/schema.js';
import { UsageError } from '../../errors.js';
import { fileProblem, readRegularFile } from '../../files.js';
import { DESIRED_MAX_BYTES } from '../desired/shared.js';

/** The names a desired-state file may have. */
const EXTENSIONS = ['.yaml', '.yml', '.json'];

/**
 * The desired-state file a tool call names (validate, plan), checked before any command reads it, and its real
 * path, which the command then reads. A tool may name only a desired-state file below the folder the server was
 * started in (or the --root it was given), after symbolic links; named .yaml, .yml or .json; a regular file (a FIFO
 * or a device is refused before a byte is read) of at most DESIRED_MAX_BYTES; whose top level holds only the keys of
 * a desired-state file, so that the command's messages never repeat the keys of any other file.
 */
export async function checkDesiredFile(file: string, root: string): Promise<string> {
  const hint = `name a desired-state file (.yaml, .yml or .json) below ${root}`;
  if (!file || file === '-') throw new UsageError('file: a tool reads no stdin', hint);
  const outside = new UsageError(`${file} is outside ${root}, the folder the server reads desired-state files from`, 'the server reads desired-state files only below its folder: ask the person who runs it to start it where the files are');
  // Outside as written is refused before the file is looked for: whether a path outside exists is none of a tool's business.
  if (!isBelow(resolve(root, file), resolve(root))) throw outside;
  let real: string;
  try {
    real = realpathSync(resolve(root, file));
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${fileProblem(error)}`, hint);
  }
  // And outside after symbolic links.
  if (!isBelow(real, realpathSync(root))) throw outside;
  if (!EXTENSIONS.includes(extname(real).toLowerCase())) throw new UsageError(`${file} is not a desired-state file: its name does not end in ${EXTENSIONS.join(', ')}`, hint);
  const text = readRegularFile(real, DESIRED_MAX_BYTES);
  if (!looksDesired(await topLevelKeys(text))) {
    const known = Object.keys(desiredStateSchema().properties as Record<string, unknown>);
    throw new UsageError(`${file} is not a desired-state file`, `its top level holds only ${known.join(', ')}`);
  }
  return real;
}

/** Whether a path is the folder or below it. */
const isBelow = (path: string, folder: string): boolean => path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);

/** The keys of the top-level mapping; [] for an empty file; undefined when it is no mapping (or no YAML at all). */
async function topLevelKeys(text: string): Promise<string[] | undefined> {
  const { default: YAML } = (await import('yaml')) as unknown as { default: typeof import('yaml') };
  const doc = YAML.parseDocument(text, { uniqueKeys: false });
  // Broken YAML is for the command to report (its messages give places, not the file's words).
  if (doc.errors.length) return [];
  const contents = doc.contents;
  if (contents === null) return [];
  if (!YAML.isMap(contents)) return undefined;
  return contents.items.map((pair) => String(YAML.isScalar(pair.key) ? pair.key.value : pair.key));
}

function looksDesired(keys: string[] | undefined): boolean {
  const known = Object.keys(desiredStateSchema().properties as Record<string, unknown>);
  return keys !== undefined && keys.every((key) => known.includes(key));
}
