import type { Context } from '../../cli/command.js';
import { assignField, typedValue, type Json } from '../../json-fields.js';
import { UsageError } from '../../errors.js';
import { withoutSecretValues } from '../../resources/variables/resource.js';
import { JsonAnswer } from '../../output/result.js';

/** What `api` takes, for a REST path and for graphql alike. */
export interface ApiOptions {
  path: string;
  method?: string;
  rawField?: string[];
  field?: string[];
  header?: string[];
  input?: string;
  paginate?: boolean;
  include?: boolean;
  showValues?: boolean;
}

function splitPair(pair: string, flag: string): [string, string] {
  const index = pair.indexOf('=');
  if (index <= 0) throw new UsageError(`${flag} takes key=value, got "${pair}"`);
  return [pair.slice(0, index), pair.slice(index + 1)];
}

/** -f (strings) and -F (typed: numbers, booleans, null, @file) into one object; `a[b]=v` nests, `a[]=v` collects. */
export async function buildFields(opts: ApiOptions, ctx: Context): Promise<Record<string, Json>> {
  const fields: Record<string, Json> = {};
  for (const pair of opts.rawField ?? []) {
    const [key, value] = splitPair(pair, '-f');
    assignField(fields, key, value);
  }
  for (const pair of opts.field ?? []) {
    const [key, value] = splitPair(pair, '-F');
    assignField(fields, key, await typedValue(value, () => ctx.io.readStdin()));
  }
  return fields;
}

/** -H "Name: value" headers, checked as HTTP allows them: a token for the name, no control characters in the value. */
export function parseHeaders(given: string[] = []): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const header of given) {
    const index = header.indexOf(':');
    const name = header.slice(0, index).trim();
    const value = header.slice(index + 1).trim();
    if (index <= 0 || !/^[!#$%&'*+.^`|~\w-]+$/.test(name)) throw new UsageError(`-H takes "Name: value", got "${header}"`);
    if (/[^\t\x20-\x7e\x80-\xff]/.test(value)) throw new UsageError(`-H ${name}: the value may not contain control characters (such as line breaks) or characters beyond Latin-1`);
    headers[name.toLowerCase()] = value;
  }
  return headers;
}

/** -i: the status line and the response headers, before the body. */
export async function printHead(ctx: Context, status: number, headers: Record<string, string | string[] | undefined>): Promise<void> {
  let head = `HTTP ${status}\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${Array.isArray(value) ? value.join(', ') : value}\n`;
  await ctx.io.out(`${head}\n`);
}

/**
 * A JSON answer as printed: masked and hidden CI/CD variable values null unless `show`. jq reads the answer's own
 * text (numbers as written), unless a secret value was taken out of it. Whether one was is seen in the values written
 * as JSON (the copy differs from the answer only where a value became null), not by node:util's deep comparison:
 * loading it cost `api /user` about 1% of its CPU.
 */
export function jsonAnswer(value: unknown, text: string, show: boolean): JsonAnswer {
  if (show) return new JsonAnswer(value, text);
  const shown = withoutSecretValues(value);
  const written = JSON.stringify(shown);
  return new JsonAnswer(shown, written === JSON.stringify(value) ? text : written);
}
