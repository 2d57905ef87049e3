import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError } from '../errors.js';
import { orderedPool } from '../fleet/pool.js';
import { isSecretRef, ownerLabel, type Owner, type SectionIo } from './model.js';
import { endsTheRun } from './plan.js';
import { identityWords, type Section } from './section.js';
import { SECTIONS } from './sections/index.js';

/**
 * The live configuration of projects, groups or the instance as a desired-state file: every exported section
 * (not repository files, secure files or audit policies), secrets left out (the service never returns them). Planned
 * against the same instance at once, it shows no changes.
 */

export interface ExportOptions {
  owners: Owner[];
  /** Sections to export (keys); all exported ones when absent. */
  kinds?: string[];
  target?: string;
  concurrency: number;
}

export interface ExportResult {
  document: Record<string, unknown>;
  /** What could not be exported, for stderr. */
  notes: string[];
}

/** Exported sections: those a file can round-trip. */
export const exportedSections = (level: Owner['level']): Section[] => SECTIONS[level].filter((section) => section.exported);

/**
 * A live object's values as the file writes them: the file's fields in order, write-only ones left out; `references`
 * gathers the environment variables of values the service shows but export writes as references (a protected one).
 */
function toFile(section: Section, live: Record<string, unknown>, references: string[] = []): Record<string, unknown> {
  const values = section.exportAs?.(live) ?? live;
  for (const [name, value] of Object.entries(values)) if (isSecretRef(value) && 'env' in value && !isSecretRef(live[name])) references.push(value.env);
  const out: Record<string, unknown> = {};
  const names = section.other ? Object.keys(values) : Object.keys(section.fields);
  for (const name of names) {
    const spec = section.fields[name] ?? section.other;
    if (!spec || spec.secret || spec.writeOnly || !(name in values) || (isSecretRef(values[name]) && !spec.exportsRef)) continue;
    const value = values[name];
    // A field the service shows as null but the file cannot write as null (an unset enum) is left out.
    if (value === null && (section.other || !allowsNull(spec.schema))) continue;
    out[name] = spec.toFile ? spec.toFile(value) : value;
  }
  return out;
}

const allowsNull = (schema: Record<string, unknown>): boolean => {
  const type = schema.type;
  return type === 'null' || (Array.isArray(type) && type.includes('null')) || (Array.isArray(schema.anyOf) && schema.anyOf.some((s) => allowsNull(s as Record<string, unknown>)));
};

/** The write-only fields of a section (never exported), for the note. */
const writeOnlyFields = (section: Section): string[] => Object.entries(section.fields).filter(([, spec]) => spec.secret || spec.writeOnly).map(([name]) => name);

async function exportOwner(io: SectionIo, owner: Owner, kinds: string[] | undefined, notes: Set<string>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const section of exportedSections(owner.level)) {
    if (kinds && !kinds.includes(section.key)) continue;
    try {
      if (section.shape === 'one') {
        const [live] = await section.read(io, owner);
        if (live) out[section.key] = toFile(section, live.values);
        else if (section.nullable) out[section.key] = null;
      } else if (section.shape === 'map') {
        const names = section.exportNames ? await section.exportNames(io, owner) : [];
        const live = await section.read(io, owner, names);
        if (live.length) out[section.key] = Object.fromEntries(live.map((object) => [object.key, toFile(section, object.values)]));
      } else {
        const references: string[] = [];
        const items = (await section.read(io, owner)).map((object) => toFile(section, object.values, references));
        if (references.length) notes.add(`${section.key} of ${ownerLabel(owner)}: ${references.join(', ')} ${references.length === 1 ? 'is written as an {env: …} reference, not a value (a plan shows it by size only): plan compares it when it is set' : 'are written as {env: …} references, not values (a plan shows them by size only): plan compares them when they are set'}, and counts what is not set as not compared`);
        const complete = items.filter((item) => (section.identity ?? []).every((name) => item[name] !== null && item[name] !== undefined));
        if (complete.length < items.length) notes.add(`${section.noun}s without ${identityWords(section)} cannot be paired and were left out (${ownerLabel(owner)} …)`);
        if (complete.length) out[section.key] = complete;
      }
      const hidden = writeOnlyFields(section);
      if (hidden.length && out[section.key] !== undefined && out[section.key] !== null) notes.add(`${section.key}: ${hidden.join(', ')} ${hidden.length === 1 ? 'is' : 'are'} write-only and not exported; add them as {env: …}, {file: …} or {command: …}`);
    } catch (error) {
      // A section of a higher tier than the instance has (push rules on Free) is left out, not an error.
      if (error instanceof ApiError && (error.status === 403 || error.status === 404) && section.tier) {
        notes.add(`${section.key} left out: the instance answered ${error.status} (it needs ${section.tier})`);
        continue;
      }
      throw error;
    }
  }
  return out;
}

