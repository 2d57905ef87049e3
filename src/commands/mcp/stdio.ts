import { StringDecoder } from 'node:string_decoder';
import { Transform, type Readable, type Writable } from 'node:stream';

/**
 * The client's stdin as the SDK's stdio transport reads it, with what is no JSON-RPC message answered here: a line
 * that is not JSON gets a parse error (-32700), JSON that is no request, notification or response (a batch, a
 * request without a method) an invalid request (-32600), with the line's id where it has one, as JSON-RPC 2.0
 * says. The SDK's transport drops such lines without an answer, and a client waiting for the id waits forever.
 */
export function answeringMalformed(stdin: Readable, stdout: Writable): Readable {
  let pending = '';
  // A character may arrive split across chunks: decoded whole, never as two replacement characters.
  const decoder = new StringDecoder('utf8');
  const check = (line: string): boolean => {
    if (!line.trim()) return false;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (error) {
      answer(stdout, null, -32700, `Parse error: ${(error as Error).message}`);
      return false;
    }
    const problem = messageProblem(message);
    if (problem) answer(stdout, idOf(message), -32600, `Invalid Request: ${problem}`);
    return !problem;
  };
  const lines = new Transform({
    transform(chunk: Buffer | string, _encoding, callback) {
      pending += typeof chunk === 'string' ? chunk : decoder.write(chunk);
      const complete = pending.split('\n');
      pending = complete.pop()!;
      const passed = complete.filter((line) => check(line.replace(/\r$/, '')));
      callback(null, passed.length ? `${passed.join('\n')}\n` : undefined);
    },
    flush(callback) {
      pending += decoder.end();
      callback(null, check(pending) ? `${pending}\n` : undefined);
    },
  });
  return stdin.pipe(lines);
}

/** Why a parsed line is no JSON-RPC 2.0 message, or undefined when it is one. */
function messageProblem(message: unknown): string | undefined {
  if (Array.isArray(message)) return 'batches are not supported; send one message a line';
  if (!message || typeof message !== 'object') return 'a message is a JSON object';
  const record = message as Record<string, unknown>;
  if (record.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if ('id' in record && typeof record.id !== 'string' && typeof record.id !== 'number') return 'id must be a string or a number';
  if (typeof record.method === 'string') return undefined;
  if ('method' in record) return 'method must be a string';
  if ('id' in record && ('result' in record || 'error' in record)) return undefined;
  return 'a request needs a method';
}

function idOf(message: unknown): string | number | null {
  const id = message && typeof message === 'object' && !Array.isArray(message) ? (message as Record<string, unknown>).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function answer(stdout: Writable, id: string | number | null, code: number, message: string): void {
  stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
}
