import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { Api } from '../../api/client.js';
import { projects } from '../../resources/projects/resource.js';
import { groups } from '../../resources/groups/resource.js';
import { ALL_ENVIRONMENTS, unmaskable, VARIABLE_KEY, variables, type Variable } from '../../resources/variables/resource.js';
import type { Context } from '../../cli/command.js';
import { ApiError, CliError, ExitCode, UsageError } from '../../errors.js';
import { afterRotationHint } from './shared.js';

/**
 * Save targets beyond the profile and a file: a CI/CD variable (`ci-var:`) and a helper command (`exec:`). Each is
 * written once the new token is in the recovery file, and each write is verified; `tokens recover` finishes those
 * that were not written. The token is never on a command line or in any output: a helper gets it on stdin.
 */

/** The settings of a variable a ci-var target may name (`?protected=false&type=file`). */
export interface CiVarSettings {
  protected?: boolean;
  masked?: boolean;
  hidden?: boolean;
  raw?: boolean;
  variable_type?: 'env_var' | 'file';
}

/** What a variable forgectl creates for a token gets, unless the target names other settings. */
const NEW_VARIABLE: Required<CiVarSettings> = { protected: true, masked: true, hidden: true, raw: true, variable_type: 'env_var' };

/** `ci-var:PROJECT_OR_GROUP/KEY[?scope=ENV&protected=false…]`, resolved against the service before rotating. */
export interface CiVarTarget {
  /** As given on the command line (messages; never holds a secret). */
  spec: string;
  /** Full path of the project or group. */
  path: string;
  /** project or group: asked of the service when the path could be either. */
  owner?: 'project' | 'group';
  key: string;
  scope: string;
  /**
   * The settings the target names. A variable that exists keeps the others; a new one gets NEW_VARIABLE's. (Recovery
   * files of earlier versions have no `settings`, only `protected`.)
   */
  settings?: CiVarSettings;
  protected?: boolean;
}

/** `exec:COMMAND`: a helper run with `sh -c`, the token on its stdin. */
export interface ExecTarget {
  spec: string;
  command: string;
}

export type ExtraTarget = { ciVar: CiVarTarget } | { exec: ExecTarget };

/** Parses one --save-to value (exit 2 for anything else; nothing sent). */
export function parseSaveTo(value: string, previous: ExtraTarget[] = []): ExtraTarget[] {
  if (value.startsWith('exec:')) {
    const command = value.slice('exec:'.length).trim();
    if (!command) throw new UsageError('--save-to exec: needs a command, e.g. exec:\'pass insert -m forge/bot\'');
    return [...previous, { exec: { spec: value, command } }];
  }
  if (value.startsWith('ci-var:')) {
    const [where, query = ''] = value.slice('ci-var:'.length).split('?', 2);
    const slash = where.lastIndexOf('/');
    const key = where.slice(slash + 1);
    const path = where.slice(0, Math.max(slash, 0)).replace(/^\/+|\/+$/g, '');
    if (slash < 1 || !path || !VARIABLE_KEY.test(key)) {
      throw new UsageError(`--save-to ${value}: give ci-var:PROJECT_OR_GROUP/KEY, e.g. ci-var:acme/BOT_TOKEN or ci-var:acme/api/DEPLOY_TOKEN?scope=production (KEY: letters, digits and _)`);
    }
    const target: CiVarTarget = { spec: value, path, key, scope: ALL_ENVIRONMENTS, settings: {} };
    for (const pair of query ? query.split('&') : []) {
      const [name, raw = ''] = pair.split('=', 2);
      const text = decodeURIComponent(raw);
      if (name === 'scope' && text) target.scope = text;
      else if (['protected', 'masked', 'hidden', 'raw'].includes(name) && ['true', 'false'].includes(text)) target.settings![name as 'protected'] = text === 'true';
      else if (name === 'type' && ['env_var', 'file'].includes(text)) target.settings!.variable_type = text as 'env_var' | 'file';
      else throw new UsageError(`--save-to ${value}: unknown setting "${pair}"; known: scope=ENVIRONMENT, protected=true|false, masked=true|false, hidden=true|false, raw=true|false, type=env_var|file`);
    }
    if (target.settings!.hidden && target.settings!.masked === false) throw new UsageError(`--save-to ${value}: a hidden variable is masked; leave out masked=false`);
    if (previous.some((t) => 'ciVar' in t && t.ciVar.path === path && t.ciVar.key === key && t.ciVar.scope === target.scope)) {
      throw new UsageError(`--save-to ${value} is given twice`);
    }
    return [...previous, { ciVar: target }];
  }
  throw new UsageError(`--save-to ${value}: give ci-var:PROJECT_OR_GROUP/KEY or exec:COMMAND (the profile: --save-to-profile; a file: --output-file)`);
}

