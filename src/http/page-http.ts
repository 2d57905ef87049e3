import type { Socket } from 'node:net';
import type { PageBuffers } from './page-buffers.js';
/** The error codes undici gives its timeouts, given to the same timeouts here: a failure reads the same whichever client met it. */
const CONNECT_TIMEOUT = 'UND_ERR_CONNECT_TIMEOUT';
const HEADERS_TIMEOUT = 'UND_ERR_HEADERS_TIMEOUT';
const BODY_TIMEOUT = 'UND_ERR_BODY_TIMEOUT';

/**
 * An HTTP/1.1 client of forgectl's own, for GET requests whose answer is read whole into a buffer of a pool: the
 * pages of a list. Node's client costs a request more CPU in its own machinery (request and response objects,
 * header validation, the agent's bookkeeping, a stream and events per chunk) than the bytes cost to move; this one
 * keeps a few keep-alive sockets per origin, writes a request as one string, and reads the answer from bytes: the
 * status line, the headers, and a body framed by Content-Length or in chunks, copied straight from one read buffer
 * per socket (the socket reads into it: no allocation per read) into the page's buffer.
 *
 * It reads only what it knows. An answer outside that — a status below 200, a Content-Encoding, another
 * Transfer-Encoding, a body without a length, headers past 16 KiB, anything it cannot parse — rejects with
 * NotForUs: the caller sends the request again over Node's client, which then serves the rest of the run. A
 * connection that fails (refused, reset, closed before the end of the answer, timed out) rejects with the error
 * Node's client gives in the same case, under the same code, so that the retry policy and the message are today's.
 * Over https it connects with node:tls and the profile's CA and --insecure, as Node's https agent does.
 */
export interface PageAnswer {
  statusCode: number;
  headers: Record<string, string | string[]>;
  /** The whole body: a view of a buffer of the pool (see release). */
  body: Buffer;
  /** Gives the body's buffer back to its pool: nothing may read the body afterwards. Calling it again does nothing. */
  release(): void;
}

export interface PageTarget {
  protocol: string;
  hostname: string;
  /** Host and port as the Host header carries them (the port left out when it is the scheme's default). */
  host: string;
  path: string;
}

/** The answer, or the request, is one this client does not read: send it again over Node's client. */
export class NotForUs extends Error {
  constructor(reason: string) {
    super(`not read by forgectl's own HTTP client: ${reason}`);
    this.name = 'NotForUs';
  }
}

type TlsSettings = { ca?: string[]; rejectUnauthorized?: boolean };

/** What one connection is reading. */
const IDLE = 0;
const HEAD = 1;
const BODY = 2;
const CHUNK_SIZE = 3;
const CHUNK_DATA = 4;
const CHUNK_END = 5;
const TRAILERS = 6;

const READ_SIZE = 64 * 1024;
const MAX_HEAD = 16 * 1024;
const EMPTY = Buffer.alloc(0);
const CR = 0x0d;
const LF = 0x0a;
const HEAD_END = Buffer.from('\r\n\r\n');

