import { routeOf } from '../../api/resource.js';
import { RUNNER_TYPES } from './resource.js';
import { groups } from '../groups/resource.js';
import { projects } from '../projects/resource.js';
import type { Context, OptionDef } from '../../cli/command.js';
import { orderedPool } from '../../fleet/pool.js';
import { parseChoice, parseDuration, plural } from '../../parse.js';
import { byId, describeRunner, runnerList, runnerOwners, type RunnerOwners, type ScopeOptions } from './shared.js';
import { ApiError } from '../../errors.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The service's own limits: online means contacted within 2 hours; stale, over a week without contact. */
const ONLINE_MS = 2 * HOUR;
const STALE_MS = 7 * DAY;

export interface StaleOptions extends ScopeOptions {
  stale: string;
  type?: string;
}

interface Brief {
  id: number;
  status: string;
  description?: string | null;
}

interface Runner extends Brief, RunnerOwners {
  description: string;
  paused: boolean;
  contacted_at: string | null;
  created_at: string;
}

/** A runner without contact for the window, as audit shows it and prune deletes it. */
export interface StaleRunner {
  idle_days: number;
  id: number;
  description: string;
  runner_type: string;
  owner: string;
  status: string;
  paused: boolean;
  last_contact: string;
  created_at: string;
}

/** --stale (the window) and --type: the selection of audit and prune. */
export const staleOption = (fallback?: string): OptionDef => ({
  flags: '--stale <duration>',
  description: 'how long without contact counts as stale: 30d, 8w, 12h',
  ...(fallback ? { default: fallback } : { required: true }),
  parse: (value: string) => (parseDuration('--stale')(value), value),
});
export const typeOption: OptionDef = { flags: '--type <type>', description: `only runners of this type: ${RUNNER_TYPES.join(', ')}`, parse: parseChoice('--type', RUNNER_TYPES) };

/** Where a deletion of stale runners looks: a group's or project's own runners, not the ones it only may use. */
export const deleteScopeOptions: OptionDef[] = [
  { flags: '--instance', description: 'every runner of the instance (administrators)' },
  { flags: '--group <id|path>', description: "the group's own runners (not those of the groups above or the instance's, which it only uses)" },
  { flags: '--project <id|path>', description: "the project's own runners (not its groups' or the instance's, which it only uses)" },
];

/** The group or project whose own runners a deletion may take (--group, --project): not those it only may use. */
export interface OwnScope {
  kind: 'group' | 'project';
  id: number;
}

/** The scope whose own runners are meant, read once by id or path; none for the instance's or the ones you manage. */
export async function ownScope(opts: ScopeOptions, ctx: Context): Promise<OwnScope | undefined> {
  if (opts.group !== undefined) return { kind: 'group', id: (await ctx.api.call<{ id: number }>(groups.routes.get, { group: ctx.group(opts.group), with_projects: false })).id };
  if (opts.project !== undefined) return { kind: 'project', id: (await ctx.api.call<{ id: number }>(projects.routes.get, { project: ctx.project(opts.project) })).id };
  return undefined;
}

/** Whether the runner is the scope's own: a group runner of that group, a project runner of that project. */
const ownedBy = (runner: Runner, scope: OwnScope): boolean =>
  scope.kind === 'group' ? runner.runner_type === 'group_type' && (runner.groups ?? []).some((g) => g.id === scope.id) : runner.runner_type === 'project_type' && (runner.projects ?? []).some((p) => p.id === scope.id);

/**
 * A project runner of the scope's project that other projects use too: deleting it takes it from them all (the
 * service lets only an administrator do it), so a deletion by project leaves it.
 */
const usedByOthers = (runner: Runner, scope: OwnScope): boolean => ownedBy(runner, scope) && scope.kind === 'project' && (runner.projects ?? []).length > 1;

/** A runner a deletion by project leaves, and the other projects that use it. */
export interface SharedRunner extends StaleRunner {
  others: string[];
}

