import { ApiError, CliError, ExitCode, UsageError } from '../errors.js';
import type { ApiResponse } from './response.js';
import type { Query } from './path.js';
import { redactUrl } from '../http/redact.js';
import { sameOrigin } from '../http/url.js';
import { RecordShape } from './record-shape.js';

type PageRequest = { method: 'GET'; path: string; query?: Query; lazy?: boolean; expected?: string };

/** What the pages are read through: the client's request() and url() (src/api/client.ts). */
export interface PageSource {
  request<T>(request: PageRequest): Promise<ApiResponse<T>>;
  url(path: string, query?: Query): string;
}

export interface PageOptions {
  page?: number;
  perPage?: number;
  all?: boolean;
  limit?: number;
}

export interface ListOptions<T = any> extends PageOptions {
  /** The endpoint pages by keyset only (repository tree): follow `Link: rel="next"`. */
  keysetOnly?: boolean;
  /**
   * The endpoint also supports keyset pagination (users, projects): offsets end at 50,000 records, and the rest is
   * fetched by keyset, starting after the last record seen with the query this returns.
   */
  keysetAfter?: (last: T) => Query;
  /** Pages fetched at once by --all. */
  concurrency?: number;
  /**
   * The service counts lists up to this many records (X-Total) and leaves the count out above: a list without one
   * has more, so --all fetches the pages up to that many records at once knowing each of them exists.
   */
  countLimit?: number;
}

/** A page as fetched: its headers and records, and (see ListPage) its records as NDJSON lines. */
interface Fetched<T> {
  header(name: string): string | undefined;
  count: number;
  records(): T[];
  last(): T | undefined;
  lines?(): Buffer;
}

/** A page of a list as it is written. */
export interface ListPage<T> {
  count: number;
  /** The records, parsed when first read. */
  records(): T[];
  /**
   * The records as NDJSON (each as JSON.stringify writes it, and a line feed) made of the page's own bytes, when they
   * are written that way already and the page is as fetched (not mapped, filtered or cut): the page was never parsed.
   * The bytes are given up: read records() first, if at all.
   */
  lines?(): Buffer;
}

const unchanged = (record: any) => record;

/** Offsets beyond this many records are refused by the service on endpoints that also support keyset. */
export const OFFSET_LIMIT = 50_000;
/** Lists of users and projects are counted (X-Total) up to this many records, and not above. */
export const COUNT_LIMIT = 10_000;
const DEFAULT_CONCURRENCY = 8;

/**
 * A lazily fetched list: iterate it to get records in order as pages arrive. After iteration, `notice` says when
 * more records exist than were shown (contract §6: never truncate silently).
 */
export class ListResult<T> implements AsyncIterable<T> {
  notice?: string;
  /** Default columns of table, TSV and CSV output where they depend on what was listed (over the command's). */
  columns?: string[];
  /** Requests made, for tests and benchmarks. */
  requests = 0;

  constructor(
    private readonly api: PageSource,
    private readonly path: string,
    private readonly query: Query,
    readonly options: ListOptions<T>,
    /** Applied to each record as it streams (see map()). */
    private readonly transform: (record: any) => T = unchanged,
    /** A local filter (see filter()) and the number of matches to stop after. */
    private readonly local?: { keep: (record: T) => boolean; limit?: number },
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for await (const page of this.pages()) yield* page;
  }

  /** Every record, in order, as one array: for a list read whole before anything is done with it. */
  async toArray(): Promise<T[]> {
    const records: T[] = [];
    for await (const page of this.pages()) records.push(...page);
    return records;
  }

  /** The records page by page, as they arrive (in order): output is written a page at a time. */
  async *pages(): AsyncGenerator<T[]> {
    for await (const page of this.written(false)) yield page.records();
  }

  /**
   * The pages as they are written; with `asLines`, pages of records that are written as JSON.stringify writes them
   * (see RecordShape) are not parsed, and offer their bytes as NDJSON lines.
   */
  async *written(asLines: boolean): AsyncGenerator<ListPage<T>> {
    const { transform, local } = this;
    this.shape = asLines && transform === unchanged && !local ? null : undefined;
    let kept = 0;
    for await (const fetched of this.iterate()) {
      if (transform === unchanged && !local) {
        if (fetched.count) yield fetched;
        continue;
      }
      let page = fetched.records().map(transform);
      if (local) {
        page = page.filter(local.keep);
        if (local.limit !== undefined) page = page.slice(0, local.limit - kept);
        kept += page.length;
      }
      if (page.length) yield { count: page.length, records: () => page };
      if (local?.limit !== undefined && kept >= local.limit) return;
    }
  }

  /** The same list with each record transformed as it streams (extra columns such as names for numbers). */
  map<U>(transform: (record: T) => U): ListResult<U> {
    if (this.local) throw new Error('map() a list before filter()');
    const inner = this.transform;
    return new ListResult<U>(this.api, this.path, this.query, this.options as ListOptions<unknown> as ListOptions<U>, (record) => transform(inner(record)));
  }