/** How a target is named in messages and in the recovery file's progress. */
export const targetName = (target: ExtraTarget): string => ('ciVar' in target ? `CI/CD variable ${ciVarLabel(target.ciVar)}` : `helper ${target.exec.command}`);

export const ciVarLabel = (t: CiVarTarget): string => `${t.key} of ${t.owner ?? 'namespace'} ${t.path}${t.scope === ALL_ENVIRONMENTS ? '' : ` (scope ${t.scope})`}`;

const routes = (owner: 'project' | 'group') => variables.parents[owner].routes;
const params = (t: CiVarTarget) => ({ [t.owner!]: t.path, key: t.key });

/**
 * Before anything is sent: a path that could be a project or a group is asked of the service (a project first: a
 * group and a project never share a full path), and the caller must be able to read the variables there. Returns
 * the variable as it is now (undefined when it does not exist yet).
 */
export async function resolveCiVar(api: Api, t: CiVarTarget): Promise<Variable | undefined> {
  if (!t.owner) {
    const kinds: Array<'project' | 'group'> = t.path.includes('/') ? ['project', 'group'] : ['group'];
    for (const kind of kinds) {
      try {
        await (kind === 'project' ? api.call(projects.routes.get, { project: t.path }) : api.call(groups.routes.get, { group: t.path }));
        t.owner = kind;
        break;
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 404) throw withNothingSent(error, t);
      }
    }
    if (!t.owner) {
      throw new CliError(`--save-to ${t.spec}: no project or group ${t.path} is visible to this token (it does not exist, or the token may not see it)`, ExitCode.notFound, 'nothing was sent: the token was not rotated');
    }
  }
  try {
    return await api.call<Variable>(routes(t.owner).get, { ...params(t), filter: { environment_scope: t.scope } });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw withNothingSent(error, t);
  }
}

function withNothingSent(error: unknown, t: CiVarTarget): unknown {
  if (!(error instanceof CliError)) return error;
  const status = error instanceof ApiError ? error.status : undefined;
  const why = status === 403 ? ' (saving a CI/CD variable needs the Maintainer role there)' : '';
  const hint = status === 401
    ? `nothing was sent: the token was not rotated. The token in use is rejected (revoked or expired). ${afterRotationHint()}`
    : 'nothing was sent: the token was not rotated';
  return new CliError(`--save-to ${t.spec}: ${error.message}${why}`, error.exitCode, hint);
}

/** The settings a target names (older recovery files name only `protected`). */
const namedSettings = (t: CiVarTarget): CiVarSettings => t.settings ?? (t.protected === undefined ? {} : { protected: t.protected });

/** The settings a variable will have after the write: its own (or a new one's), then those the target names. */
function settingsAfter(t: CiVarTarget, existing: Variable | undefined): Required<CiVarSettings> {
  const named = namedSettings(t);
  if (!existing) return { ...NEW_VARIABLE, hidden: named.hidden ?? named.masked ?? true, ...named };
  const own = { protected: existing.protected, masked: existing.masked, hidden: Boolean(existing.hidden), raw: existing.raw, variable_type: existing.variable_type } as Required<CiVarSettings>;
  return { ...own, ...named };
}

/** What a ci-var target will do, told before anything is sent: notes for stderr, and whether its value can be read back. */
export interface CiVarCheck {
  notes: string[];
  /** Not hidden: its value can be read back (a copy of the token someone can get at). */
  readable: boolean;
}

/**
 * Checks a ci-var target before rotating: where it is, that it may be written, which settings change (a variable that
 * exists keeps its own unless the target names others) and whether its value can be read back afterwards.
 */
