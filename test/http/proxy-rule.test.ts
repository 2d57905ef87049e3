import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { EnvHttpProxyAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noProxySendsDirect, proxyFor, proxyVariable } from '../../src/http/client.js';

/**
 * What forgectl says about a proxy (error messages, doctor) against what undici's EnvHttpProxyAgent, the transport
 * that decides, does: real requests through it to a proxy stub that records what reached it. A request the agent
 * sends direct is pointed at 127.0.0.1 (every name resolves there), where nothing answers on these ports.
 */
let stub: { server: Server; url: string; seen: string[] };

beforeAll(async () => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(502).end();
  });
  server.on('connect', (req, client: Socket) => {
    seen.push(req.url ?? '');
    client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
});

afterAll(() => new Promise<void>((resolve) => stub.server.close(() => resolve())));

type Lookup = (host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => void;
const toLoopback: Lookup = (_host, options, callback) => (options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4));

/**
 * Whether undici sent a request to this origin through the proxy, with this NO_PROXY: the proxy saw a CONNECT to this
 * origin's host and port (undici tunnels http too), whatever other origins the same test sends at the same time.
 */
async function undiciProxies(origin: string, env: { httpProxy?: string; httpsProxy?: string; noProxy: string }): Promise<boolean> {
  const agent = new EnvHttpProxyAgent({ ...env, connect: { lookup: toLoopback, timeout: 2000 } } as ConstructorParameters<typeof EnvHttpProxyAgent>[0]);
  const url = new URL(origin);
  const asSeen = `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
  const before = stub.seen.length;
  try {
    await agent.request({ origin, path: '/', method: 'GET', headersTimeout: 2000 }).then((answer) => answer.body.dump(), () => undefined);
  } finally {
    await agent.destroy();
  }
  return stub.seen.slice(before).includes(asSeen);
}

const NO_PROXY_VALUES = [
  '', '*', 'a,*', '*,a', ' *', '.example.com', '*.example.com', 'example.com', 'example.com:8443', 'example.com:443',
  '127.0.0.1', '[::1]', 'EXAMPLE.COM', 'other.org  example.com', 'other.org, api.example.com', 'ample.com', 'localhost:80',
  '::1', 'fe80::1', '[fe80::1]', '[fe80::1]:443', '2001:db8::10', '[2001:db8::10]',
];
const ORIGINS = [
  'https://example.com', 'https://api.example.com', 'https://Example.com:8443', 'http://example.com:443', 'http://example.com',
  'https://example.org', 'http://a', 'http://127.0.0.1:8443', 'http://[::1]:8443', 'http://localhost', 'https://[fe80::1]',
  'http://[2001:db8::10]:8443',
];

describe('proxy routing: forgectl says what undici does', () => {
  it.each(NO_PROXY_VALUES)('NO_PROXY=%j: the same hosts go through the proxy', async (noProxy) => {
    const env = { HTTPS_PROXY: stub.url, HTTP_PROXY: stub.url, NO_PROXY: noProxy };
    const routes = await Promise.all(ORIGINS.map(async (origin) => {
      const { host, protocol } = new URL(origin);
      const said = !noProxySendsDirect({ host, protocol }, noProxy);
      return { origin, undici: await undiciProxies(origin, { httpProxy: stub.url, httpsProxy: stub.url, noProxy }), said };
    }));
    expect(routes.map(({ origin, said }) => ({ origin, proxied: said }))).toEqual(routes.map(({ origin, undici }) => ({ origin, proxied: undici })));
    // proxyFor (errors, doctor) answers the same, except that forgectl never sends a loopback request through a proxy.
    for (const { origin, undici } of routes) {
      const url = new URL(origin);
      const loopback = /^(127\.|\[::1\]|localhost)/.test(url.host);
      expect(proxyFor(url, env), origin).toBe(undici && !loopback ? stub.url : undefined);
    }
  });

  it('an IPv6 address in NO_PROXY matches only in brackets (what doctor warns about): fe80::1 and ::1 never do, [fe80::1] and [::1] do', async () => {
    const proxied = (origin: string, noProxy: string) => undiciProxies(origin, { httpProxy: stub.url, httpsProxy: stub.url, noProxy });
    expect(await proxied('https://[fe80::1]', 'fe80::1')).toBe(true);
    expect(await proxied('https://[fe80::1]', '[fe80::1]')).toBe(false);
    expect(await proxied('http://[2001:db8::10]:8443', '2001:db8::10')).toBe(true);
    expect(await proxied('http://[2001:db8::10]:8443', '[2001:db8::10]')).toBe(false);
    expect(await proxied('http://[::1]:8443', '::1')).toBe(true);
    expect(await proxied('http://[::1]:8443', '[::1]')).toBe(false);
    // forgectl itself never proxies loopback, whatever NO_PROXY says.
    expect(proxyFor(new URL('http://[::1]:8443'), { HTTP_PROXY: stub.url, NO_PROXY: '::1' })).toBeUndefined();
  });

  it('HTTPS_PROXY, HTTP_PROXY and their lower-case names: the one undici uses is the one forgectl names', () => {
    const cases: Array<[Record<string, string>, string, string | undefined]> = [
      [{ HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:1' }, 'https:', 'https_proxy'],
      [{ HTTPS_PROXY: 'http://upper:1' }, 'https:', 'HTTPS_PROXY'],
      [{ HTTP_PROXY: 'http://h:1' }, 'https:', 'HTTP_PROXY'],
      [{ https_proxy: '', HTTPS_PROXY: 'http://upper:1', http_proxy: 'http://h:1' }, 'https:', 'http_proxy'],
      [{ https_proxy: '', HTTPS_PROXY: 'http://upper:1' }, 'https:', undefined],
      [{ HTTPS_PROXY: 'http://s:1' }, 'http:', undefined],
      [{ http_proxy: '', HTTP_PROXY: 'http://h:1' }, 'http:', undefined],
      [{ HTTP_PROXY: 'http://h:1', http_proxy: 'http://l:1' }, 'http:', 'http_proxy'],
    ];
    expect(cases.map(([env, protocol]) => proxyVariable(protocol, env)?.name)).toEqual(cases.map(([, , name]) => name));
  });

  it('the proxy variables undici reads from the environment: the proxy forgectl names is the one a request reaches', async () => {
    const other = 'http://127.0.0.1:9';
    const cases: Array<[Record<string, string>, string]> = [
      [{ https_proxy: stub.url, HTTPS_PROXY: other }, 'https://example.com'],
      [{ https_proxy: '', HTTPS_PROXY: other, http_proxy: stub.url }, 'https://example.com'],
      [{ HTTP_PROXY: stub.url }, 'https://example.com'],
      [{ http_proxy: stub.url, HTTP_PROXY: other, HTTPS_PROXY: other, https_proxy: '' }, 'http://example.com'],
    ];
    for (const [env, origin] of cases) {
      const saved = { ...process.env };
      for (const name of ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY']) delete process.env[name];
      Object.assign(process.env, env);
      try {
        // No options: undici reads the variables itself.
        expect(await undiciProxies(origin, { noProxy: '' }), JSON.stringify(env)).toBe(true);
      } finally {
        process.env = saved;
      }
      expect(proxyFor(new URL(origin), env), JSON.stringify(env)).toBe(stub.url);
    }
  });
});
