import { ApiError, UsageError } from '../errors.js';
import type { ApiResponse } from './response.js';
import type { Query } from './path.js';

/** What the pages are read through: the client's request() (src/api/client.ts). */
export interface PageSource {
  request<T>(request: { method: 'GET'; path: string; query?: Query }): Promise<ApiResponse<T>>;
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
}

const unchanged = (record: any) => record;
/** The answer each page was parsed from (see ListResult.sentAs). */
const sent = new WeakMap<object, Buffer>();

/** Offsets beyond this many records are refused by the service on endpoints that also support keyset. */
export const OFFSET_LIMIT = 50_000;
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

  /** The records page by page, as they arrive (in order): output is written a page at a time. */
  async *pages(): AsyncGenerator<T[]> {
    const { transform, local } = this;
    let kept = 0;
    for await (const records of this.iterate()) {
      let page = transform === unchanged ? records : records.map(transform);
      if (local) {
        page = page.filter(local.keep);
        if (local.limit !== undefined) page = page.slice(0, local.limit - kept);
        kept += page.length;
      }
      if (page.length) yield page;
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
   * The bytes the service sent for a page that pages() yielded as it came (not cut by --limit, not mapped or
   * filtered): NDJSON output reuses them (and may rewrite them) instead of writing each record again.
   */
  sentAs(page: T[]): Buffer | undefined {
    return sent.get(page);
  }

  private async fetch(pathOrUrl: string, query?: Query): Promise<ApiResponse<T[]>> {
    this.requests++;
    const response = await this.api.request<T[]>({ method: 'GET', path: pathOrUrl, query });
    if (!Array.isArray(response.data)) {
      throw new ApiError('expected a list in the response', response.status, 'GET', this.path, response.header('x-request-id'));
    }
    if (response.body) sent.set(response.data, response.body);
    return response;
  }

  private async *iterate(): AsyncGenerator<T[]> {
    const { all, limit, keysetOnly } = this.options;
    if (keysetOnly && (all || limit !== undefined)) {
      yield* this.followLinks(this.path, { ...this.query, pagination: 'keyset', per_page: this.perPage(100) }, limit);
    } else if (keysetOnly) {
      // Keyset pages have no numbers: the first page, and --all or --limit for more.
      if ((this.options.page ?? 1) > 1) throw new UsageError('--page cannot be used here: the service pages this list by keyset only', 'use --all, or --limit N');
      const response = await this.fetch(this.path, { ...this.query, pagination: 'keyset', per_page: this.options.perPage });
      yield response.data;
      if (nextLink(response)) this.notice = `showing ${response.data.length.toLocaleString('en-US')}; more exist — use --all or --limit`;
    } else if (limit !== undefined) {
      // --limit stops after N records, also with --all (every page up to N records).
      yield* this.followLinks(this.path, { ...this.query, page: this.options.page, per_page: this.perPage(Math.min(100, limit)) }, limit);
    } else if (all) {
      yield* this.allPages();
    } else {
      const response = await this.fetch(this.path, { ...this.query, page: this.options.page, per_page: this.options.perPage });
      yield response.data;
      if (nextLink(response) || nextPage(response)) {
        const total = response.header('x-total');
        // Past the first page, which records these are: "showing 6–10 of 14".
        const page = this.options.page ?? 1;
        const first = (page - 1) * (Number(response.header('x-per-page')) || this.options.perPage || response.data.length) + 1;
        const last = first + response.data.length - 1;
        const shown = page === 1 ? response.data.length.toLocaleString('en-US') : last > first ? `${first.toLocaleString('en-US')}–${last.toLocaleString('en-US')}` : `record ${first.toLocaleString('en-US')}`;
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
  private async *followLinks(path: string, query: Query | undefined, limit?: number): AsyncGenerator<T[]> {
    let count = 0;
    let target: { path: string; query?: Query } | undefined = { path, query };
    while (target) {
      const response = await this.fetch(target.path, target.query);
      const records = limit === undefined ? response.data : response.data.slice(0, limit - count);
      count += records.length;
      if (records.length) yield records;
      if (limit !== undefined && count >= limit) return;
      const link = nextLink(response);
      const page = nextPage(response);
      target = link ? { path: link } : page && response.data.length ? { path: target.path, query: { ...target.query, page } } : undefined;
    }
  }

  /** --all: page 1, then further pages fetched concurrently in a bounded window, yielded in order. */
  private async *allPages(): AsyncGenerator<T[]> {
    const perPage = this.options.perPage ?? 100;
    const concurrency = Math.max(1, this.options.concurrency ?? DEFAULT_CONCURRENCY);
    const keysetAfter = this.options.keysetAfter;
    const lastOffsetPage = keysetAfter ? Math.floor(OFFSET_LIMIT / perPage) : Infinity;
    const pageQuery = (page: number): Query => ({ ...this.query, page, per_page: perPage });

    const first = await this.fetch(this.path, pageQuery(1));
    yield first.data;
    let last: T | undefined = first.data[first.data.length - 1];
    if (!hasMore(first, perPage)) return;
    const totalPages = Number(first.header('x-total-pages')) || undefined;
    const finalPage = Math.min(totalPages ?? Infinity, lastOffsetPage);

    const window: Array<{ page: number; response: Promise<ApiResponse<T[]>> }> = [];
    let nextToFetch = 2;
    // The last page, as soon as any answer shows it (an empty X-Next-Page, a missing next link, a short page),
    // even one that arrived ahead of the pages before it: nothing past it is requested from then on.
    let lastPage = finalPage;
    let reachedEnd = false;
    let offsetRefused = false;
    const fill = (): void => {
      while (window.length < concurrency && nextToFetch <= lastPage) {
        const page = nextToFetch++;
        const response = this.fetch(this.path, pageQuery(page));
        response.then((answer) => {
          if (!hasMore(answer, perPage)) lastPage = Math.min(lastPage, page);
        }, () => undefined); // awaited in order below; an early end must not leave it unhandled
        window.push({ page, response });
      }
    };
    fill();
    while (window.length) {
      const { page, response: pending } = window.shift()!;
      let response: ApiResponse<T[]>;
      try {
        response = await pending;
      } catch (error) {
        if (keysetAfter && error instanceof ApiError && error.status === 405 && /offset/i.test(error.message)) {
          offsetRefused = true;
          break;
        }
        throw error;
      }
      yield response.data;
      if (response.data.length) last = response.data[response.data.length - 1];
      if (!hasMore(response, perPage) || page === totalPages) {
        reachedEnd = true;
        break;
      }
      fill();
    }
    const offsetsExhausted = !reachedEnd && (offsetRefused || nextToFetch > lastOffsetPage);
    if (keysetAfter && offsetsExhausted && last !== undefined) {
      yield* this.followLinks(this.path, { ...this.query, ...keysetAfter(last), pagination: 'keyset', per_page: perPage });
    }
  }
}

function nextLink(response: ApiResponse<unknown>): string | undefined {
  const link = response.header('link');
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part.trim());
    if (match) return match[1];
  }
  return undefined;
}

function nextPage(response: ApiResponse<unknown>): number | undefined {
  const value = response.header('x-next-page');
  return value ? Number(value) || undefined : undefined;
}

function hasMore(response: ApiResponse<unknown[]>, perPage: number): boolean {
  if (response.data.length < perPage) return false;
  const next = response.header('x-next-page');
  if (next !== undefined) return next !== '';
  return Boolean(nextLink(response)) || response.data.length === perPage;
}
