import { defineCommand, type Context } from '../../cli/command.js';
import { concurrencyOption, DEFAULT_CONCURRENCY, shardOptions } from '../../cli/fleet-options.js';
import { findUsers } from '../../api/lookups.js';
import { ExitCode, UsageError } from '../../errors.js';
import { orderedPool } from '../../fleet/pool.js';
import { Progress } from '../../fleet/progress.js';
import { startBudget } from '../../fleet/shard.js';
import { ResultWithExit, TextResult } from '../../output/result.js';
import { parseList, plural } from '../../parse.js';
import { SCHEMA_MODELINE } from '../../desired/export.js';
import { complete, CONDITIONS, type AccessRow, type Condition, type Place } from './grants.js';
import { desiredMembers } from './as-desired.js';
import { placeRows, placesOf, type Target } from './places.js';
import { AccessReader } from './read.js';
import { userRows } from './user.js';

interface Options extends Target {
  user?: string;
  failOn?: string[];
  asDesired?: boolean;
  concurrency?: number;
  rateLimit?: { limit: number; periodSeconds: number };
}

const COLUMNS = ['place', 'place_type', 'user', 'role', 'via', 'source', 'shared_via', 'expires_at', 'created_by', 'effective', 'findings'];
const FIELDS = ['place', 'place_type', 'user', 'user_id', 'role', 'access_level', 'via', 'source', 'shared_via', 'link_role', 'member_role', 'expires_at', 'created_by', 'created_at', 'external', 'effective', 'findings'];

export default defineCommand<Options>({
  effect: 'read',
  description: [
    'Who can reach what, and how. --user: every group and project the user reaches (administrators), with the role,',
    'how it comes (direct; inherited from a group above; shared, through a group the place or a group above it was',
    'shared with, at most at the share\'s role and until its expiry), the expiry and who granted it. --group: the',
    'matrix of the group and its projects (--recursive: its subgroups and theirs too); --project: of one project. One',
    'row per way in; `effective` marks the one that gives the access (the highest still in force). --fail-on exits 9',
    'when a row meets a condition: expired (its expiry has passed), owner, external (the user is external), no-expiry.',
    '--as-desired writes the direct members and shares of each group and project as a desired-state file with',
    'enforce on, for a review-then-apply cycle with plan and apply. Reads --concurrency lists at a time through one',
    'rate limit (--rate-limit), with progress at a terminal.',
  ].join(' '),
  exits: { 9: 'a row meets a --fail-on condition' },
  examples: [
    'forgectl access report --user priya',
    'forgectl access report --group acme --recursive -o csv > acme-access.csv',
    'forgectl access report --project acme/api --fail-on expired,external',
    'forgectl access report --group acme --as-desired > acme-members.yaml && forgectl plan -f acme-members.yaml',
  ],
  options: [
    { flags: '--user <username|id>', description: 'every group and project this user reaches (administrators)' },
    { flags: '--group <id|path>', description: 'the matrix of this group and its projects' },
    { flags: '--project <id|path>', description: 'the matrix of one project' },
    { flags: '--recursive', description: 'with --group: its subgroups and their projects too' },
    { flags: '--fail-on <conditions>', description: `exit 9 when a row meets one of: ${CONDITIONS.join(', ')} (comma-separated)`, parse: parseList },
    { flags: '--as-desired', description: 'with --group or --project: the direct members and shares as a desired-state file (YAML; -o json for JSON)' },
    concurrencyOption,
    shardOptions.find((option) => option.flags.startsWith('--rate-limit'))!,
  ],
  columns: COLUMNS,
  // Where, who and what role say the point of a row; its expiry is never cut.
  columnPriority: { identifying: 'place', whole: ['user', 'role', 'expires_at'] },
  recordFields: FIELDS,
  async run(opts, ctx) {
    const failOn = conditionsOf(opts);
    const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
    startBudget(ctx.rateGate, concurrency, opts.rateLimit, undefined);
    const reader = new AccessReader(ctx);
    const today = ctx.now().toISOString().slice(0, 10);
    let places: Place[] = [];
    let rows: AccessRow[];
    if (opts.user !== undefined) {
      const [user] = await findUsers(ctx.api, [opts.user.replace(/^@/, '')]);
      const progress = new Progress<string>(ctx.io, { verb: 'reading', noun: 'membership' });
      rows = await stopping(progress, () => userRows(ctx, reader, user, concurrency, progress));
    } else {
      places = await placesOf(ctx, reader, opts);
      const progress = new Progress<Place>(ctx.io, { verb: 'reading', noun: 'group or project', nouns: 'groups and projects' }, (place) => place.path);
      rows = await stopping(progress, () => placeRows(reader, places, concurrency, progress));
    }
    rows = complete(rows, await externals(reader, rows, concurrency), today);
    if (opts.asDesired) return desiredOutput(ctx, await desiredMembers(places, rows, reader));
    return outcome(ctx, rows, failOn);
  },
});

