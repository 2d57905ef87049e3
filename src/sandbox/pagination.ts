import { errors, HttpError, type SandboxRequest, type SandboxResponse } from './http.js';

/** Above this many records real instances omit X-Total, X-Total-Pages and rel="last". */
export const COUNT_LIMIT = 10_000;
export const OFFSET_LIMIT = 50_000;

function linkUrl(req: SandboxRequest, params: Record<string, string | number>): string {
  const url = new URL(`${req.baseUrl}${req.rawPath}`);
  for (const [key, value] of Object.entries(req.query)) {
    if (Array.isArray(value)) value.forEach((v) => url.searchParams.append(`${key}[]`, String(v)));
    else if (value && typeof value === 'object') Object.entries(value).forEach(([k, v]) => url.searchParams.append(`${key}[${k}]`, String(v)));
    else if (value !== undefined) url.searchParams.set(key, String(value));
  }
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, String(value));
  return url.toString();
}

export interface PaginateOptions<T> {
  /** Keyset support: the cursor field and how records compare; absent → 405 for pagination=keyset. */
  keyset?: { orderBy: string[]; id: (record: T) => number };
  /** Endpoints that also offer keyset refuse offsets past 50,000 (405); the value names the records' type. */
  offsetLimit?: 'User' | 'Project';
  /** Endpoints that never count (commit refs): no totals at all. */
  withoutCount?: boolean;
  /** Records are rendered only for the page served (administrator fields etc.). */
  present?: (record: T) => unknown;
}

/** What a page is cut from: an array, or a view of one that copies nothing (a table read backwards). */
export interface Sequence<T> {
  readonly length: number;
  at(index: number): T | undefined;
  slice(start: number, end: number): T[];
}

/** A list read from its end, without copying it: a page costs one page's worth, however long the list. */
export function backwards<T>(items: readonly T[]): Sequence<T> {
  const last = items.length - 1;
  return {
    length: items.length,
    at: (index) => (index >= 0 && index <= last ? items[last - index] : undefined),
    slice(start, end) {
      const page: T[] = [];
      for (let index = Math.max(0, start); index < Math.min(end, items.length); index++) page.push(items[last - index]);
      return page;
    },
  };
}

/** Serves one page of `items` with the headers of api-facts §3 (offset or keyset). */
export function paginate<T>(req: SandboxRequest, items: Sequence<T> | readonly T[], options: PaginateOptions<T> = {}): SandboxResponse {
  const perPage = Math.min(100, Math.max(1, Number(req.query.per_page) || 20));
  const present = options.present ?? ((record: T) => record);
  if (req.query.pagination === 'keyset') {
    if (!options.keyset) throw errors.error(405, 'Keyset pagination is not yet available for this type of request');
    return keysetPage(req, Array.isArray(items) ? items : items.slice(0, items.length), perPage, options.keyset, present);
  }
  const page = Math.max(1, Number(req.query.page) || 1);
  const offset = (page - 1) * perPage;
  if (options.offsetLimit && offset + perPage > OFFSET_LIMIT && offset > 0) {
    throw new HttpError(405, {
      error: `Offset pagination has a maximum allowed offset of ${OFFSET_LIMIT} for requests that return objects of type ${options.offsetLimit}. Remaining records can be retrieved using keyset pagination.`,
    });
  }
  const slice = items.slice(offset, offset + perPage);
  const total = items.length;
  const counted = !options.withoutCount && total <= COUNT_LIMIT;
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  const hasNext = offset + perPage < total;
  const headers: Record<string, string> = {
    'X-Page': String(page),
    'X-Per-Page': String(perPage),
    'X-Next-Page': hasNext ? String(page + 1) : '',
    'X-Prev-Page': page > 1 ? String(page - 1) : '',
  };
  const links: string[] = [];
  if (page > 1) links.push(`<${linkUrl(req, { page: page - 1, per_page: perPage })}>; rel="prev"`);
  if (hasNext) links.push(`<${linkUrl(req, { page: page + 1, per_page: perPage })}>; rel="next"`);
  links.push(`<${linkUrl(req, { page: 1, per_page: perPage })}>; rel="first"`);
  if (counted) {
    headers['X-Total'] = String(total);
    headers['X-Total-Pages'] = String(totalPages);
    links.push(`<${linkUrl(req, { page: totalPages, per_page: perPage })}>; rel="last"`);
  }
  headers.Link = links.join(', ');
  return { status: 200, body: slice.map(present), headers };
}

function keysetPage<T>(
  req: SandboxRequest,
  items: T[],
  perPage: number,
  keyset: NonNullable<PaginateOptions<T>['keyset']>,
  present: (record: T) => unknown,
): SandboxResponse {
  const orderBy = String(req.query.order_by ?? 'id');
  if (!keyset.orderBy.includes(orderBy)) throw errors.error(405, 'Keyset pagination is not yet available for this type of request');
  const sort = String(req.query.sort ?? 'desc') === 'asc' ? 'asc' : 'desc';
  const after = req.query.id_after !== undefined ? Number(req.query.id_after) : req.query.cursor ? decodeCursor(String(req.query.cursor)) : undefined;
  const ordered = [...items].sort((a, b) => (sort === 'asc' ? keyset.id(a) - keyset.id(b) : keyset.id(b) - keyset.id(a)));
  const start = after === undefined ? 0 : ordered.findIndex((r) => (sort === 'asc' ? keyset.id(r) > after : keyset.id(r) < after));
  const slice = start < 0 ? [] : ordered.slice(start, start + perPage);
  const headers: Record<string, string> = {};
  const last = slice[slice.length - 1];
  const more = start >= 0 && start + perPage < ordered.length;
  if (last !== undefined && more) {
    const cursor = Buffer.from(JSON.stringify({ id: String(keyset.id(last)), _kd: 'n' })).toString('base64url');
    const url = new URL(linkUrl(req, { per_page: perPage, cursor }));
    url.searchParams.delete('id_after');
    url.searchParams.delete('page');
    headers.Link = `<${url.toString()}>; rel="next"`;
  }
  return { status: 200, body: slice.map(present), headers };
}

function decodeCursor(cursor: string): number | undefined {
  try {
    const id = Number((JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { id: string }).id);
    return Number.isFinite(id) ? id : undefined;
  } catch {
    throw errors.invalid('cursor');
  }
}
