import type { IncomingMessage } from 'node:http';
import { errors } from './http.js';

export const MAX_BODY = 20 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw errors.message(413, '413 Request Entity Too Large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Rails-style nested keys: a[b]=1, a[]=1 (query strings and form bodies). */
export function parseParams(search: URLSearchParams): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [key, value] of search) assignNested(out, key, value);
  return out;
}

function assignNested(target: Record<string, any>, key: string, value: unknown): void {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!match || !match[2]) {
    target[key] = value;
    return;
  }
  const keys = [match[1], ...[...match[2].matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1])];
  let node: any = target;
  keys.forEach((k, index) => {
    const last = index === keys.length - 1;
    if (k === '') {
      if (!Array.isArray(node)) return;
      if (last) node.push(value);
      else {
        node.push({});
        node = node[node.length - 1];
      }
      return;
    }
    if (last) node[k] = value;
    else {
      node[k] ??= keys[index + 1] === '' ? [] : {};
      node = node[k];
    }
  });
}

export interface ParsedBody {
  body: unknown;
  params: Record<string, any>;
  files: Record<string, { filename: string; contentType: string; data: Buffer }>;
}

/** JSON, form-urlencoded and multipart bodies, as the service accepts all three. */
export function parseBody(raw: Buffer, contentType: string | undefined): ParsedBody {
  const type = (contentType ?? '').toLowerCase();
  if (!raw.length) return { body: undefined, params: {}, files: {} };
  if (type.includes('multipart/form-data')) return parseMultipart(raw, type);
  if (type.includes('application/x-www-form-urlencoded')) {
    const params = parseParams(new URLSearchParams(raw.toString('utf8')));
    return { body: params, params, files: {} };
  }
  const text = raw.toString('utf8');
  if (type.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      const body = JSON.parse(text);
      return { body, params: body && typeof body === 'object' && !Array.isArray(body) ? body : {}, files: {} };
    } catch {
      throw errors.message(400, '400 Bad request - invalid JSON body');
    }
  }
  return { body: text, params: {}, files: {} };
}

function parseMultipart(raw: Buffer, type: string): ParsedBody {
  const boundary = /boundary="?([^";]+)"?/.exec(type)?.[1];
  if (!boundary) throw errors.message(400, '400 Bad request - multipart boundary missing');
  const params: Record<string, any> = {};
  const files: ParsedBody['files'] = {};
  const delimiter = Buffer.from(`--${boundary}`);
  let position = raw.indexOf(delimiter);
  while (position !== -1) {
    const start = position + delimiter.length;
    if (raw.subarray(start, start + 2).toString() === '--') break;
    const next = raw.indexOf(delimiter, start);
    if (next === -1) break;
    const part = raw.subarray(start + 2, next - 2); // skip CRLF after the delimiter and before the next
    const headerEnd = part.indexOf('\r\n\r\n');
    const headerText = part.subarray(0, headerEnd).toString('utf8');
    const data = part.subarray(headerEnd + 4);
    const name = /name="([^"]*)"/i.exec(headerText)?.[1];
    const filename = /filename="([^"]*)"/i.exec(headerText)?.[1];
    const partType = /content-type:\s*([^\r\n]+)/i.exec(headerText)?.[1] ?? 'application/octet-stream';
    if (name !== undefined) {
      if (filename !== undefined) files[name] = { filename, contentType: partType, data: Buffer.from(data) };
      else assignNested(params, name, data.toString('utf8'));
    }
    position = next;
  }
  return { body: params, params, files };
}