export async function preflightCiVar(api: Api, t: CiVarTarget): Promise<CiVarCheck> {
  const existing = await resolveCiVar(api, t);
  const named = namedSettings(t);
  const after = settingsAfter(t, existing);
  const label = `CI/CD variable ${ciVarLabel(t)}`;
  if (after.hidden && !after.masked) throw new UsageError(`--save-to ${t.spec}: ${label} is hidden, so it stays masked; leave out masked=false`, 'nothing was sent');
  if (!existing) return { notes: [], readable: !after.hidden };
  if (existing.hidden && named.hidden === false) {
    throw new UsageError(`--save-to ${t.spec}: ${label} is hidden, and a variable stays hidden`, 'nothing was sent. Leave out hidden=false, or delete the variable to have it created visible');
  }
  const notes: string[] = [];
  if (!existing.hidden) {
    notes.push(`${label} exists and is not hidden: its value is replaced, and stays readable by maintainers (a variable is hidden only when created; delete it once to have it made hidden)`);
  }
  const changes = (Object.keys(named) as Array<keyof CiVarSettings>)
    .filter((field) => field !== 'hidden' && existing[field] !== after[field])
    .map((field) => `${field} ${JSON.stringify(existing[field])} → ${JSON.stringify(after[field])}`);
  if (changes.length) notes.push(`${label}: ${changes.join(', ')}`);
  if (!after.masked) notes.push(`${label} is not masked: the token would show in job logs (add masked=true to the target to mask it)`);
  return { notes, readable: !existing.hidden };
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Writes the token into the variable and verifies the write. A variable that exists gets the new value and the
 * settings the target names, and keeps its others; a new one is created masked, hidden, protected and raw unless the
 * target says otherwise. A variable that is not hidden is read back and compared by SHA-256; a hidden one cannot be
 * read back, so the service's answer to the write is checked instead (its key, scope and settings). Returns how it
 * was verified.
 */
export async function writeCiVar(api: Api, t: CiVarTarget, token: string): Promise<string> {
  const existing = await resolveCiVar(api, t);
  const after = settingsAfter(t, existing);
  const unfit = after.masked ? unmaskable(token, after.raw) : undefined;
  if (unfit) throw new Error(`the token ${unfit}`);
  const { hidden, ...visible } = after;
  const answer = existing
    ? await api.call<Variable>(routes(t.owner!).update, { ...params(t), value: token, ...withoutHidden(namedSettings(t)), filter: { environment_scope: t.scope } }, { redact: ['value'] })
    : await api.call<Variable>(routes(t.owner!).create, {
        [t.owner!]: t.path, key: t.key, value: token, environment_scope: t.scope, ...visible, masked_and_hidden: hidden, description: 'access token, rotated by forgectl',
      }, { redact: ['value'] });
  if (answer.key !== t.key || (answer.environment_scope !== undefined && answer.environment_scope !== t.scope)) {
    throw new Error(`the service answered with another variable (${answer.key}, scope ${answer.environment_scope ?? '?'})`);
  }
  const differs = (Object.keys(visible) as Array<keyof typeof visible>).filter((field) => answer[field] !== undefined && answer[field] !== after[field]);
  if (differs.length) throw new Error(`the service answered with other settings: ${differs.map((field) => `${field} ${JSON.stringify(answer[field])}`).join(', ')}`);
  if (answer.hidden) {
    if (!answer.masked || answer.value !== null) throw new Error('the service answered that the variable is hidden but not masked');
    return 'hidden: verified by the service\'s answer';
  }
  const back = await api.call<Variable>(routes(t.owner!).get, { ...params(t), filter: { environment_scope: t.scope } });
  if (back.value === null || sha256(back.value) !== sha256(token)) throw new Error('reading it back gives another value');
  return 'read back';
}

/** A variable's hidden setting is chosen once, when it is created: an update never sends it. */
function withoutHidden(settings: CiVarSettings): Omit<CiVarSettings, 'hidden'> {
  const { hidden: _once, ...rest } = settings;
  return rest;
}

/** The environment of a helper: what the token is, never the token itself (that comes on stdin). */
export interface HelperFacts {
  name?: string;
  id?: number;
  expires_at?: string | null;
  instance: string;
}

const HELPER_TIMEOUT_MS = 120_000;

/**
 * Runs a helper with `sh -c COMMAND`: the token and a newline on its stdin; FORGECTL_ROTATED_ACTION=store,
 * FORGECTL_ROTATED_NAME, _ID, _EXPIRES_AT, _INSTANCE and _SHA256 (of the token) in its environment. Exit 0 means
 * stored. Its output goes to stderr with the token's value, should it print it, replaced by [REDACTED].
 */
export async function runHelper(ctx: Context, target: ExecTarget, token: string, facts: HelperFacts): Promise<string> {
  const env: NodeJS.ProcessEnv = {
    ...ctx.env,
    FORGECTL_ROTATED_ACTION: 'store',
    FORGECTL_ROTATED_NAME: facts.name ?? '',
    FORGECTL_ROTATED_ID: facts.id === undefined ? '' : String(facts.id),
    FORGECTL_ROTATED_EXPIRES_AT: facts.expires_at ?? '',
    FORGECTL_ROTATED_INSTANCE: facts.instance,
    FORGECTL_ROTATED_SHA256: sha256(token),
  };
  const child = spawn('/bin/sh', ['-c', target.command], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const redact = (chunk: Buffer): string => chunk.toString('utf8').split(token).join('[REDACTED]');
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += redact(chunk)));
  child.stderr.on('data', (chunk: Buffer) => (output += redact(chunk)));
  child.stdin.on('error', () => undefined); // a helper that exits without reading
  child.stdin.end(`${token}\n`);
  const timer = setTimeout(() => child.kill('SIGTERM'), HELPER_TIMEOUT_MS);
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal }));
  }).finally(() => clearTimeout(timer));
  for (const line of output.split('\n').filter(Boolean).slice(-20)) ctx.io.note(`helper: ${line}`);
  if (code !== 0) throw new Error(signal ? `it was ended by ${signal}` : `it exited ${code ?? '?'}`);
  return 'exit 0';
}
