import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileProblem } from '../files.js';
import { closestName } from '../parse.js';
import { UsageError } from '../errors.js';
import { REDACTED, URL_MASK } from '../http/redact.js';
import { isSecretRef } from './model.js';
import { desiredStateSchema } from './schema.js';
import { FieldProblem, identityKey, identityWords, type LocalFiles, type Section } from './section.js';
import { sectionOf } from './sections/index.js';

/**
 * Reading a desired-state file: YAML (with the line and column of every problem), checked against the JSON Schema
 * the editors get, then each value parsed by its field kind exactly as the command-line flags are parsed (a bad
 * cron expression is the same exit 2 and the same message as with `freeze-periods create`).
 */

export interface Problem {
  line?: number;
  column?: number;
  /** Where in the file, as the file writes it: projects."*".badges[0].link_url */
  at: string;
  message: string;
  hint?: string;
}

/** A desired-state file that cannot be used (exit 2): every problem found, with its line and column. */
export class DesiredFileError extends UsageError {
  constructor(
    readonly file: string,
    readonly problems: Problem[],
  ) {
    const first = problems[0];
    const where = (p: Problem) => `${file}${p.line ? `:${p.line}:${p.column}` : ''}`;
    super(
      problems.length === 1 ? `${where(first)}: ${first.message}` : `${file} has ${problems.length} problems; the first: ${first.line ? `${first.line}:${first.column}: ` : ''}${first.message}`,
      problems.length === 1 ? first.hint : `see them all with: forgectl validate -f ${file}`,
    );
    this.name = 'DesiredFileError';
  }

  /** Each problem on a line of its own, as compilers print them: FILE:LINE:COL: message. */
  lines(): string[] {
    return this.problems.map((p) => `${this.file}${p.line ? `:${p.line}:${p.column}` : ''}: ${p.at ? `${p.at}: ` : ''}${p.message}${p.hint ? ` (${p.hint})` : ''}`);
  }
}

/** One scope of the file: a pattern (*, group/**, group/project) and what it declares, sections parsed. */
export interface Scope {
  pattern: string;
  inherit: boolean;
  sections: Record<string, unknown>;
  /** Position in the file: a later scope of the same depth wins. */
  order: number;
}

export interface DesiredState {
  file: string;
  prune: 'managed' | 'all';
  target: string[];
  projects: Scope[];
  groups: Scope[];
  instance: Record<string, unknown>;
  /** Local files named in the file (secure files, file sources), relative to it. */
  local: LocalFiles;
}

type Path = Array<string | number>;

