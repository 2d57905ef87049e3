import { randomBytes } from 'node:crypto';

/** One part of a multipart/form-data body: a plain field, or a file when `filename` is set. */
export interface MultipartPart {
  name: string;
  value: string | Buffer;
  filename?: string;
  contentType?: string;
}

/** Quotes a header parameter value; CR, LF and quotes would break the part header, so they are escaped. */
function quote(value: string): string {
  return `"${value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22')}"`;
}

/**
 * Builds a multipart/form-data body (RFC 7578) for ApiRequest.rawBody: uploads such as secure files.
 * The boundary is random, so it cannot occur inside the file by accident.
 */
export function multipartBody(parts: MultipartPart[]): { data: Buffer; contentType: string } {
  const boundary = `----forgectl${randomBytes(16).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let header = `--${boundary}\r\nContent-Disposition: form-data; name=${quote(part.name)}`;
    if (part.filename !== undefined) header += `; filename=${quote(part.filename)}`;
    header += '\r\n';
    if (part.filename !== undefined || part.contentType) header += `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n`;
    chunks.push(Buffer.from(`${header}\r\n`), Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { data: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
