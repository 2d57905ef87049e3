import { generate } from 'selfsigned';

/** A self-signed certificate for the sandbox's host (also usable as its own CA with --ca-file). */
export async function generateCertificate(host: string): Promise<{ private: string; cert: string }> {
  const altNames: Array<{ type: number; value?: string; ip?: string }> = [
    { type: 2, value: 'localhost' },
    { type: 7, ip: '127.0.0.1' },
    { type: 7, ip: '::1' },
  ];
  if (/^[\d.]+$/.test(host) && host !== '127.0.0.1') altNames.push({ type: 7, ip: host });
  else if (!/^[\d.:]+$/.test(host) && host !== 'localhost') altNames.push({ type: 2, value: host });
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