/** projects."*".badges[0].link_url */
function showPath(path: Path): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index ? '.' : ''}${/^[A-Za-z_][A-Za-z0-9_]*$/.test(part) ? part : JSON.stringify(part)}`)).join('');
}

/** Local files, read relative to the desired-state file, each once. */
export function localFiles(file: string): LocalFiles {
  const base = dirname(resolve(file));
  const cache = new Map<string, Buffer>();
  return {
    read(path) {
      const full = isAbsolute(path) ? path : resolve(base, path);
      let data = cache.get(full);
      if (!data) {
        try {
          data = readFileSync(full);
        } catch (error) {
          throw new UsageError(`cannot read ${path}: ${fileProblem(error)}`);
        }
        cache.set(full, data);
      }
      return data;
    },
  };
}

let validator: ((data: unknown) => boolean) & { errors?: AjvError[] | null } | undefined;

interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  parentSchema?: Record<string, unknown>;
}

async function schemaValidator(): Promise<NonNullable<typeof validator>> {
  if (validator) return validator;
  const { default: Ajv } = (await import('ajv')) as unknown as { default: new (options: Record<string, unknown>) => { compile(schema: unknown): NonNullable<typeof validator> } };
  // verbose: errors carry their schema (for the keys known where an unknown one is); the data they carry is never shown.
  validator = new Ajv({ allErrors: true, strict: false, verbose: true }).compile(desiredStateSchema());
  return validator;
}

/** A schema error in words. Values from the file are never repeated: the file may hold a secret where it should not. */
function describe(error: AjvError): { message: string; hint?: string } {
  const params = error.params;
  if (error.schemaPath.startsWith('#/definitions/secret')) {
    return { message: 'must be a secret reference, not a value', hint: 'write {env: VARIABLE}, {file: PATH} or {command: …}' };
  }
  switch (error.keyword) {
    case 'additionalProperties': {
      const known = Object.keys((error.parentSchema?.properties as Record<string, unknown>) ?? {});
      const name = String(params.additionalProperty);
      const guess = closestName(name, known);
      return { message: `unknown key "${name}"${guess ? ` (did you mean ${guess}?)` : ''}`, hint: known.length ? `known here: ${known.join(', ')}` : undefined };
    }
    case 'required':
      return { message: `needs ${String(params.missingProperty)}` };
    case 'type': {
      const types = String(params.type).split(',').map((t) => ({ integer: 'a whole number', boolean: 'true or false', string: 'text', array: 'a list', object: 'a mapping', null: 'null', number: 'a number' })[t] ?? t);
      return { message: `must be ${types.join(' or ')}` };
    }
    case 'enum':
      return { message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'const':
      return { message: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'propertyNames':
      return { message: `has an unknown name "${String(params.propertyName)}"` };
    case 'minimum':
      return { message: `must be at least ${String(params.limit)}` };
    case 'maximum':
      return { message: `must be at most ${String(params.limit)}` };
    case 'minLength':
      return { message: 'must not be empty' };
    case 'minItems':
      return { message: 'must not be empty' };
    case 'uniqueItems':
      return { message: 'lists an item twice' };
    case 'anyOf':
    case 'oneOf':
      return { message: 'is not any of the forms allowed here' };
    default:
      return { message: error.message ?? error.keyword };
  }
}

/** The errors worth showing: for an anyOf, its own line instead of one per branch it tried. */
function relevant(errors: AjvError[]): AjvError[] {
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const inUnion = (e: AjvError) => unions.some((u) => u !== e && e.schemaPath.startsWith(`${u.schemaPath.replace(/\/(anyOf|oneOf)$/, '')}/`) && e.instancePath.startsWith(u.instancePath));
  const kept = errors.filter((e) => !inUnion(e) || e.keyword === 'anyOf' || e.keyword === 'oneOf');
  // A union whose branches all failed on type alone says the better thing from the branch that matched the type.
  return kept.flatMap((e): AjvError | AjvError[] => {
    if (e.keyword !== 'anyOf' && e.keyword !== 'oneOf') return e;
    const branches = errors.filter((b) => b !== e && b.instancePath.startsWith(e.instancePath) && b.schemaPath.startsWith(e.schemaPath.replace(/\/(anyOf|oneOf)$/, '/')));
    // A branch that took the value's shape and failed inside it (a record with a bad field, where the other branch
    // is null) has the errors to show: those of the fields, not "must be null".
    const inside = branches.filter((b) => b.instancePath.startsWith(`${e.instancePath}/`));
    if (inside.length) return relevant(inside);
    const specific = branches.filter((b) => b.keyword !== 'type' && !(b.keyword === 'anyOf' || b.keyword === 'oneOf'));
    if (specific.length === 1) return specific[0];
    // Names or numbers (an access level): one list of every value allowed.
    if (specific.length > 1 && specific.every((b) => b.keyword === 'enum')) {
      return { ...specific[0], params: { allowedValues: specific.flatMap((b) => b.params.allowedValues as unknown[]) } };
    }
    // Not even of a type any branch takes (text or a list): say which types are.
    const types = branches.filter((b) => b.keyword === 'type' && b.instancePath === e.instancePath);
    if (!specific.length && types.length) return { ...types[0], params: { type: [...new Set(types.flatMap((b) => String(b.params.type).split(',')))].join(',') } };
    return e;
  });
}

/**
 * Reads and checks a desired-state file. Throws DesiredFileError with every problem (exit 2); `text` is the file's
 * content (read by the caller, so a missing file is the caller's message).
 */
export async function parseDesiredState(file: string, text: string): Promise<DesiredState> {
  const yaml = await readYaml(file, text);
  const { problems, malformed } = await schemaProblems(yaml);
  const reader = new ValueReader(yaml, malformed, problems, localFiles(file));
  if (reader.insideMalformed([])) throw new DesiredFileError(file, sortProblems(problems));
  const root = yaml.data as Record<string, unknown>;
  const state: DesiredState = {
    file,
    prune: (root.prune as 'managed' | 'all' | undefined) ?? 'managed',
    target: root.target === undefined || reader.touchesMalformed(['target']) ? [] : Array.isArray(root.target) ? (root.target as string[]) : [root.target as string],
    projects: reader.scopes('project', root.projects as Record<string, unknown> | undefined),
    groups: reader.scopes('group', root.groups as Record<string, unknown> | undefined),
    instance: reader.instance(root.instance as Record<string, unknown> | undefined),
    local: reader.local,
  };
  reader.checkTargets(state.target, Array.isArray(root.target));
  // An empty file (an export that failed into it) would plan as "no changes" (exit 0): an all-clear it cannot give.
  if (!problems.length && !['projects', 'groups', 'instance'].some((key) => key in root)) {
    problems.push({ at: '', message: 'declares nothing: no projects, groups or instance', hint: 'start from what the instance has: forgectl export --group GROUP --recursive' });
  }
  if (problems.length) throw new DesiredFileError(file, sortProblems(problems));
  return state;
}

type Position = { line?: number; column?: number };

/** The file's YAML as data, and where in the text each path of it stands. */
interface YamlFile {
  data: unknown;
  /** Where a path points; for an unknown key, the key itself. */
  positionOf(path: Path, key?: string): Position;
}

/** Parses the YAML; a syntax error (or an alias that cannot be resolved) ends the reading with every such problem. */
async function readYaml(file: string, text: string): Promise<YamlFile> {
  const { default: YAML } = (await import('yaml')) as unknown as { default: typeof import('yaml') };
  const lineCounter = new YAML.LineCounter();
  const doc = YAML.parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: true });
  const position = (offset: number | undefined): Position => {
    if (offset === undefined) return {};
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const positionOf = (path: Path, key?: string): Position => {
    for (let depth = path.length; depth >= 0; depth--) {
      const node = (depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true)) as { range?: [number, number, number]; items?: Array<{ key?: { value?: unknown; range?: [number, number, number] } }> } | null;
      if (!node?.range) continue;
      if (key !== undefined && depth === path.length && YAML.isMap(node)) {
        const pair = node.items?.find((item) => (item.key as { value?: unknown } | undefined)?.value === key);
        if (pair?.key?.range) return position(pair.key.range[0]);
      }
      return position(node.range[0]);
    }
    return {};
  };

  // An unquoted "*" key confuses YAML's own message (it starts an alias): name the real mistake.
  const bareStars = text.split(/\r?\n/).flatMap((line, index) => (/^\s*\*\s*:/.test(line) ? [{ line: index + 1, column: line.indexOf('*') + 1 }] : []));
  if (doc.errors.length && bareStars.length) {
    throw new DesiredFileError(file, bareStars.map((at) => ({ ...at, at: '', message: 'a bare * starts an alias in YAML', hint: 'quote it: "*"' })));
  }
  if (doc.errors.length) {
    throw new DesiredFileError(file, doc.errors.map((error) => {
      const [start] = error.linePos ?? [];
      return { line: start?.line, column: start?.col, at: '', message: error.message.split('\n')[0].replace(/ at line \d+, column \d+.*$/, '') };
    }));
  }
  try {
    return { data: doc.toJS({ maxAliasCount: 1000 }) ?? {}, positionOf };
  } catch (error) {
    const message = (error as Error).message;
    throw new DesiredFileError(file, [{ at: '', message: /alias/i.test(message) ? `${message} (quote "*": a bare * starts an alias in YAML)` : message }]);
  }
}

/** What the JSON Schema finds wrong, one problem per place, and those places: the values there are not read further. */
async function schemaProblems({ data, positionOf }: YamlFile): Promise<{ problems: Problem[]; malformed: Path[] }> {
  const validate = await schemaValidator();
  const problems: Problem[] = [];
  const malformed: Path[] = [];
  if (validate(data)) return { problems, malformed };
  const reported = new Set<string>();
  for (const error of relevant(validate.errors ?? [])) {
    const key = error.keyword === 'additionalProperties' ? String(error.params.additionalProperty) : undefined;
    // One problem per place: an enum that is not even text is "must be text", not that and "must be one of".
    const place = `${error.instancePath} ${key ?? ''}`;
    if (reported.has(place)) continue;
    reported.add(place);
    const path: Path = error.instancePath.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~')).map((part, i, all) => (/^\d+$/.test(part) && Array.isArray(lookup(data, all.slice(0, i))) ? Number(part) : part));
    problems.push({ ...positionOf(path, key), at: showPath(key ? [...path, key] : path), ...describe(error) });
    malformed.push(key ? [...path, key] : path);
  }
  return { problems, malformed };
}

const startsWith = (path: Path, prefix: Path): boolean => prefix.length <= path.length && prefix.every((part, i) => part === path[i]);

/**
 * Reads the values of the file's sections, each by its field kind as the command-line flags are, and adds what is
 * wrong with them to the problems; a value where the schema found a problem is reported already, and left as it is.
 */
class ValueReader {
  constructor(
    private readonly yaml: YamlFile,
    private readonly malformed: Path[],
    private readonly problems: Problem[],
    readonly local: LocalFiles,
  ) {}

  /** The schema found a problem at this place or around it: its shape cannot be trusted. */
  insideMalformed(path: Path): boolean {
    return this.malformed.some((bad) => startsWith(path, bad));
  }

  /** The schema found a problem at this place, around it or inside it. */
  touchesMalformed(path: Path): boolean {
    return this.insideMalformed(path) || this.malformed.some((bad) => startsWith(bad, path));
  }

  /** The scopes of `projects:` or `groups:`, their patterns checked and their sections read. */
  scopes(level: 'project' | 'group', map: Record<string, unknown> | undefined): Scope[] {
    const top = level === 'project' ? 'projects' : 'groups';
    if (this.insideMalformed([top])) return [];
    return Object.entries(map ?? {}).map(([pattern, body], order) => {
      const path: Path = [top, pattern];
      const problem = patternProblem(pattern);
      if (problem) this.problems.push({ ...this.yaml.positionOf(path.slice(0, 1), pattern), at: showPath(path), message: problem });
      const scope = (this.insideMalformed(path) ? {} : (body ?? {})) as Record<string, unknown>;
      const sections: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(scope)) {
        if (key === 'inherit' || this.insideMalformed([...path, key])) continue;
        sections[key] = this.section(sectionOf(level, key)!, value, [...path, key]);
      }
      return { pattern, inherit: scope.inherit !== false, sections, order };
    });
  }

  /** The sections of `instance:`. */
  instance(map: Record<string, unknown> | undefined): Record<string, unknown> {
    const sections = (this.insideMalformed(['instance']) ? undefined : map) ?? {};
    return Object.fromEntries(
      Object.entries(sections)
        .filter(([key]) => !this.insideMalformed(['instance', key]))
        .map(([key, value]) => [key, this.section(sectionOf('instance', key)!, value, ['instance', key])]),
    );
  }

  /** Each target names a group's projects or some projects: a path pattern, never "*". */
  checkTargets(targets: string[], listed: boolean): void {
    targets.forEach((target, index) => {
      const problem = patternProblem(target);
      if (problem || target === '*') this.problems.push({ ...this.yaml.positionOf(listed ? ['target', index] : ['target']), at: 'target', message: problem ?? 'cannot be "*": name the group (group/**) or the projects' });
    });
  }

  /** A section's value by its shape: one record, a map of them by name, or a list of them (none declared twice). */
  private section(section: Section, value: unknown, path: Path): unknown {
    if (value === null) return null;
    if (section.shape === 'one') return this.record(section, value as Record<string, unknown>, path);
    if (section.shape === 'map') {
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, entry]) => [name, entry === null || this.insideMalformed([...path, name]) ? entry : this.record(section, entry as Record<string, unknown>, [...path, name])]));
    }
    const items = (value as Array<Record<string, unknown>>).map((item, index) => (this.insideMalformed([...path, index]) ? item : this.record(section, item, [...path, index])));
    const seen = new Map<string, number>();
    items.forEach((item, index) => {
      const key = identityKey(section, item);
      if (seen.has(key)) this.problems.push({ ...this.yaml.positionOf([...path, index]), at: showPath([...path, index]), message: `declares the same ${section.noun} as item ${seen.get(key)} (${identityWords(section)})` });
      else seen.set(key, index);
    });
    return items;
  }

  /** One record's fields, each parsed by its kind (secret references as they are), then the section's own check. */
  private record(section: Section, value: Record<string, unknown>, path: Path): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    let ok = true;
    for (const [key, raw] of Object.entries(value)) {
      // A value the schema found wrong is reported already; the others are checked beside it.
      if (this.touchesMalformed([...path, key])) {
        ok = false;
        continue;
      }
      const spec = section.fields[key] ?? section.other;
      const masked = maskedPlaceholder(raw);
      if (masked) {
        ok = false;
        this.problems.push({ ...this.yaml.positionOf([...path, key]), at: showPath([...path, key]), message: `holds ${masked}, a masked value from forgectl's output, not the value itself`, hint: 'give the secret as a reference instead: {env: VARIABLE}, {file: PATH} or {command: …}' });
        continue;
      }
      try {
        values[key] = spec?.parse && !isSecretRef(raw) ? spec.parse(raw, key) : raw;
      } catch (error) {
        ok = false;
        this.fail([...path, key], error);
      }
    }
    if (!ok || !section.check) return values;
    try {
      return section.check(values, this.local, section.shape === 'map' ? String(path.at(-1)) : undefined);
    } catch (error) {
      this.fail(error instanceof FieldProblem ? [...path, error.field] : path, error);
      return values;
    }
  }

  private fail(path: Path, error: unknown): void {
    if (!(error instanceof UsageError)) throw error;
    this.problems.push({ ...this.yaml.positionOf(path), at: showPath(path), message: error.message, hint: error.hint });
  }
}

