import { routeOf } from '../../api/resource.js';
import { RUNNER_TYPES } from '../../api/resources/runners.js';
import { defineCommand } from '../../cli/command.js';
import { ExitCode } from '../../errors.js';
import { orderedPool } from '../../fleet/pool.js';
import { ResultWithExit } from '../../output/result.js';
import { parseChoice, parseDuration, plural } from '../../parse.js';
import { byId, runnerList, runnerOwners, scopeOptions, type ScopeOptions } from './shared.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The service's own limits: online means contacted within 2 hours; stale, over a week without contact. */
const ONLINE_MS = 2 * HOUR;
const STALE_MS = 7 * DAY;

interface Options extends ScopeOptions {
  stale: string;
  type?: string;
}

interface Brief {
  id: number;
  status: string;
}

interface Runner extends Brief {
  description: string;
  runner_type: string;
  paused: boolean;
  contacted_at: string | null;
  created_at: string;
  projects?: Array<{ path_with_namespace: string }> | null;
  groups?: Array<{ name: string }> | null;
}

const ownerOf = (runner: Runner): string => (runner.runner_type === 'instance_type' ? 'instance' : runnerOwners(runner).join(','));

export default defineCommand<Options>({
  effect: 'read',
  description: [
    'Runners that have not contacted the instance for --stale (default 30d), and never-contacted ones created longer',
    'ago than that, longest idle first, each with the command that removes it. Exit 9 when there are any, 0',
    'otherwise: made for cron and monitoring. Scope as in `runners list` (default: the runners you manage). From a',
    'week on, only the runners the service already calls stale are read one by one.',
  ].join(' '),
  examples: [
    'forgectl runners audit --instance --stale 30d',
    'forgectl runners audit --group acme --stale 90d -o json',
    'forgectl runners audit --project acme/api --type project_type --stale 2w',
  ],
  options: [
    ...scopeOptions,
    { flags: '--stale <duration>', description: 'how long without contact counts as stale: 30d, 8w, 12h', default: '30d', parse: (value: string) => (parseDuration('--stale')(value), value) },
    { flags: '--type <type>', description: `only runners of this type: ${RUNNER_TYPES.join(', ')}`, parse: parseChoice('--type', RUNNER_TYPES) },
  ],
  columns: ['idle_days', 'id', 'description', 'runner_type', 'owner', 'status', 'last_contact', 'fix'],
  async run(opts, ctx) {
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
    const rows: Array<Record<string, unknown>> = [];
    for await (const outcome of orderedPool(candidates, 4, (brief) => ctx.api.call<Runner>(routeOf(byId, 'get'), { runner_id: brief.id }))) {
      if (outcome.status === 'failed') throw outcome.error;
      if (outcome.status !== 'ok') continue;
      const runner = outcome.value;
      const since = Date.parse(runner.contacted_at ?? runner.created_at);
      if (since > cutoff) continue;
      rows.push({
        idle_days: Math.floor((now.getTime() - since) / DAY),
        id: runner.id,
        description: runner.description,
        runner_type: runner.runner_type,
        owner: ownerOf(runner),
        status: runner.status,
        paused: runner.paused,
        last_contact: runner.contacted_at ?? 'never',
        created_at: runner.created_at,
        fix: `forgectl runners delete ${runner.id}`,
      });
    }
    rows.sort((a, b) => Number(b.idle_days) - Number(a.idle_days) || Number(a.id) - Number(b.id));
    const since = new Date(cutoff).toISOString();
    const window = `${opts.stale} (since ${staleMs >= DAY ? since.slice(0, 10) : `${since.slice(0, 16)}Z`})`;
    const checked = staleMs >= STALE_MS ? `checked the ${plural(listed, 'stale runner')} of ${where}` : `checked ${plural(listed, 'runner')} of ${where}`;
    if (!rows.length) {
      ctx.io.note(`no runner without contact for ${window}; ${checked}`);
      return rows;
    }
    return new ResultWithExit(rows, ExitCode.attention, `attention: ${plural(rows.length, 'runner')} without contact for ${window}; ${checked}`);
  },
});
