import { UsageError } from './errors.js';
import { readLocalFile } from './files.js';

/** `key=value` fields into a JSON object, as `api -f/-F` and `alerts send --field` take them. */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** -F value typing: numbers, booleans and null become JSON values, @file reads a file (@- stdin). */
export async function typedValue(value: string, readStdin: () => Promise<string>): Promise<Json> {
  if (value.startsWith('@')) return value === '@-' ? readStdin() : readLocalFile(value.slice(1), 'utf8');
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(value) && Number.isFinite(Number(value))) return Number(value);
  return value;
}

/** key=value pairs into an object; `key[]=v` collects an array, `a[b]=v` nests. */
export function assignField(target: Record<string, Json>, key: string, value: Json): void {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!match) throw new UsageError(`invalid field name "${key}"`);
  const keys = [match[1], ...[...match[2].matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1])];
  let node: Record<string, Json> | Json[] = target;
  keys.forEach((k, index) => {
    const last = index === keys.length - 1;
    const container = node as Record<string, Json>;
    if (k === '') {
      if (!Array.isArray(node)) throw new UsageError(`invalid field name "${key}"`);
      if (last) node.push(value);
      return;
    }
    if (last) {
      container[k] = value;
    } else {
      const nextIsArray = keys[index + 1] === '';
      container[k] ??= nextIsArray ? [] : {};
      node = container[k] as Record<string, Json> | Json[];
    }
  });
}
