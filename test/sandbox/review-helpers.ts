import type { TestSandbox } from '../helpers/cli.js';

/** Raw HTTP against a test sandbox, as a third-party client would call it. */
export function caller(sandbox: () => TestSandbox) {
  return async (method: string, path: string, body?: unknown, token?: string) => {
    const response = await fetch(`${sandbox().url}${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': token ?? sandbox().adminToken, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  };
}