function conditionsOf(opts: Options): Condition[] {
  const given = [opts.user, opts.group, opts.project].filter((value) => value !== undefined).length;
  if (given !== 1) throw new UsageError(given ? 'give one of --user, --group and --project' : 'whose access? give --user USER, --group GROUP [--recursive] or --project PROJECT');
  if (opts.recursive && opts.group === undefined) throw new UsageError('--recursive goes with --group');
  if (opts.asDesired && opts.user !== undefined) throw new UsageError('--as-desired goes with --group or --project', 'a desired-state file holds the members of groups and projects');
  if (opts.asDesired && opts.failOn) throw new UsageError('--fail-on does not go with --as-desired', 'check the file with: forgectl plan -f FILE');
  const unknown = (opts.failOn ?? []).filter((condition) => !(CONDITIONS as readonly string[]).includes(condition));
  if (unknown.length) throw new UsageError(`--fail-on: unknown condition ${unknown.join(', ')}`, `known: ${CONDITIONS.join(', ')}`);
  return (opts.failOn ?? []) as Condition[];
}

/** The work, the spinner cleared after it whatever happens. */
async function stopping<T, R>(progress: Progress<T>, work: () => Promise<R>): Promise<R> {
  try {
    return await work();
  } finally {
    progress.stop();
  }
}

/** Whether each user of the rows is external (one read of each user). */
async function externals(reader: AccessReader, rows: AccessRow[], concurrency: number): Promise<Map<number, boolean>> {
  const ids = [...new Set(rows.map((row) => row.user_id))];
  const found = new Map<number, boolean>();
  for await (const outcome of orderedPool(ids, concurrency, (id) => reader.external(id))) {
    if (outcome.status === 'failed') throw outcome.error;
    if (outcome.status === 'ok') found.set(outcome.item, outcome.value);
  }
  return found;
}

async function desiredOutput(ctx: Context, document: Record<string, unknown>): Promise<unknown> {
  if (ctx.format === 'json') return document;
  if (ctx.format !== 'table' && ctx.format !== 'yaml') throw new UsageError(`--as-desired writes YAML or JSON, not ${ctx.format}`);
  const { stringify } = (await import('yaml')).default;
  const header = `${SCHEMA_MODELINE}\n# The members of ${new URL(ctx.connection().rootUrl).host} at ${ctx.now().toISOString()}, by forgectl access report\n`;
  return new TextResult(header + stringify(document, { lineWidth: 0 }));
}

/** The rows; exit 9 with a count when some meet a --fail-on condition. */
function outcome(ctx: Context, rows: AccessRow[], failOn: Condition[]): unknown {
  const users = new Set(rows.map((row) => row.user_id)).size;
  const places = new Set(rows.map((row) => `${row.place_type} ${row.place}`)).size;
  const summary = `${plural(rows.length, 'way')} in for ${plural(users, 'user')} to ${plural(places, 'group or project', 'groups and projects')}`;
  const counts = failOn.map((condition) => [condition, rows.filter((row) => row.findings.includes(condition)).length] as const).filter(([, count]) => count > 0);
  if (!counts.length) {
    ctx.io.note(failOn.length ? `${summary}; none is ${failOn.join(', ')}` : summary);
    return rows;
  }
  const found = counts.map(([condition, count]) => `${plural(count, 'row')} ${condition}`).join(', ');
  return new ResultWithExit(rows, ExitCode.attention, `attention: ${found} (${summary}); FINDINGS (-o json: findings) says which`);
}
