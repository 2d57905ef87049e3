import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { connect as connectTcp, isIP } from 'node:net';
import { checkServerIdentity, connect as connectTls, rootCertificates, type PeerCertificate } from 'node:tls';
import { request as httpRequest } from 'node:http';
import { isLoopbackHost } from '../../config/resolve.js';
import { noProxyEntries, proxyFor, proxySettings, proxyVariable } from '../../http/client.js';
import { redactUrl } from '../../http/redact.js';
import { ConfigError, ExitCode } from '../../errors.js';
import { checksOf, fail, pass, skip, warn, type DoctorState, type Outcome } from './check.js';

const PROBE_TIMEOUT_MS = 10_000;
export const CERT_WARNING_DAYS = 14;

function target(state: DoctorState): URL | undefined {
  return state.target ? new URL(state.target.rootUrl) : undefined;
}

const portOf = (url: URL): number => Number(url.port || (url.protocol === 'https:' ? 443 : 80));
const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');
const timeout = (state: DoctorState): number => Math.min(state.target?.timeoutMs ?? PROBE_TIMEOUT_MS, PROBE_TIMEOUT_MS);

async function checkDns(state: DoctorState): Promise<Outcome> {
  const url = target(state);
  if (!url) return skip('no instance configured');
  const host = hostOf(url);
  if (isIP(host)) return pass(`${host} is an address (no lookup)`);
  try {
    const addresses = await lookup(host, { all: true });
    return pass(`${host} → ${addresses.map((entry) => entry.address).join(', ')}`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return fail(`${host} does not resolve (${code})`, 'check the host name in the profile url (forgectl profile set url https://…) and the DNS settings of this machine', ExitCode.server);
  }
}

function checkProxy(state: DoctorState): Outcome {
  const url = target(state);
  if (!url) return skip('no instance configured');
  const configured = proxyVariable(url.protocol, state.ctx.env);
  if (isLoopbackHost(url.hostname)) {
    return pass(configured ? `loopback instance: direct, bypassing the proxy ${redactUrl(configured.value)} (a loopback target is never reached through a proxy)` : 'loopback instance: direct (no proxy set)');
  }
  const proxy = proxyFor(url, state.ctx.env);
  const route = proxy ? `through the proxy ${proxy} (${configured?.name})` : configured ? `direct: ${url.host} is in NO_PROXY` : 'direct (no proxy set)';
  const noProxy = proxySettings(state.ctx.env).no;
  const ranges = configured ? addressRanges(noProxy) : [];
  const bare = configured ? bareIpv6(noProxy) : [];
  const unmatched = [
    ranges.length ? `${ranges.length > 1 ? 'address ranges' : 'an address range'} (${ranges.join(', ')}), which the proxy agent does not support: no host matches ${ranges.length > 1 ? 'them' : 'it'}` : '',
    bare.length ? `${bare.length > 1 ? 'IPv6 addresses' : 'an IPv6 address'} without brackets (${bare.join(', ')}), which the proxy agent does not match: it matches [${bare[0]}]` : '',
    configured && starInList(noProxy) ? '* among other entries, which the proxy agent reads as a host named *: only * as the whole value sends every host direct' : '',
  ].filter(Boolean);
  if (unmatched.length) {
    return warn(
      `${route}; NO_PROXY holds ${unmatched.join('; and ')}`,
      'list the hosts themselves in NO_PROXY: a name (git.corp.example, which covers its subdomains too), a domain (.corp.example), an address (192.0.2.10), an IPv6 address in brackets ([2001:db8::10]), with :PORT to send only that port direct; * alone sends every host direct',
    );
  }
  return pass(route);
}

/** NO_PROXY entries that are address ranges (192.0.2.0/24, 2001:db8::/32): undici's proxy agent matches names only. */
const addressRanges = (noProxy: string): string[] => noProxyEntries(noProxy).filter((entry) => /\/\d{1,3}$/.test(entry));

/**
 * NO_PROXY entries that are IPv6 addresses without brackets (fe80::1): undici's proxy agent compares them with the
 * bracketed host of a URL ([fe80::1]) and reads a trailing :N as a port, so they never match. Loopback ones (::1)
 * are left out: forgectl never sends a loopback request through a proxy.
 */
const bareIpv6 = (noProxy: string): string[] => noProxyEntries(noProxy).filter((entry) => isIP(entry) === 6 && !isLoopbackHost(entry));

/** `*` as one entry of several (`localhost,*`): undici's proxy agent honours `*` only as the whole NO_PROXY value. */
const starInList = (noProxy: string): boolean => noProxy !== '*' && noProxyEntries(noProxy).includes('*');

/** Opens a TCP connection to the instance, or to the proxy that carries its requests. */
async function checkTcp(state: DoctorState): Promise<Outcome> {
  const url = target(state);
  if (!url) return skip('no instance configured');
  const proxy = proxyFor(url, state.ctx.env);
  const to = proxy ? new URL(proxy) : url;
  const host = hostOf(to);
  const port = portOf(to);
  const started = performance.now();
  try {
    await new Promise<void>((resolve, reject) => {
      const socket = connectTcp({ host, port, timeout: timeout(state) });
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('timeout', () => {
        socket.destroy();
        reject(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }));
      });
      socket.once('error', reject);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    const fix = proxy ? 'check HTTPS_PROXY / HTTP_PROXY, or list the host in NO_PROXY' : `check that the instance runs and that a firewall lets this machine reach ${host}:${port}`;
    return fail(`cannot connect to ${proxy ? `the proxy ${proxy}` : `${host}:${port}`} (${code})`, fix, ExitCode.server);
  }
  return pass(`connected to ${proxy ? `the proxy ${host}:${port}` : `${host}:${port}`} in ${Math.round(performance.now() - started)} ms`);
}

/** The CA certificates in use: Node's bundled ones, NODE_EXTRA_CA_CERTS, and the profile's ca_file / --ca-file. */
function caBundle(state: DoctorState): { ca: string[]; names: string[] } {
  const names = [`Node's ${rootCertificates.length} bundled CAs`];
  const ca = [...rootCertificates];
  const extra = state.ctx.env.NODE_EXTRA_CA_CERTS;
  if (extra) {
    names.push(`NODE_EXTRA_CA_CERTS ${extra}`);
    try {
      ca.push(readFileSync(extra, 'utf8'));
    } catch {
      names[names.length - 1] += ' (unreadable)';
    }
  }
  const caFile = state.target?.caFile;
  if (caFile) {
    names.push(`ca_file ${caFile}`);
    try {
      ca.push(readFileSync(caFile, 'utf8'));
    } catch (error) {
      throw new ConfigError(`ca_file ${caFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`, 'fix the path: forgectl profile set ca_file /path/to/ca.pem (or --ca-file)');
    }
  }
  return { ca, names };
}

/** The certificate chain, its expiry and host name, checked with the CA bundle forgectl uses. */
async function checkTls(state: DoctorState): Promise<Outcome> {
  const url = target(state);
  if (!url) return skip('no instance configured');
  if (url.protocol !== 'https:') return skip('plain http: no TLS');
  if (proxyFor(url, state.ctx.env)) return skip('through a proxy: the certificate is checked by the requests below');
  const { ca, names } = caBundle(state);
  const host = hostOf(url);
  const { authorized, error, cert } = await new Promise<{ authorized: boolean; error?: string; cert?: PeerCertificate }>((resolve) => {
    const socket = connectTls({ host, port: portOf(url), servername: isIP(host) ? undefined : host, ca, rejectUnauthorized: false, timeout: timeout(state) });
    socket.once('secureConnect', () => {
      const result = { authorized: socket.authorized, error: socket.authorizationError ? String(socket.authorizationError) : undefined, cert: socket.getPeerCertificate(true) };
      socket.destroy();
      resolve(result);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve({ authorized: false, error: 'timed out' });
    });
    socket.once('error', (err) => resolve({ authorized: false, error: (err as NodeJS.ErrnoException).code ?? err.message }));
  });
  const bundle = `CA bundle: ${names.join(' + ')}`;
  const caFix = 'give the CA that signed the certificate: forgectl profile set ca_file /path/to/ca.pem (or --ca-file; NODE_EXTRA_CA_CERTS also works)';
  if (!cert || !cert.valid_to) return fail(`no TLS handshake with ${host}:${portOf(url)} (${error ?? 'no certificate'})`, 'check that the URL is the instance\'s HTTPS address', ExitCode.server);
  const subject = cert.subject?.CN ?? cert.subjectaltname ?? '?';
  const issuer = cert.issuer?.CN ?? cert.issuer?.O ?? '?';
  const days = Math.floor((Date.parse(cert.valid_to) - state.ctx.now().getTime()) / 86_400_000);
  const described = `certificate ${subject} issued by ${issuer}, valid until ${new Date(cert.valid_to).toISOString().slice(0, 10)}; ${bundle}`;
  if (state.target?.insecure) return warn(`verification is disabled (insecure); ${described}`, 'remove insecure from the profile (forgectl profile set insecure false) and give the CA with ca_file');
  if (days < 0) return fail(`the certificate expired ${-days} days ago; ${described}`, 'the instance\'s administrators must renew its certificate', ExitCode.server);
  const mismatch = checkServerIdentity(host, cert);
  if (mismatch) return fail(`the certificate is not for ${host} (${mismatch.message}); ${described}`, 'use the host name the certificate names in the profile url', ExitCode.server);
  if (!authorized) return fail(`the certificate is not trusted (${error}); ${described}`, caFix, ExitCode.server);
  if (days <= CERT_WARNING_DAYS) return warn(`the certificate expires in ${days} days; ${described}`, 'the instance\'s administrators must renew its certificate');
  return pass(described);
}

/** A HEAD request without following redirects; undefined when nothing answers (refused, timed out). */
function rawHead(url: string, ms: number): Promise<{ status: number; location?: string } | undefined> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { method: 'HEAD', timeout: ms, headers: { 'user-agent': `forgectl/${__FORGECTL_VERSION__}` } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, location: res.headers.location });
    });
    req.once('timeout', () => {
      req.destroy();
      resolve(undefined);
    });
    req.once('error', () => resolve(undefined));
    req.end();
  });
}