  /**
   * Only the records `keep` accepts (a filter the service does not offer). Every page is read, since matches may be
   * anywhere; --limit counts matches.
   */
  filter(keep: (record: T) => boolean): ListResult<T> {
    const limit = this.local?.limit ?? this.options.limit;
    const both = this.local ? (record: T) => this.local!.keep(record) && keep(record) : keep;
    return new ListResult<T>(this.api, this.path, this.query, { ...this.options, all: true, limit: undefined }, this.transform, { keep: both, limit });
  }

  /**
   * The shape of the records when pages are to be written as NDJSON lines (see written()): null until the first
   * page has been parsed, undefined when pages are always parsed.
   */
  private shape?: RecordShape | null;

  private async fetch(pathOrUrl: string, query?: Query): Promise<Fetched<T>> {
    this.requests++;
    const request: PageRequest = { method: 'GET', path: pathOrUrl, query, lazy: this.shape !== undefined, expected: 'a list' };
    const response = await this.api.request<T[]>(request);
    const ends = this.shape && response.body ? this.shape.recordEnds(response.body) : undefined;
    if (ends) return unparsedPage(response.header, response.body!, ends);
    const data = response.data;
    // A 200 that is not a list (or empty) is a broken answer, as malformed JSON is: a server failure.
    if (!Array.isArray(data)) {
      const what = data === undefined ? 'an empty body' : 'JSON that is not a list';
      throw new CliError(`the server answered ${response.status} with ${what} where a list was expected (GET ${this.path})`, ExitCode.server);
    }
    if (this.shape === null && data.length) this.shape = RecordShape.of(data[0]);
    const lines = this.shape && response.body ? this.shape.recordEnds(response.body) : undefined;
    return { header: response.header, count: data.length, records: () => data, last: () => data[data.length - 1], lines: lines && (() => asLines(response.body!, lines)) };
  }

  private async *iterate(): AsyncGenerator<Fetched<T>> {
    const { all, limit, keysetOnly } = this.options;
    if (keysetOnly && (all || limit !== undefined)) {
      yield* this.followLinks(this.path, { ...this.query, pagination: 'keyset', per_page: this.perPage(100) }, limit);
    } else if (keysetOnly) {
      // Keyset pages have no numbers: the first page, and --all or --limit for more.
      if ((this.options.page ?? 1) > 1) throw new UsageError('--page cannot be used here: the service pages this list by keyset only', 'use --all, or --limit N');
      const response = await this.fetch(this.path, { ...this.query, pagination: 'keyset', per_page: this.options.perPage });
      yield response;
      if (nextLink(response)) this.notice = `showing ${response.count.toLocaleString('en-US')}; more exist — use --all or --limit`;
    } else if (limit !== undefined) {
      // --limit stops after N records, also with --all (every page up to N records).
      yield* this.followLinks(this.path, { ...this.query, page: this.options.page, per_page: this.perPage(Math.min(100, limit)) }, limit);
    } else if (all) {
      yield* this.allPages();
    } else {
      const response = await this.fetch(this.path, { ...this.query, page: this.options.page, per_page: this.options.perPage });
      yield response;
      if (nextLink(response) || nextPage(response)) {
        const total = response.header('x-total');
        // Past the first page, which records these are: "showing 6–10 of 14".
        const page = this.options.page ?? 1;
        const first = (page - 1) * (Number(response.header('x-per-page')) || this.options.perPage || response.count) + 1;
        const last = first + response.count - 1;
        const shown = page === 1 ? response.count.toLocaleString('en-US') : last > first ? `${first.toLocaleString('en-US')}–${last.toLocaleString('en-US')}` : `record ${first.toLocaleString('en-US')}`;
        this.notice = total
          ? `showing ${shown} of ${Number(total).toLocaleString('en-US')} — use --all or --limit`
          : `showing ${shown}; more exist — use --all or --limit`;
      }
    }
  }

  private perPage(fallback: number | undefined): number | undefined {
    return this.options.perPage ?? fallback;
  }

  /** Sequential: follow Link rel="next", falling back to X-Next-Page. */
  private async *followLinks(path: string, query: Query | undefined, limit?: number): AsyncGenerator<Fetched<T>> {
    let count = 0;
    let target: { path: string; query?: Query } | undefined = { path, query };
    while (target) {
      const response = await this.fetch(target.path, target.query);
      const page = limit === undefined || response.count <= limit - count ? response : cut(response, limit - count);
      count += page.count;
      if (page.count) yield page;
      if (limit !== undefined && count >= limit) return;
      const link = nextLink(response);
      if (link) this.checkOrigin(link);
      const next = nextPage(response);
      target = link ? { path: link } : next && response.count ? { path: target.path, query: { ...target.query, page: next } } : undefined;
    }
  }

  /** A link to the next page must stay on the instance: another origin's records are not this instance's data. */
  private checkOrigin(link: string): void {
    const list = this.api.url(this.path);
    const to = new URL(link, list).toString();
    if (sameOrigin(to, list)) return;
    throw new CliError(`the server's link to the next page points to another origin, ${redactUrl(to)}: what it answers is not this instance's data, and the list ends here (GET ${this.path})`, ExitCode.server);
  }