const ownerOf = (runner: Runner): string => (runner.runner_type === 'instance_type' ? 'instance' : runnerOwners(runner).join(','));

/**
 * The runners of a scope that have not contacted the instance for the window (never-contacted ones created longer
 * ago than that), longest idle first, with the words that say what was looked at: `window` ("90d (since
 * 2025-01-01)") and `checked` ("checked the 4 stale runners of the instance").
 */
export async function staleRunners(opts: StaleOptions, ctx: Context, own?: OwnScope): Promise<{ rows: StaleRunner[]; window: string; checked: string; notOwn: StaleRunner[]; shared: SharedRunner[] }> {
  const staleMs = parseDuration('--stale')(opts.stale);
  const now = ctx.now();
  const cutoff = now.getTime() - staleMs;
  const { route, params, where } = runnerList(opts, ctx);
  // What the service's status already rules out: online runners were seen within 2 hours, offline and
  // never-contacted ones within a week. Only the others are read one by one for their time of last contact.
  const query = { ...params, type: opts.type, status: staleMs >= STALE_MS ? 'stale' : undefined };
  const candidates: Brief[] = [];
  let listed = 0;
  for await (const runner of ctx.api.list<Brief>(route, query, { all: true })) {
    listed++;
    if (staleMs < ONLINE_MS || runner.status !== 'online') candidates.push(runner);
  }
  const rows: StaleRunner[] = [];
  const notOwn: StaleRunner[] = [];
  const shared: SharedRunner[] = [];
  const unreadable: Brief[] = [];
  for await (const outcome of orderedPool(candidates, 4, (brief) => ctx.api.call<Runner>(routeOf(byId, 'get'), { runner_id: brief.id }))) {
    if (outcome.status === 'failed') {
      // A group's or project's Maintainer may use the instance's runners but not read them: named, not counted.
      if (outcome.error instanceof ApiError && outcome.error.status === 403) unreadable.push(outcome.item);
      else throw outcome.error;
    }
    if (outcome.status !== 'ok') continue;
    const runner = outcome.value;
    const since = Date.parse(runner.contacted_at ?? runner.created_at);
    if (since > cutoff) continue;
    const row: StaleRunner = {
      idle_days: Math.floor((now.getTime() - since) / DAY),
      id: runner.id,
      description: runner.description,
      runner_type: runner.runner_type,
      owner: ownerOf(runner),
      status: runner.status,
      paused: runner.paused,
      last_contact: runner.contacted_at ?? 'never',
      created_at: runner.created_at,
    };
    if (own && usedByOthers(runner, own)) shared.push({ ...row, others: (runner.projects ?? []).filter((p) => p.id !== own.id).map((p) => p.path_with_namespace) });
    else (own && !ownedBy(runner, own) ? notOwn : rows).push(row);
  }
  const longestIdleFirst = (a: StaleRunner, b: StaleRunner): number => b.idle_days - a.idle_days || a.id - b.id;
  rows.sort(longestIdleFirst);
  notOwn.sort(longestIdleFirst);
  shared.sort(longestIdleFirst);
  if (unreadable.length) ctx.io.note(`not checked, as this token cannot read ${unreadable.length === 1 ? 'it' : 'them'}: ${unreadable.map(describeRunner).join(', ')} (an administrator's forgectl runners audit --instance does)`);
  const since = new Date(cutoff).toISOString();
  const window = `${opts.stale} (since ${staleMs >= DAY ? since.slice(0, 10) : `${since.slice(0, 16)}Z`})`;
  // "of the instance", but "you manage" rather than "of the runners you manage".
  const of = where.startsWith('the runners ') ? where.slice('the runners '.length) : `of ${where}`;
  const checked = staleMs >= STALE_MS ? `checked the ${plural(listed, 'stale runner')} ${of}` : `checked ${plural(listed, 'runner')} ${of}`;
  return { rows, window, checked, notOwn, shared };
}