/**
 * Plain http: an https instance should redirect http:// to https://; an http:// profile whose instance redirects to
 * https sends its token in clear text before every redirect.
 */
async function checkRedirect(state: DoctorState): Promise<Outcome> {
  const url = target(state);
  if (!url) return skip('no instance configured');
  if (proxyFor(new URL(`http://${url.host}`), state.ctx.env)) return skip('through a proxy: not probed');
  if (url.protocol === 'http:') {
    const answer = await rawHead(`${state.target!.baseUrl}/version`, timeout(state));
    if (answer?.location?.startsWith('https:')) {
      const https = `https://${new URL(answer.location).host}${url.pathname.replace(/\/$/, '')}`;
      return warn(`the instance redirects http to https (${answer.status}), so the token crosses the network in clear text first`, `forgectl${state.target!.profileName ? ` -p ${state.target!.profileName}` : ''} profile set url ${https}`);
    }
    if (isLoopbackHost(url.hostname)) return pass('plain http on loopback: the token never leaves this machine');
    return warn(`plain http to ${url.host}: the token crosses the network in clear text (allow_http is set)`, 'use the https URL of the instance');
  }
  const http = `http://${url.hostname}${url.pathname}`;
  const answer = await rawHead(http, Math.min(timeout(state), 3000));
  if (!answer) return pass(`${http} does not answer (nothing to downgrade to)`);
  if (answer.status >= 300 && answer.status < 400 && answer.location?.startsWith('https:')) return pass(`${http} redirects to https (${answer.status})`);
  return warn(`${http} answers ${answer.status} without redirecting to https`, 'the instance\'s administrators should redirect http to https; never use the http:// URL in a profile');
}

export const networkChecks = checksOf('network', {
  dns: checkDns,
  proxy: checkProxy,
  tcp: checkTcp,
  tls: checkTls,
  'http to https': checkRedirect,
});
