import { defineCommand, type Context } from '../../cli/command.js';
import { concurrencyOption, DEFAULT_CONCURRENCY, shardOptions } from '../../cli/fleet-options.js';
import { ExitCode, UsageError } from '../../errors.js';
import { Progress } from '../../fleet/progress.js';
import { startBudget } from '../../fleet/shard.js';
import { ResultWithExit, Summarised, TextResult } from '../../output/result.js';
import { parseChoiceList, plural } from '../../parse.js';
import { someOf } from '../../resources/users/shared.js';
import { schemaModeline, shippedSchema } from '../../desired/export.js';
import { complete, CONDITIONS, type AccessRow, type Condition, type Place } from './grants.js';
import { desiredMembers } from './as-desired.js';
import { placeRows, placesOf, type Target } from './places.js';
import { AccessReader } from './read.js';
import { userRows } from './user.js';
import { userRecord } from '../../resources/users/shared.js';

interface Options extends Target {
  user?: string;
  failOn?: Condition[];
  asDesired?: boolean;
  concurrency?: number;
  rateLimit?: { limit: number; periodSeconds: number };
}

/** The columns that show what --fail-on found, whatever the terminal's width. */
const FINDINGS_FIELDS = 'place,user,role,findings';
const COLUMNS = ['place', 'place_type', 'user', 'role', 'via', 'source', 'shared_via', 'expires_at', 'created_by', 'effective', 'findings'];
const FIELDS = ['place', 'place_type', 'user', 'user_id', 'role', 'access_level', 'via', 'source', 'shared_via', 'link_role', 'member_role', 'expires_at', 'created_by', 'created_at', 'external', 'user_state', 'effective', 'findings'];

export default defineCommand<Options>({
  effect: 'read',
  description: [
    'Who can reach what, and how. --user: every group and project the user reaches (administrators), with the role,',
    'how it comes (direct; inherited from a group above; shared, through a group the place or a group above it was',
    'shared with, at most at the share\'s role and until its expiry), the expiry and who granted it. --group: the',
    'matrix of the group and its projects (--recursive: its subgroups and theirs too); --project: of one project. One',
    'row per way in; `effective` marks the one that gives the access (the highest still in force). --fail-on exits 9',
    'when a row meets a condition: expired (its expiry day has come: the service removes a membership at the start of that day), owner, external (the user is external), no-expiry,',
    'inactive (the user is blocked, banned or deactivated, and still a member: an offboarding left unfinished).',
    '--as-desired writes the direct members and shares of each group and project as a desired-state file with',
    'enforce on, for a review-then-apply cycle with plan and apply. Reads --concurrency lists at a time through one',
    'rate limit (--rate-limit), with progress at a terminal.',
  ].join(' '),
  exits: { 4: '--fail-on external without an administrator\'s token (the service does not say who is external)', 9: 'a row meets a --fail-on condition, or a group shared here could not be read' },
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
    { flags: '--fail-on <conditions>', description: `exit 9 when a row meets one of: ${CONDITIONS.join(', ')} (comma-separated)`, parse: parseChoiceList('--fail-on', CONDITIONS) },
    { flags: '--as-desired', description: 'with --group or --project: the direct members and shares as a desired-state file (YAML; -o json for JSON)' },
    concurrencyOption,
    // Its own words: this command is not sharded, so the fleet's "each of N shards takes 1/N" does not apply.
    { ...shardOptions.find((option) => option.flags.startsWith('--rate-limit'))!, description: 'send at most n requests per period (default 60 s) for the whole run' },
  ],
  columns: COLUMNS,
  // Where, who and what role say the point of a row; its expiry is never cut.
  columnPriority: { identifying: 'place', whole: ['user', 'role', 'expires_at'] },
  recordFields: FIELDS,
  ownRecords: true,
  async run(opts, ctx) {
    const failOn = conditionsOf(opts);
    if (opts.asDesired && !['table', 'yaml', 'json'].includes(ctx.format)) throw new UsageError(`--as-desired writes YAML (or JSON with -o json), not ${ctx.format}`);
    const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
    startBudget(ctx.rateGate, concurrency, opts.rateLimit, undefined);
    const run = { ctx, reader: new AccessReader(ctx, concurrency), concurrency, today: ctx.now().toISOString().slice(0, 10), tally: new Tally(failOn, opts.user !== undefined) };
    return opts.user !== undefined ? userReport(run, opts.user) : placesReport(run, opts);
  },
});

interface Run {
  ctx: Context;
  reader: AccessReader;
  concurrency: number;
  today: string;
  tally: Tally;
}

/** The rows of one user, all read before any is shown (a place's rows come from several memberships). */
async function userReport({ ctx, reader, concurrency, today, tally }: Run, name: string): Promise<ResultWithExit | Summarised> {
  // As users get and users offboard name a user: exit 5 when there is none.
  const user = await userRecord(ctx, name);
  const progress = new Progress<string>(ctx.io, { verb: 'reading', noun: 'membership' });
  const rows = await stopping(progress, () => userRows(ctx, reader, user, concurrency, progress));
  for (const row of complete(rows, await reader.externalOf(rows.map((r) => r.user_id)), today)) tally.add(row);
  return tally.rows.length ? tally.settle(ctx, new ResultWithExit(tally.rows, ExitCode.ok)) : tally.nothing();
}

