import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { generate } from 'selfsigned';

/**
 * The names and addresses the sandbox's certificate is for: loopback, the host it listens on, and when that is every
 * interface (0.0.0.0, ::), the machine's name and each interface's address, so a client reaching it through any of
 * them can check it.
 */
export function certificateNames(host: string, everyInterface: boolean): string[] {
  const names = new Set(['localhost', '127.0.0.1', '::1']);
  if (everyInterface) {
    names.add(hostname());
    for (const addresses of Object.values(networkInterfaces())) for (const address of addresses ?? []) names.add(address.address);
  } else names.add(host);
  return [...names];
}

/** A self-signed certificate for the sandbox's host (also usable as its own CA with --ca-file). */
export async function generateCertificate(host: string, everyInterface = false): Promise<{ private: string; cert: string }> {
  const altNames = certificateNames(host, everyInterface).map((name) => (isIP(name) ? { type: 7, ip: name } : { type: 2, value: name }));
  const pems = await generate([{ name: 'commonName', value: 'forgectl sandbox' }], {
    keyType: 'ec',
    notAfterDate: new Date(Date.now() + 30 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  } as Parameters<typeof generate>[1]);
  return { private: pems.private, cert: pems.cert };
}
