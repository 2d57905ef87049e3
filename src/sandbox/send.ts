import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Fault } from './faults.js';
import type { SandboxResponse } from './http.js';

/** Writing answers: JSON, text or raw bodies, streamed downloads, and the faults that act on a body. */

export function drop(res: ServerResponse): void {
  res.socket?.destroy();
}

export function send(res: ServerResponse, response: SandboxResponse, extra: Record<string, string> = {}, headOnly = false, fault?: Fault): void {
  const headers: Record<string, string> = { 'X-Request-Id': randomUUID().replace(/-/g, '').slice(0, 26), 'X-Runtime': '0.010000', ...extra, ...response.headers };
  if (response.stream) return void sendStream(res, response.status, headers, response.stream, headOnly, fault).catch(() => res.socket?.destroy());
  let payload: Buffer | string = '';
  if (response.raw) {
    headers['Content-Type'] = response.raw.contentType;
    payload = response.raw.data;
  } else if (response.body !== undefined && response.status !== 204) {
    if (typeof response.body === 'string' && response.status >= 400) {
      headers['Content-Type'] = 'text/plain';
      payload = response.body;
    } else {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(response.body);
    }
  }
  // In chunks, Node frames the body itself (Transfer-Encoding: chunked) when no Content-Length is set.
  if (!fault?.chunked) headers['Content-Length'] = String(Buffer.byteLength(payload));
  res.writeHead(response.status, headers);
  if (fault?.corrupt && payload.length) {
    const bytes = Buffer.from(payload);
    bytes[bytes.length >> 1] ^= 0xff;
    payload = bytes;
  }
  if (fault?.chunked && !headOnly) {
    // Three chunks of about a third each (the last one a byte short when the body is cut).
    const bytes = Buffer.from(payload).subarray(0, fault.drop === 'body' ? -1 : undefined);
    const third = Math.max(1, Math.ceil(bytes.length / 3));
    for (let at = 0; at < bytes.length; at += third) {
      const last = at + third >= bytes.length;
      // Cut: the connection closes once the last chunk is written, without the chunk that ends the body.
      res.write(bytes.subarray(at, at + third), last && fault.drop === 'body' ? () => res.socket?.destroy() : undefined);
    }
    if (fault.drop !== 'body') res.end();
    else if (!bytes.length) res.socket?.destroy();
    return;
  }
  if (fault?.drop === 'body') {
    res.write(Buffer.from(payload).subarray(0, -1), () => res.socket?.destroy());
    return;
  }
  res.end(headOnly ? undefined : payload);
}

/**
 * Writes a streamed body as the client reads it (backpressure). Faults act on it as on any body: 'body' cuts it one
 * byte short, corrupt flips the byte in the middle.
 */
async function sendStream(res: ServerResponse, status: number, headers: Record<string, string>, stream: NonNullable<SandboxResponse['stream']>, headOnly: boolean, fault?: Fault): Promise<void> {
  res.writeHead(status, { ...headers, 'Content-Type': stream.contentType, 'Content-Length': String(stream.size) });
  if (headOnly) return void res.end();
  const cutShort = fault?.drop === 'body';
  const middle = fault?.corrupt ? stream.size >> 1 : -1;
  let sent = 0;
  const end = cutShort ? stream.size - 1 : stream.size;
  for await (const chunk of stream.chunks) {
    if (res.destroyed) return;
    let part = chunk.subarray(0, Math.max(0, end - sent));
    if (middle >= sent && middle < sent + part.length) {
      part = Buffer.from(part);
      part[middle - sent] ^= 0xff;
    }
    sent += part.length;
    if (part.length && !res.write(part)) {
      await new Promise<void>((resolve) => {
        res.once('drain', resolve);
        res.once('close', resolve);
      });
    }
    if (sent >= end) break;
  }
  if (cutShort) res.socket?.destroy();
  else res.end();
}