/** The matrix of a group or project: rows out as each place is read, the count and the exit at the end. */
async function placesReport({ ctx, reader, concurrency, today, tally }: Run, opts: Options): Promise<unknown> {
  const places = await placesOf(ctx, reader, opts);
  const progress = new Progress<Place>(ctx.io, { verb: 'reading', noun: 'group or project', nouns: 'groups and projects' }, (place) => place.path);
  const rows = placeRows(reader, places, concurrency, progress, today);
  if (opts.asDesired) {
    const direct: AccessRow[] = [];
    for await (const row of rows) if (row.via === 'direct') direct.push(row);
    return desiredOutput(ctx, await desiredMembers(places, direct, reader));
  }
  // The rows stream out as they are read; the first is awaited here, so that a matrix with none says only that.
  const first = await rows.next();
  if (first.done && !reader.unreadable.size && !reader.unlisted.size) return tally.nothing();
  const streamed = async function* (): AsyncGenerator<AccessRow> {
    if (!first.done) yield tally.add(first.value);
    for await (const row of { [Symbol.asyncIterator]: () => rows }) yield tally.add(row);
    tally.settle(ctx, result, reader.unreadable, reader.unlisted);
  };
  const result = new ResultWithExit(streamed(), ExitCode.ok);
  return result;
}

function conditionsOf(opts: Options): Condition[] {
  const given = [opts.user, opts.group, opts.project].filter((value) => value !== undefined).length;
  if (given !== 1) throw new UsageError(given ? 'give one of --user, --group and --project' : 'whose access? give --user USER, --group GROUP [--recursive] or --project PROJECT');
  if (opts.recursive && opts.group === undefined) throw new UsageError('--recursive goes with --group');
  if (opts.asDesired && opts.user !== undefined) throw new UsageError('--as-desired goes with --group or --project', 'a desired-state file holds the members of groups and projects');
  if (opts.asDesired && opts.failOn) throw new UsageError('--fail-on does not go with --as-desired', 'check the file with: forgectl plan -f FILE');
  return opts.failOn ?? [];
}

/** The work, the spinner cleared after it whatever happens. */
async function stopping<T, R>(progress: Progress<T>, work: () => Promise<R>): Promise<R> {
  try {
    return await work();
  } finally {
    progress.stop();
  }
}

async function desiredOutput(ctx: Context, document: Record<string, unknown>): Promise<unknown> {
  if (ctx.format === 'json') return document;
  const { stringify } = (await import('yaml')).default;
  const header = `${schemaModeline(shippedSchema())}# The members of ${new URL(ctx.connection().rootUrl).host} at ${ctx.now().toISOString()}, by forgectl access report\n`;
  return new TextResult(header + stringify(document, { lineWidth: 0 }));
}

/** What the rows came to: how many, for how many users and places, and how many meet each --fail-on condition. */
class Tally {
  readonly rows: AccessRow[] = [];
  private count = 0;
  private readonly users = new Set<number>();
  private readonly places = new Set<string>();
  private readonly found = new Map<Condition, number>();
  /** The users whose external flag the service did not say (it says it to administrators only). */
  private readonly unsaid = new Set<number>();

  constructor(
    private readonly failOn: Condition[],
    private readonly keep = true,
  ) {}

  add(row: AccessRow): AccessRow {
    if (this.keep) this.rows.push(row);
    this.count++;
    this.users.add(row.user_id);
    this.places.add(`${row.place_type} ${row.place}`);
    if (row.external === null) this.unsaid.add(row.user_id);
    for (const condition of this.failOn) if (row.findings.includes(condition)) this.found.set(condition, (this.found.get(condition) ?? 0) + 1);
    return row;
  }

  /**
   * No row at all, as the other audits that find nothing say it: one line on a terminal, [] for JSON, the line as the
   * notice of an agent's tool result.
   */
  nothing(): Summarised {
    return new Summarised([], this.withNone(NOTHING));
  }

  /**
   * The summary on stderr, or exit 9 naming what was found (or what could not be read: `unreadable` groups shared
   * here, `unlisted` groups above whose members the token may not list).
   */
  settle(ctx: Context, result: ResultWithExit, unreadable = new Set<string>(), unlisted = new Set<string>()): ResultWithExit {
    const counted = this.count ? `${plural(this.count, 'way')} in for ${plural(this.users.size, 'user')} to ${plural(this.places.size, 'group or project', 'groups and projects')}` : NOTHING;
    const missing = [
      ...(unreadable.size ? [`the members of ${someOf([...unreadable])}, shared here but hidden from this token`] : []),
      ...(unlisted.size ? [`the members of ${someOf([...unlisted])}, which this token may not list`] : []),
    ];
    const summary = missing.length ? `${counted}; not counted: ${missing.join('; ')}` : counted;
    // An audit gate that could not look passes nothing: "none is external" would be a claim never checked.
    if (this.failOn.includes('external') && this.unsaid.size) {
      result.exitCode = ExitCode.auth;
      result.message = `error: --fail-on external was not checked: the service tells administrators only whether a user is external (${plural(this.unsaid.size, 'user')} not said; ${summary})\nhint: run it with an administrator's token, or leave external out of --fail-on`;
      return result;
    }
    if (missing.length && !this.found.size) {
      result.exitCode = ExitCode.attention;
      result.message = `attention: ${summary}\nhint: an administrator's token reads every group`;
      return result;
    }
    if (!this.found.size) {
      ctx.io.note(this.withNone(summary));
      return result;
    }
    const found = [...this.found].map(([condition, count]) => `${condition} in ${plural(count, 'row')}`).join(', ');
    result.exitCode = ExitCode.attention;
    // A narrow terminal leaves the findings column out: name the --fields that show it there too.
    result.message = `attention: ${found} (${summary}); the findings column says which (--fields ${FINDINGS_FIELDS} shows them at any width)`;
    return result;
  }

  /** The sentence, saying the --fail-on conditions were looked for and not met. */
  private withNone(summary: string): string {
    return this.failOn.length ? `${summary}; none is ${this.failOn.join(', ')}` : summary;
  }
}

const NOTHING = 'no way in: no membership, direct, inherited or shared';
