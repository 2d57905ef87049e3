import { GraphQLError } from 'graphql';
import { recordOrder, sortRecords } from '../listing.js';

/**
 * Connections as the service pages them: keyset cursors (base64 of the sort key, `{"created_at":"…","id":"42"}`),
 * `first`/`after` forwards and `last`/`before` backwards, 100 records a page at most and by default, `count` of the
 * whole collection.
 */

export const MAX_PAGE_SIZE = 100;

export interface PageArguments {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** The order of a collection: by one field of its records (or by id alone), ties broken by id. */
export interface Order<T> {
  field?: keyof T & string;
  descending: boolean;
}

type Keyed = { id: number } & Record<string, unknown>;

/** A cursor's sort key as a record of its own, which the collection's order compares with its records. */
function decode(cursor: string, field: string | undefined): Keyed {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    const id = Number(key.id);
    if (Number.isInteger(id) && (field === undefined || field in key)) return { ...key, id };
  } catch {
    // An unreadable cursor is answered below like one that names other fields.
  }
  throw new GraphQLError('Please provide a valid cursor');
}

/** One page of `records`, put in the collection's order, with its edges, nodes, pageInfo and count. */
export function connection<T extends { id: number }>(records: readonly T[], args: PageArguments, order: Order<T>, present: (record: T) => unknown): Record<string, unknown> {
  const key = (record: Keyed | T): string | number | null => (order.field === undefined ? null : ((record as Keyed)[order.field] as string | number | null));
  const sort = order.descending ? 'desc' : 'asc';
  const sorted = sortRecords(records, key, sort);
  const compare = recordOrder<Keyed | T>(key, sort);
  const encode = (record: T): string => Buffer.from(JSON.stringify({ ...(order.field === undefined ? {} : { [order.field]: key(record) }), id: String(record.id) })).toString('base64url');
  const firstAfter = (cursor: Keyed, strictly: boolean): number => {
    const index = sorted.findIndex((record) => compare(record, cursor) > (strictly ? 0 : -1));
    return index === -1 ? sorted.length : index;
  };
  const from = args.after ? firstAfter(decode(args.after, order.field), true) : 0;
  const to = Math.max(from, args.before ? firstAfter(decode(args.before, order.field), false) : sorted.length);
  const size = (wanted: number | null | undefined): number => Math.min(Math.max(wanted ?? MAX_PAGE_SIZE, 0), MAX_PAGE_SIZE);
  const backwards = args.last !== undefined && args.last !== null && (args.first === undefined || args.first === null);
  const start = backwards ? Math.max(from, to - size(args.last)) : from;
  const end = backwards ? to : Math.min(to, from + size(args.first));
  const page = sorted.slice(start, end);
  const cursors = page.map(encode);
  const nodes = page.map(present);
  return {
    count: sorted.length,
    nodes,
    edges: nodes.map((node, index) => ({ cursor: cursors[index], node })),
    pageInfo: {
      hasNextPage: end < to,
      hasPreviousPage: start > 0 && (start > from || Boolean(args.after)),
      startCursor: cursors[0] ?? null,
      endCursor: cursors[cursors.length - 1] ?? null,
    },
  };
}