/** A URL whose user or password is the mask redaction puts there (https://*****:*****@host/…). */
const MASKED_USERINFO = new RegExp(`^[a-z][\\w+.-]*://[^/?#@]*${URL_MASK.replace(/\*/g, '\\*')}[^/?#@]*@`, 'i');

/**
 * A placeholder forgectl's own output puts where a secret was ([REDACTED], a URL's ***** user or password), found in
 * a value: a file saved from masked output would otherwise send the placeholder as the secret.
 */
export function maskedPlaceholder(value: unknown): string | undefined {
  if (typeof value === 'string') {
    if (value.includes(REDACTED)) return REDACTED;
    return MASKED_USERINFO.test(value) ? `a URL whose user or password is ${URL_MASK}` : undefined;
  }
  if (isSecretRef(value)) return undefined;
  if (Array.isArray(value)) return value.map(maskedPlaceholder).find(Boolean);
  if (value && typeof value === 'object') return Object.values(value).map(maskedPlaceholder).find(Boolean);
  return undefined;
}

function lookup(data: unknown, path: string[]): unknown {
  return path.reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), data);
}

const sortProblems = (problems: Problem[]): Problem[] => [...problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));

/** What is wrong with a scope pattern or target: *, group/**, group/project (globs allowed), no empty segments. */
export function patternProblem(pattern: string): string | undefined {
  if (pattern === '*') return undefined;
  if (!pattern.trim() || pattern.startsWith('/') || pattern.endsWith('/') || pattern.includes('//')) return `"${pattern}" is not a path: write group/**, group/project or "*"`;
  if (/\s/.test(pattern)) return `"${pattern}" has white space; paths do not`;
  return undefined;
}
