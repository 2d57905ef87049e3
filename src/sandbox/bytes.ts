import { createHash } from 'node:crypto';
import { header, type SandboxRequest, type SandboxResponse } from './http.js';

/**
 * A download as the service serves it: ETag and Accept-Ranges, and a single byte range (`Range: bytes=a-b`, `a-`,
 * `-n`) answered with 206 and Content-Range, honoured only while `If-Range` still names this content; an
 * unsatisfiable range is 416. HEAD gets the same headers (the server drops the body).
 */
export function serveBytes(req: SandboxRequest, data: Buffer, options: { contentType: string; headers?: Record<string, string>; etag?: string }): SandboxResponse {
  const etag = options.etag ?? `"${createHash('sha256').update(data).digest('hex').slice(0, 32)}"`;
  const headers: Record<string, string> = { ETag: etag, 'Accept-Ranges': 'bytes', ...options.headers };
  const total = data.length;
  const range = byteRange(req, total, etag);
  if (range === undefined) return { status: 200, raw: { data, contentType: options.contentType }, headers };
  // A range that does not parse is unsatisfiable here too.
  if (typeof range === 'string') {
    return { status: 416, raw: { data: '', contentType: options.contentType }, headers: { ...headers, 'Content-Range': `bytes */${total}` } };
  }
  const [start, end] = range;
  return { status: 206, raw: { data: data.subarray(start, end), contentType: options.contentType }, headers: { ...headers, 'Content-Range': `bytes ${start}-${end - 1}/${total}` } };
}

/**
 * The single byte range a request asks for, [start, end): undefined for the whole content (no Range, or an If-Range
 * that names other content); 'malformed' for a Range that does not parse, 'unsatisfiable' for one outside the content.
 */
export function byteRange(req: SandboxRequest, total: number, etag: string): [number, number] | undefined | 'malformed' | 'unsatisfiable' {
  const range = header(req, 'range');
  const ifRange = header(req, 'if-range');
  if (!range || (ifRange !== undefined && ifRange !== etag)) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
  if (!match || (!match[1] && !match[2])) return 'malformed';
  const start = match[1] ? Number(match[1]) : Math.max(0, total - Number(match[2]));
  const last = match[1] && match[2] ? Math.min(Number(match[2]), total - 1) : total - 1;
  if (start >= total || start > last) return 'unsatisfiable';
  return [start, last + 1];
}