/** Headers of which Node's client keeps the first when an answer repeats them (others are joined with ", "). */
const FIRST_ONLY = new Set(['content-type', 'content-length', 'user-agent', 'referer', 'host', 'authorization', 'proxy-authorization', 'if-modified-since', 'if-unmodified-since', 'from', 'location', 'max-forwards', 'retry-after', 'etag', 'last-modified', 'server', 'age', 'expires']);
/** Header values and paths Node's client refuses to send (it throws): such requests are left to it. */
const UNSENDABLE_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const UNSENDABLE_PATH = /[^\x21-\xff]/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Header names as answers spell them, lower-cased once checked (a list's answers repeat the same few). */
const NAMES = new Map<string, string>();

/** A header's name lower-cased; NotForUs when it is not an HTTP token. */
function headerName(raw: string): string {
  let name = NAMES.get(raw);
  if (name === undefined) {
    if (!TOKEN.test(raw)) throw new NotForUs('a header line that is not "name: value"');
    name = raw.toLowerCase();
    if (NAMES.size < 256) NAMES.set(raw, name);
  }
  return name;
}

interface Waiting {
  resolve(answer: PageAnswer): void;
  reject(error: Error): void;
  into: PageBuffers;
}

/** An error as Node's sockets and client give it: a message and a code. */
function failure(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

class Connection {
  readonly socket: Socket;
  private readonly buffer = Buffer.allocUnsafeSlow(READ_SIZE);
  private state = IDLE;
  private waiting?: Waiting;
  /** The header block of the answer being read. */
  private head?: Buffer;
  private headLength = 0;
  private status = 0;
  private headers: Record<string, string | string[]> = {};
  private keepAlive = true;
  private body: Buffer = EMPTY;
  private bodyLength = 0;
  /** Bytes left of the body (Content-Length) or of the current chunk. */
  private remaining = 0;
  private line = '';
  private lineLength = 0;
  private closed = false;
  private usableUntil = Infinity;
  private hint?: string | string[];
  private hintMs = Infinity;
  /** The next read goes straight into the body's buffer (the rest of a Content-Length body). */
  private direct = false;
  /** Reads so far, and how long none came while an answer was awaited (see PageHttp.watch). */
  reads = 0;
  readsSeen = 0;
  stalledMs = 0;

  constructor(
    private readonly client: PageHttp,
    readonly key: string,
    target: PageTarget,
    tls: TlsSettings | undefined,
    session: Buffer | undefined,
  ) {
    const hostname = target.hostname.replace(/^\[|\]$/g, '');
    const https = target.protocol === 'https:';
    const port = Number(/:(\d+)$/.exec(target.host)?.[1] ?? (https ? 443 : 80));
    const onread = {
      // Where the next read goes: the rest of a body straight into its buffer, anything else into the connection's.
      buffer: () => this.nextBuffer(),
      callback: (size: number) => {
        this.read(size);
        return true;
      },
    };
    if (https) {
      const net = process.getBuiltinModule('node:net');
      const socket = process.getBuiltinModule('node:tls').connect({ host: hostname, port, servername: net.isIP(hostname) ? undefined : hostname, ...tls, session, onread } as import('node:tls').ConnectionOptions);
      socket.on('session', (ticket: Buffer) => client.rememberSession(key, ticket));
      this.socket = socket;
    } else {
      this.socket = process.getBuiltinModule('node:net').connect({ host: hostname, port, onread });
    }
    this.socket.setNoDelay(true);
    this.socket.on('error', (error) => this.fail(error));
    // The server ended the connection: no request goes on it any more (one being read fails on 'close').
    this.socket.on('end', () => {
      this.closed = true;
      client.forget(this);
    });
    this.socket.on('close', () => this.closedByPeer());
  }

  /** Whether an answer is awaited. */
  get busy(): boolean {
    return this.waiting !== undefined;
  }

  /** Sends a request (its whole text) and reads the answer. */
  send(text: string, waiting: Waiting): void {
    this.waiting = waiting;
    this.state = HEAD;
    this.headLength = 0;
    // The first tick may come at once: it does not count.
    this.stalledMs = -this.client.tick;
    this.socket.ref();
    this.socket.write(text, 'latin1');
    this.client.watch();
  }

  /** Puts the connection back for the next request; idle, it does not keep the process alive. */
  private idle(hint: string | string[] | undefined): void {
    this.socket.unref();
    // The server closes an idle connection after the time its Keep-Alive header names: not used after a second less.
    if (hint !== this.hint) {
      this.hint = hint;
      const seconds = typeof hint === 'string' ? Number(/timeout=(\d+)/i.exec(hint)?.[1]) : NaN;
      this.hintMs = seconds > 0 ? Math.max(500, seconds * 1000 - 1000) : Infinity;
    }
    this.usableUntil = this.hintMs === Infinity ? Infinity : Date.now() + this.hintMs;
  }

  private nextBuffer(): Buffer {
    if (this.state === BODY && this.remaining >= 4096) {
      this.direct = true;
      return this.body.subarray(this.bodyLength, this.bodyLength + this.remaining);
    }
    this.direct = false;
    return this.buffer;
  }

  /** Whether the connection can take another request (an idle one the server may be closing cannot). */
  get usable(): boolean {
    return !this.closed && !this.socket.destroyed && Date.now() < this.usableUntil;
  }

  /** Bytes read into the buffer: the answer's head, body, chunk framing. */
  private read(size: number): void {
    this.reads++;
    if (this.direct) {
      // Into the body's buffer, at its end (nextBuffer): at most what was left of it.
      this.bodyLength += size;
      this.remaining -= size;
      if (this.remaining === 0) this.answer(false);
      return;
    }
    const bytes = this.buffer;
    let at = 0;
    try {
      while (at < size) {
        switch (this.state) {
          case HEAD:
            at = this.readHead(bytes, at, size);
            break;
          case BODY: {
            const n = Math.min(this.remaining, size - at);
            bytes.copy(this.body, this.bodyLength, at, at + n);
            this.bodyLength += n;
            this.remaining -= n;
            at += n;
            if (this.remaining === 0) this.answer(at < size);
            break;
          }
          case CHUNK_SIZE: {
            const c = bytes[at++];
            if (c === LF) {
              const size = this.chunkSize();
              this.line = '';
              this.lineLength = 0;
              if (size === 0) {
                this.state = TRAILERS;
              } else {
                this.remaining = size;
                if (this.bodyLength + size > this.body.length) this.body = this.waiting!.into.grow(this.body, this.bodyLength, this.bodyLength + size);
                this.state = CHUNK_DATA;
              }
            } else if (++this.lineLength > 1024) {
              throw new NotForUs('a chunk size line past 1 KiB');
            } else {
              this.line += String.fromCharCode(c);
            }
            break;
          }
          case CHUNK_DATA: {
            const n = Math.min(this.remaining, size - at);
            bytes.copy(this.body, this.bodyLength, at, at + n);
            this.bodyLength += n;
            this.remaining -= n;
            at += n;
            if (this.remaining === 0) {
              this.state = CHUNK_END;
              this.lineLength = 0;
            }
            break;
          }
          case CHUNK_END: {
            // The line break after a chunk's data.
            const c = bytes[at++];
            if (c === LF) this.state = CHUNK_SIZE;
            else if (c !== CR || this.lineLength++ > 0) throw new NotForUs('no line break after a chunk');
            break;
          }
          case TRAILERS: {
            // Trailer lines, ignored, up to an empty line.
            const c = bytes[at++];
            if (c === LF) {
              if (this.lineLength === 0) this.answer(at < size);
              this.lineLength = 0;
            } else if (c !== CR) {
              this.lineLength++;
            }
            break;
          }
          default:
            // Bytes while no answer is awaited: the connection is out of step.
            this.close();
            return;
        }
      }
    } catch (error) {
      this.fail(error as Error);
    }
  }

  /** Header bytes up to the empty line; then the framing of the body. Returns the offset after what it used. */
  private readHead(bytes: Buffer, at: number, size: number): number {
    const head = (this.head ??= Buffer.allocUnsafeSlow(MAX_HEAD));
    const from = Math.max(0, this.headLength - 3);
    const n = Math.min(size - at, MAX_HEAD - this.headLength);
    bytes.copy(head, this.headLength, at, at + n);
    this.headLength += n;
    const end = head.subarray(0, this.headLength).indexOf(HEAD_END, from);
    if (end < 0) {
      if (this.headLength >= MAX_HEAD) throw new NotForUs('headers past 16 KiB');
      return at + n;
    }
    const used = end + 4 - (this.headLength - n);
    this.parseHead(head.toString('latin1', 0, end));
    return at + used;
  }

  private parseHead(text: string): void {
    // The status line: HTTP/1.0 or HTTP/1.1, a space, three digits, then a space and a reason, or nothing.
    let eol = text.indexOf('\r\n');
    if (eol < 0) eol = text.length;
    const minor = text.charCodeAt(7);
    const status = Number(text.slice(9, 12));
    if (!text.startsWith('HTTP/1.') || (minor !== 0x30 && minor !== 0x31) || text.charCodeAt(8) !== 0x20 || !/^[1-9]\d\d$/.test(text.slice(9, 12)) || (eol > 12 && text.charCodeAt(12) !== 0x20)) {
      throw new NotForUs(`the status line ${JSON.stringify(text.slice(0, Math.min(eol, 40)))}`);
    }
    this.status = status;
    if (status < 200) throw new NotForUs(`a ${status} answer`);
    // Header lines, "name: value", the value without the space around it; repeated ones as Node's client keeps them.
    const headers: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
    for (let at = eol + 2; at < text.length; at = eol + 2) {
      eol = text.indexOf('\r\n', at);
      if (eol < 0) eol = text.length;
      const colon = text.indexOf(':', at);
      if (colon < 0 || colon > eol) throw new NotForUs('a header line that is not "name: value"');
      const name = headerName(text.slice(at, colon));
      let from = colon + 1;
      let to = eol;
      while (from < to && (text.charCodeAt(from) === 0x20 || text.charCodeAt(from) === 0x09)) from++;
      while (to > from && (text.charCodeAt(to - 1) === 0x20 || text.charCodeAt(to - 1) === 0x09)) to--;
      const value = text.slice(from, to);
      const before = headers[name];
      if (before === undefined) headers[name] = name === 'set-cookie' ? [value] : value;
      else if (name === 'set-cookie') (before as string[]).push(value);
      else if (!FIRST_ONLY.has(name)) headers[name] = `${before as string}${name === 'cookie' ? '; ' : ', '}${value}`;
    }
    this.headers = headers;
    const connection = headers.connection === undefined ? '' : String(headers.connection).toLowerCase();
    this.keepAlive = minor === 0x31 ? !/(^|,)\s*close\s*(,|$)/.test(connection) : /(^|,)\s*keep-alive\s*(,|$)/.test(connection);
    const encoding = headers['content-encoding'];
    if (encoding !== undefined && String(encoding).trim().toLowerCase() !== 'identity') throw new NotForUs(`Content-Encoding: ${String(encoding)}`);
    const transfer = headers['transfer-encoding'];
    const length = headers['content-length'];
    const into = this.waiting!.into;
    this.bodyLength = 0;
    if (this.status === 204 || this.status === 304) {
      this.body = EMPTY;
      this.answer(false);
    } else if (transfer !== undefined) {
      if (String(transfer).trim().toLowerCase() !== 'chunked' || length !== undefined) throw new NotForUs(`Transfer-Encoding: ${String(transfer)}`);
      this.body = into.take(0);
      this.state = CHUNK_SIZE;
      this.line = '';
      this.lineLength = 0;
    } else if (typeof length === 'string' && /^\d{1,15}$/.test(length)) {
      this.remaining = Number(length);
      if (this.remaining > 0x7fffffff) throw new NotForUs(`Content-Length: ${length}`);
      this.body = this.remaining ? into.take(this.remaining) : EMPTY;
      this.state = BODY;
      if (this.remaining === 0) this.answer(false);
    } else {
      throw new NotForUs(length === undefined ? 'a body without a length' : `Content-Length: ${String(length)}`);
    }
  }

  /** The size on a chunk's size line (hexadecimal, extensions after a semicolon ignored). */
  private chunkSize(): number {
    const digits = this.line.replace(/\r$/, '').split(';')[0].trim();
    if (!/^[0-9a-fA-F]{1,8}$/.test(digits)) throw new NotForUs('a malformed chunk size');
    return parseInt(digits, 16);
  }

  /** The answer was read whole: the connection goes back for the next request (or is closed), the caller gets it. */
  private answer(moreBytes: boolean): void {
    const waiting = this.waiting!;
    const body = this.body.subarray(0, this.bodyLength);
    const headers = this.headers;
    this.waiting = undefined;
    this.state = IDLE;
    this.body = EMPTY;
    if (this.keepAlive && !moreBytes && !this.closed) {
      this.idle(headers['keep-alive']);
      this.client.idle(this);
    } else {
      this.close();
    }
    let released = false;
    waiting.resolve({
      statusCode: this.status,
      headers,
      body,
      release: () => {
        if (released) return;
        released = true;
        waiting.into.give(body);
      },
    });
  }

  timedOut(): void {
    if (!this.waiting) return this.close();
    const code = this.socket.connecting ? CONNECT_TIMEOUT : this.state === HEAD ? HEADERS_TIMEOUT : BODY_TIMEOUT;
    this.fail(failure(`timed out after ${this.client.timeoutMs} ms`, code));
  }

  private closedByPeer(): void {
    this.closed = true;
    this.client.forget(this);
    // As Node's client says it: before the answer's headers, "socket hang up"; part-way through its body, "aborted".
    if (this.waiting) this.fail(failure(this.state === HEAD ? 'socket hang up' : 'aborted', 'ECONNRESET'));
  }

  /** Ends the request being read with this error, and the connection with it. */
  private fail(error: Error): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    this.state = IDLE;
    // Closed first, so that no read can come into the body's buffer once it is given back.
    this.close();
    if (!waiting) return;
    if (this.body !== EMPTY) waiting.into.give(this.body);
    this.body = EMPTY;
    waiting.reject(error);
  }

  close(): void {
    this.closed = true;
    this.client.forget(this);
    if (!this.socket.destroyed) this.socket.destroy();
  }

  /** Ends a request still waiting (the client is closed). */
  abandon(): void {
    this.fail(failure('the connection was closed', 'ECONNRESET'));
  }
}

export class PageHttp {
  private readonly free = new Map<string, Connection[]>();
  private readonly all = new Set<Connection>();
  private readonly sessions = new Map<string, Buffer>();
  private watcher?: NodeJS.Timeout;
  /** How often the timeout is checked. */
  readonly tick: number;

  constructor(
    private readonly tls: () => TlsSettings,
    readonly timeoutMs: number,
  ) {
    this.tick = Math.max(50, Math.min(1000, timeoutMs / 8));
  }

  /**
   * GETs `target` with these headers, the body read into a buffer of `into`. Rejects with NotForUs, before
   * anything is sent, for a request Node's client would refuse (a control character in a header), and for an answer
   * this client does not read; with a socket's or Node's error when the connection fails.
   */
  get(target: PageTarget, headers: Record<string, string>, into: PageBuffers): Promise<PageAnswer> {
    if (UNSENDABLE_PATH.test(target.path)) return Promise.reject(new NotForUs('a path Node would refuse'));
    let text = `GET ${target.path} HTTP/1.1\r\nHost: ${target.host}\r\n`;
    for (const name in headers) {
      const value = headers[name];
      if (!TOKEN.test(name) || UNSENDABLE_VALUE.test(value)) return Promise.reject(new NotForUs('a header Node would refuse'));
      text += `${name}: ${value}\r\n`;
    }
    text += 'Connection: keep-alive\r\n\r\n';
    const key = `${target.protocol}//${target.host}`;
    return new Promise<PageAnswer>((resolve, reject) => {
      const free = this.free.get(key);
      let connection = free?.pop();
      while (connection && !connection.usable) {
        connection.close();
        connection = free!.pop();
      }
      (connection ?? this.connect(key, target)).send(text, { resolve, reject, into });
    });
  }

  private connect(key: string, target: PageTarget): Connection {
    const https = target.protocol === 'https:';
    const connection = new Connection(this, key, target, https ? this.tls() : undefined, https ? this.sessions.get(key) : undefined);
    this.all.add(connection);
    return connection;
  }

  /**
   * The timeout, as Node's client applies it (on connecting, on the answer's headers, and between reads of its body),
   * checked by one timer for every connection instead of a timer per socket refreshed on every read: an answer
   * awaited with no read for the timeout fails within an eighth of it (at most a second) past it.
   */
  watch(): void {
    if (this.watcher) return;
    const tick = this.tick;
    this.watcher = setInterval(() => {
      let busy = 0;
      for (const connection of this.all) {
        if (!connection.busy) continue;
        busy++;
        if (connection.reads !== connection.readsSeen) {
          connection.readsSeen = connection.reads;
          connection.stalledMs = 0;
        } else if ((connection.stalledMs += tick) >= this.timeoutMs) {
          connection.timedOut();
        }
      }
      if (!busy) {
        clearInterval(this.watcher);
        this.watcher = undefined;
      }
    }, tick);
    this.watcher.unref();
  }

  /** A connection ready for the next request to its origin (the most recent first). */
  idle(connection: Connection): void {
    const list = this.free.get(connection.key);
    if (list) list.push(connection);
    else this.free.set(connection.key, [connection]);
  }

  /** A connection that closed: never used again. */
  forget(connection: Connection): void {
    this.all.delete(connection);
    const list = this.free.get(connection.key);
    const at = list ? list.indexOf(connection) : -1;
    if (at >= 0) list!.splice(at, 1);
  }

  /** A TLS session to resume on the next connection to the same origin (as Node's https agent does). */
  rememberSession(key: string, session: Buffer): void {
    this.sessions.set(key, session);
  }

  close(): void {
    for (const connection of [...this.all]) connection.abandon();
    this.free.clear();
    clearInterval(this.watcher);
    this.watcher = undefined;
  }
}
