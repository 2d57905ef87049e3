/** What a failed request means in words, and whether it may have reached the server (for the retry policy). */

import { readFileSync } from 'node:fs';
import { fileProblem } from '../write.js';

export interface NetworkFailure {
  message: string;
  hint?: string;
  code?: string;
  /** The request may have reached the server. */
  sentMaybe: boolean;
  /** Retrying cannot help (unknown host, TLS). */
  permanent: boolean;
}

const BEFORE_SEND = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);
const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_|ERR_TLS|ERR_SSL|EPROTO|ERR_OSSL/;
const UNTRUSTED = /SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY_LEAF|CERT_UNTRUSTED|UNABLE_TO_GET_CRL/;
/** Errors undici and Node raise for a connection that broke after the request went out (also mid-body). */
const BROKEN = new Set(['UND_ERR_SOCKET', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_CLOSED', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_ABORTED']);

/** What undici's words for an answer that breaks HTTP/1.1's framing mean (`headerLimit`: the bound in words). */
const FRAMING: Record<string, (headerLimit: string) => string> = {
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: () => 'the answer broke HTTP/1.1 framing: its body does not match its Content-Length (two different lengths, or a wrong one)',
  UND_ERR_HEADERS_OVERFLOW: (headerLimit) => `the answer's headers are too large to read (over ${headerLimit})`,
};
const NODE_HEADER_LIMIT = "Node's limit, 16 KiB unless --max-http-header-size says otherwise";

/** One line: OpenSSL and proxies answer with several. */
function line(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** The error code of a network failure (undici wraps the socket's error in `cause`). */
export function failureCode(error: unknown): string | undefined {
  const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  return err?.code && err.code !== 'UND_ERR_SOCKET' ? err.code : (err?.cause?.code ?? err?.code);
}

/** True for errors that are network failures (raised while connecting, sending or reading a body). */
export function isNetworkFailure(error: unknown): boolean {
  const code = failureCode(error);
  return Boolean(code && (BEFORE_SEND.has(code) || BROKEN.has(code) || TLS_CODES.test(code)));
}

/** How a request was sent, for what its failure means. */
export interface FailureContext {
  /** The proxy the request went through (credentials masked). */
  proxy?: string;
  /** The header block the request's client reads, in bytes, when it is not Node's. */
  headerLimit?: number;
  /** NODE_EXTRA_CA_CERTS, when set. */
  extraCa?: string;
}

/**
 * What to do about a certificate this machine does not trust. With NODE_EXTRA_CA_CERTS set, it says what became of
 * that file (Node warns at start when it cannot load it): suggesting the variable again would not help.
 */
function untrustedHint(extraCa: string | undefined): string {
  const withCaFile = 'add the CA with --ca-file PATH (or ca_file in the profile)';
  if (!extraCa) return `the server's certificate is not signed by a CA this machine trusts: ${withCaFile}, or NODE_EXTRA_CA_CERTS`;
  let text: string;
  try {
    text = readFileSync(extraCa, 'utf8');
  } catch (error) {
    return `the server's certificate is not signed by a CA this machine trusts. NODE_EXTRA_CA_CERTS is set to ${extraCa}, which cannot be read (${fileProblem(error)}), so Node loaded no extra CA from it: correct the path, or ${withCaFile}`;
  }
  const pem = /-----BEGIN CERTIFICATE-----/.test(text);
  return pem
    ? `the server's certificate is not signed by a CA this machine trusts, nor by the CA in NODE_EXTRA_CA_CERTS (${extraCa}, read): ${withCaFile} — the CA that signed this server's certificate`
    : `the server's certificate is not signed by a CA this machine trusts. NODE_EXTRA_CA_CERTS is set to ${extraCa}, which holds no PEM certificate, so Node loaded no extra CA from it: ${withCaFile}`;
}

export function classifyNetworkError(error: unknown, target: { host: string; hostname: string }, timeoutMs: number, context: FailureContext = {}): NetworkFailure {
  const { proxy, headerLimit } = context;
  const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = failureCode(error);
  const host = target.host;
  const via = proxy ? ` (through the proxy ${proxy})` : '';
  if (proxy && (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'UND_ERR_CONNECT_TIMEOUT') && !/tunnel/i.test(err.message ?? '')) {
    return { message: `cannot reach the proxy ${proxy} (${code}) for ${host}`, hint: 'check HTTPS_PROXY / HTTP_PROXY, or list the host in NO_PROXY', code, sentMaybe: false, permanent: false };
  }
  if (proxy && /proxy response|tunnel/i.test(err.message ?? '')) {
    return { message: `the proxy ${proxy} refused to connect to ${host}: ${line(err.message)}`, hint: 'check HTTPS_PROXY / HTTP_PROXY, or list the host in NO_PROXY', code, sentMaybe: false, permanent: true };
  }
  if (code && BEFORE_SEND.has(code)) {
    const text: Record<string, string> = {
      ECONNREFUSED: `connection refused by ${host}`,
      ENOTFOUND: `cannot resolve host ${target.hostname}`,
      EAI_AGAIN: `cannot resolve host ${target.hostname} (DNS temporarily unavailable)`,
      UND_ERR_CONNECT_TIMEOUT: `could not connect to ${host} within ${timeoutMs / 1000}s`,
    };
    const hint = code === 'ECONNREFUSED' ? `nothing listens at ${host}: check the URL and its port (forgectl profile show), and that the instance is up` : undefined;
    return { message: (text[code] ?? `cannot connect to ${host} (${code})`) + via, hint, code, sentMaybe: false, permanent: code === 'ENOTFOUND' };
  }
  // An https:// URL for a server that speaks plain HTTP: OpenSSL reads its answer as a TLS record of an unknown version.
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || /wrong version number/i.test(err.message ?? '')) {
    return { message: `${host} does not answer in TLS: the URL says https://, the server speaks plain HTTP`, hint: 'check the URL\'s scheme and port (forgectl profile show): http:// for a server without TLS', code, sentMaybe: false, permanent: true };
  }
  if (code && TLS_CODES.test(code)) {
    const untrusted = UNTRUSTED.test(code);
    return {
      message: `TLS error talking to ${host}: ${line(err.message || code)}${err.message?.includes(code) ? '' : ` (${code})`}`,
      hint: untrusted ? untrustedHint(context.extraCa) : undefined,
      code,
      sentMaybe: false,
      permanent: true,
    };
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return { message: `no response from ${host} within ${timeoutMs / 1000}s${code === 'UND_ERR_BODY_TIMEOUT' ? ' (the answer stopped part-way)' : ''}`, code, sentMaybe: true, permanent: false };
  }
  const limit = headerLimit ? `${Math.round(headerLimit / 1024)} KiB, the bound for an answer that is sent once` : NODE_HEADER_LIMIT;
  const message = FRAMING[code ?? '']?.(limit) ?? line(err.message || String(error));
  return { message: `connection to ${host} failed: ${message}${code ? ` (${code})` : ''}`, code, sentMaybe: true, permanent: false };
}
