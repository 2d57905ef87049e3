import { describe, expect, it } from 'vitest';
import { tokenIn, tokenInResponse } from '../../src/commands/tokens/rotate-request.js';

describe('finding the new token in the first bytes of a rotate answer', () => {
  const body = '{"id":42,"name":"bot","description":"say \\"token\\":\\"not-this\\"","scopes":["api"],"token":"glpat-new\\"x"}';

  it('reads the whole record once the body is complete, and the value alone before', () => {
    expect(tokenIn(body)).toMatchObject({ id: 42, name: 'bot', token: 'glpat-new"x' });
    expect(tokenIn(body.slice(0, -1))).toEqual({ token: 'glpat-new"x' });
    expect(tokenIn(body.slice(0, -4))).toBeUndefined(); // the value is not complete yet
    expect(tokenIn('{"id":42,"description":"say \\"token\\":\\"not-this\\""')).toBeUndefined();
  });

  it('looks only into successful HTTP/1.1 answers, after their headers', () => {
    const head = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
    expect(tokenInResponse(head + body)).toMatchObject({ id: 42, token: 'glpat-new"x' });
    expect(tokenInResponse(head.slice(0, 20))).toBeUndefined();
    expect(tokenInResponse(head + body.slice(0, 30))).toBeUndefined();
    expect(tokenInResponse(`HTTP/1.1 401 Unauthorized\r\n\r\n{"token":"x"}`)).toBeNull();
    expect(tokenInResponse('HTTP/1.1 502 Bad Gateway\r\ncontent')).toBeNull();
  });

  it('finds it after headers that end in bare line feeds (an answer undici refuses, after the service rotated)', () => {
    expect(tokenInResponse(`HTTP/1.1 200 OK\ncontent-length: ${body.length}\n\n${body}`)).toMatchObject({ id: 42, token: 'glpat-new"x' });
    expect(tokenInResponse(`HTTP/1.1 200\r\n\n${body}`)).toMatchObject({ token: 'glpat-new"x' });
    expect(tokenInResponse('HTTP/1.1 401 Unauthorized\n\n{"token":"x"}')).toBeNull();
  });
});