export async function exportState(io: SectionIo, options: ExportOptions): Promise<ExportResult> {
  const notes = new Set<string>();
  const document: Record<string, unknown> = { version: 1 };
  if (options.target) document.target = options.target;
  const projects: Record<string, unknown> = {};
  const groups: Record<string, unknown> = {};
  for await (const outcome of orderedPool(options.owners, options.concurrency, (owner) => exportOwner(io, owner, options.kinds, notes))) {
    if (outcome.status === 'failed') {
      if (endsTheRun(outcome.error)) throw outcome.error;
      throw Object.assign(outcome.error as Error, { message: `${ownerLabel(outcome.item)}: ${(outcome.error as Error).message}` });
    }
    if (outcome.status !== 'ok' || !Object.keys(outcome.value).length) continue;
    const owner = outcome.item;
    if (owner.level === 'project') projects[owner.path] = outcome.value;
    else if (owner.level === 'group') groups[owner.path] = outcome.value;
    else document.instance = outcome.value;
  }
  if (Object.keys(groups).length) document.groups = groups;
  if (Object.keys(projects).length) document.projects = projects;
  return { document, notes: [...notes] };
}

/**
 * The JSON Schema this forgectl ships (schema/ in its package, above the module running), if it is there: a
 * single executable has none. Found at run time, as an install may be global, local or a checkout.
 */
export function shippedSchema(): string | undefined {
  if (process.getBuiltinModule('node:sea')?.isSea?.()) return undefined;
  let dir: string;
  try {
    dir = dirname(fileURLToPath(import.meta.url));
  } catch {
    return undefined; // not loaded from a file
  }
  for (;;) {
    const schema = join(dir, 'schema', 'desired-state.schema.json');
    if (existsSync(schema)) return schema;
    if (dirname(dir) === dir) return undefined;
    dir = dirname(dir);
  }
}

/**
 * The first line of a written desired-state file, for editors with a YAML language server: the schema's path relative
 * to the file (to the current folder on stdout, where such a file is usually written), when the schema is in the
 * project holding the file (forgectl installed as one of its dependencies), so that the line holds on every machine
 * that installs the project. No line otherwise: a global install's path names one machine's prefix (and a single
 * executable ships no schema); `forgectl validate --schema` writes one to keep beside the files.
 */
export function schemaModeline(schema: string | undefined, outputFile?: string): string {
  if (!schema) return '';
  const folder = realFolder(outputFile !== undefined ? dirname(resolve(outputFile)) : process.cwd());
  const inProject = relative(projectRoot(folder), schema);
  if (inProject.startsWith('..') || isAbsolute(inProject)) return '';
  const path = relative(folder, schema).split(sep).join('/');
  return `# yaml-language-server: $schema=${path.startsWith('../') ? path : `./${path}`}\n`;
}

/** A folder by its real path, as the schema's is (a symbolic link on the way would give a path that does not resolve). */
function realFolder(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}

/** The project a folder is in: the nearest folder up holding `.git` or `package.json`, else the folder itself. */
function projectRoot(folder: string): string {
  for (let dir = folder; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git')) || existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return folder;
  }
}
