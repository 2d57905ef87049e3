import { createHash } from 'node:crypto';
import type { SandboxRequest, SandboxResponse } from './http.js';

/**
 * A download as the service serves it: ETag and Accept-Ranges, and a single byte range (`Range: bytes=a-b`, `a-`,
 * `-n`) answered with 206 and Content-Range, honoured only while `If-Range` still names this content; an
 * unsatisfiable range is 416. HEAD gets the same headers (the server drops the body).
 */
export function serveBytes(req: SandboxRequest, data: Buffer, options: { contentType: string; headers?: Record<string, string>; etag?: string }): SandboxResponse {
  const etag = options.etag ?? `"${createHash('sha256').update(data).digest('hex').slice(0, 32)}"`;
  const headers: Record<string, string> = { ETag: etag, 'Accept-Ranges': 'bytes', ...options.headers };
  const range = header(req, 'range');
  const ifRange = header(req, 'if-range');
  if (!range || (ifRange !== undefined && ifRange !== etag)) return { status: 200, raw: { data, contentType: options.contentType }, headers };
  const match = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
  const total = data.length;
  let start: number | undefined;
  let end: number | undefined;
  if (match && (match[1] || match[2])) {
    if (match[1]) {
      start = Number(match[1]);
      end = match[2] ? Math.min(Number(match[2]), total - 1) : total - 1;
    } else {
      start = Math.max(0, total - Number(match[2]));
      end = total - 1;
    }
  }
  if (start === undefined || end === undefined || start >= total || start > end) {
    return { status: 416, raw: { data: '', contentType: options.contentType }, headers: { ...headers, 'Content-Range': `bytes */${total}` } };
  }
  return { status: 206, raw: { data: data.subarray(start, end + 1), contentType: options.contentType }, headers: { ...headers, 'Content-Range': `bytes ${start}-${end}/${total}` } };
}

function header(req: SandboxRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