  /** --all: page 1, then further pages fetched concurrently in a bounded window, yielded in order. */
  private async *allPages(): AsyncGenerator<Fetched<T>> {
    const perPage = this.options.perPage ?? 100;
    const concurrency = Math.max(1, this.options.concurrency ?? DEFAULT_CONCURRENCY);
    const keysetAfter = this.options.keysetAfter;
    const lastOffsetPage = keysetAfter ? Math.floor(OFFSET_LIMIT / perPage) : Infinity;
    const pageQuery = (page: number): Query => ({ ...this.query, page, per_page: perPage });

    const first = await this.fetch(this.path, pageQuery(1));
    yield first;
    let lastSeen: Fetched<T> | undefined = first.count ? first : undefined;
    if (!hasMore(first, perPage)) return;
    const totalPages = Number(first.header('x-total-pages')) || undefined;
    const finalPage = Math.min(totalPages ?? Infinity, lastOffsetPage);
    // Without a count from a service that counts up to countLimit records, more exist: the pages holding the first
    // countLimit + 1 records all exist. Past them, pages are requested ahead of the answers that show whether they
    // exist (throughput); see the README's Performance section for the trade-off.
    const { countLimit } = this.options;
    const certain = totalPages ? totalPages : countLimit && first.header('x-total') === undefined ? Math.floor(countLimit / perPage) + 1 : 1;

    const window: Array<{ page: number; response: Promise<Fetched<T>> }> = [];
    let nextToFetch = 2;
    // The last page, as soon as any answer shows it (an empty X-Next-Page, a missing next link, a short page),
    // even one that arrived ahead of the pages before it: nothing past it is requested from then on.
    let lastPage = finalPage;
    let reachedEnd = false;
    let offsetRefused = false;
    // Pages past the certain ones are requested once the last certain page says more follow.
    let ahead = certain === 1;
    const fill = (): void => {
      while (window.length < concurrency && nextToFetch <= lastPage && (nextToFetch <= certain || ahead)) {
        const page = nextToFetch++;
        const response = this.fetch(this.path, pageQuery(page));
        response.then((answer) => {
          if (!hasMore(answer, perPage)) lastPage = Math.min(lastPage, page);
          else if (page === certain) ahead = true;
        }, () => undefined); // awaited in order below; an early end must not leave it unhandled
        window.push({ page, response });
      }
    };
    fill();
    while (window.length) {
      const { page, response: pending } = window.shift()!;
      let response: Fetched<T>;
      try {
        response = await pending;
      } catch (error) {
        if (keysetAfter && error instanceof ApiError && error.status === 405 && /offset/i.test(error.message)) {
          offsetRefused = true;
          break;
        }
        throw error;
      }
      yield response;
      if (response.count) lastSeen = response;
      if (!hasMore(response, perPage) || page === totalPages) {
        reachedEnd = true;
        break;
      }
      fill();
    }
    const offsetsExhausted = !reachedEnd && (offsetRefused || nextToFetch > lastOffsetPage);
    const last = lastSeen?.last();
    if (keysetAfter && offsetsExhausted && last !== undefined) {
      yield* this.followLinks(this.path, { ...this.query, ...keysetAfter(last), pagination: 'keyset', per_page: perPage });
    }
  }
}

/**
 * A page matched by the list's record shape, parsed only when its records are read (the last record alone, for keyset
 * paging): `ends` are where its records end.
 */
function unparsedPage<T>(header: (name: string) => string | undefined, body: Buffer, ends: number[]): Fetched<T> {
  let records: T[] | undefined;
  let given = false;
  return {
    header,
    count: ends.length,
    records: () => {
      if (given) throw new Error('the page was given up as lines before its records were read');
      return (records ??= JSON.parse(body.toString('utf8')) as T[]);
    },
    // The last record's bytes stay as they came when the page is given up as lines.
    last: () => records?.at(-1) ?? (JSON.parse(body.toString('utf8', ends.length > 1 ? ends[ends.length - 2] + 1 : 1, ends[ends.length - 1])) as T),
    lines: () => {
      given = true;
      return asLines(body, ends);
    },
  };
}

/** A page's records as NDJSON lines: the `,` after each record and the closing `]` become line feeds, in place. */
function asLines(body: Buffer, ends: number[]): Buffer {
  for (const end of ends) body[end] = 0x0a;
  return body.subarray(1);
}

/** The first `count` records of a page (--limit). */
function cut<T>(page: Fetched<T>, count: number): Fetched<T> {
  const records = page.records().slice(0, count);
  return { header: page.header, count: records.length, records: () => records, last: () => records[records.length - 1] };
}

function nextLink(response: { header(name: string): string | undefined }): string | undefined {
  const link = response.header('link');
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part.trim());
    if (match) return match[1];
  }
  return undefined;
}

function nextPage(response: { header(name: string): string | undefined }): number | undefined {
  const value = response.header('x-next-page');
  return value ? Number(value) || undefined : undefined;
}

function hasMore(response: Fetched<unknown>, perPage: number): boolean {
  if (response.count < perPage) return false;
  const next = response.header('x-next-page');
  if (next !== undefined) return next !== '';
  return Boolean(nextLink(response)) || response.count === perPage;
}
