import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { run, tempDir, useTestSandbox } from '../../../test/helpers/cli.js';
import { alertTable } from '../../sandbox/model.js';
import { sandboxEnv } from '../../sandbox/routes/index.js';

const sandbox = useTestSandbox();
let env: Record<string, string>;
let dir: string;
let keyFile: string;
let promKeyFile: string;

beforeAll(async () => {
  env = sandboxEnv(sandbox);
  dir = tempDir();
  keyFile = join(dir, 'alert.key');
  promKeyFile = join(dir, 'prometheus.key');
  writeFileSync(keyFile, `${env.FORGECTL_SANDBOX_ALERT_KEY}\n`, { mode: 0o600 });
  writeFileSync(promKeyFile, env.FORGECTL_SANDBOX_PROMETHEUS_KEY, { mode: 0o600 });
});

/** The CLI with no profile, URL or token at all: alert intake needs only the URL and the key. */
const bare = (argv: string[], extra: Record<string, string> = {}) => run(argv, { env: { FORGECTL_CONFIG_DIR: tempDir(), ...extra } });
const send = (...args: string[]) => ['alerts', 'send', '--url', env.FORGECTL_SANDBOX_ALERT_URL, ...args];
const lastAlert = () => alertTable(sandbox.db).at(-1)!;

describe('alerts send (generic endpoint)', () => {
  it('sends with a key file and no profile configured, and prints [{iid,title}]', async () => {
    sandbox.clearRequests();
    const result = await bare(send('--key-file', keyFile, '--title', 'disk full', '--severity', 'high', '-o', 'json'));
    expect(result.code).toBe(0);
    expect(result.json()).toEqual([{ iid: expect.any(Number), title: 'disk full' }]);
    expect(lastAlert()).toMatchObject({ title: 'disk full', severity: 'high', status: 'triggered' });
    expect(sandbox.requests()).toEqual([{ method: 'POST', path: '/acme/api/alerts/notify.json', status: 200 }]);
  });

  it('refuses an unknown severity with exit 2 and sends nothing', async () => {
    sandbox.clearRequests();
    const result = await bare(send('--key-file', keyFile, '--title', 'x', '--severity', 'bogus'));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--severity must be one of critical, high, medium, low, info, unknown');
    expect(sandbox.requests()).toEqual([]);
  });

  it('maps metrics labels to the service\'s severities and sends every field', async () => {
    const result = await bare(
      send('--title', 'queue stuck', '--severity', 'WARNING', '--description', 'jobs wait', '--service', 'worker', '--monitoring-tool', 'cron',
        '--hosts', 'w1,w2', '--fingerprint', 'queue-42', '--start-time', '2026-03-01T09:00:00Z', '--environment', 'production',
        '--field', 'runbook=https://wiki/q', '--field', 'labels[team]=ops'),
      { FORGECTL_ALERT_KEY: env.FORGECTL_SANDBOX_ALERT_KEY },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\d+\tqueue stuck\n$/); // a pipe: TSV without a header
    expect(lastAlert()).toMatchObject({
      severity: 'low', description: 'jobs wait', service: 'worker', monitoring_tool: 'cron', hosts: ['w1', 'w2'],
      started_at: '2026-03-01T09:00:00.000Z', environment: 'production',
      payload: { runbook: 'https://wiki/q', labels: { team: 'ops' }, fingerprint: 'queue-42' },
    });
  });

  it('authenticates with Basic when asked, and answers exit 4 with a hint to a wrong key', async () => {
    expect((await bare(send('--key-file', keyFile, '--auth', 'basic', '--title', 'basic auth'))).code).toBe(0);
    const wrong = await bare(send('--title', 'x'), { FORGECTL_ALERT_KEY: 'f'.repeat(32) });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain('authorization key was refused');
    expect(wrong.stderr).not.toContain('auth login');
  });

  it('needs a key (exit 3) and never takes one in the URL (exit 2), sending nothing', async () => {
    sandbox.clearRequests();
    expect((await bare(send('--title', 'x'))).code).toBe(3);
    const withCredentials = env.FORGECTL_SANDBOX_ALERT_URL.replace('http://', `http://:${env.FORGECTL_SANDBOX_ALERT_KEY}@`);
    const result = await bare(['alerts', 'send', '--url', withCredentials, '--title', 'x'], { FORGECTL_ALERT_KEY: 'k' });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain(env.FORGECTL_SANDBOX_ALERT_KEY);
    expect(sandbox.requests()).toEqual([]);
  });

  it('refuses payloads over 1 MB before sending', async () => {
    sandbox.clearRequests();
    const big = join(dir, 'big.json');
    writeFileSync(big, JSON.stringify({ title: 'big', description: 'x'.repeat(1024 * 1024) }));
    const result = await bare(send('--key-file', keyFile, '--payload', big));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('at most 1 MB');
    expect(sandbox.requests()).toEqual([]);
  });

  it('merges flags into a prepared --payload (from a file or stdin)', async () => {
    const result = await run(send('--key-file', keyFile, '--payload', '-', '--severity', 'info', '-o', 'json'), {
      env: { FORGECTL_CONFIG_DIR: tempDir() },
      input: JSON.stringify({ title: 'from stdin', custom: { nested: [1, 2] } }),
    });
    expect(result.code).toBe(0);
    expect(result.json()[0].title).toBe('from stdin');
    expect(lastAlert()).toMatchObject({ severity: 'info', payload: { custom: { nested: [1, 2] } } });
    expect((await bare(send('--key-file', keyFile, '--payload', keyFile))).code).toBe(2); // not JSON
  });

  it('keeps the key and the profile token out of --verbose and --dry-run output', async () => {
    const verbose = await sandbox.run(['-v', ...send('--key-file', keyFile, '--title', 'verbose')]);
    expect(verbose.code).toBe(0);
    expect(verbose.stderr.toLowerCase()).toContain('> authorization: [redacted]');
    expect(verbose.stderr.toLowerCase()).not.toContain('private-token');
    expect(verbose.stderr).not.toContain(env.FORGECTL_SANDBOX_ALERT_KEY);

    sandbox.clearRequests();
    const dry = await bare(['--dry-run', ...send('--key-file', keyFile, '--title', 'dry')]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`POST ${env.FORGECTL_SANDBOX_ALERT_URL}`);
    expect(dry.stdout).toContain('"title": "dry"');
    expect(dry.stdout + dry.stderr).not.toContain(env.FORGECTL_SANDBOX_ALERT_KEY);
    expect(sandbox.requests()).toEqual([]);
  });
});

describe('alerts resolve', () => {
  it('resolves by fingerprint; a second resolve finds nothing open (exit 6)', async () => {
    await bare(send('--key-file', keyFile, '--title', 'cpu hot', '--fingerprint', 'cpu-1'));
    const resolved = await bare(['alerts', 'resolve', '--url', env.FORGECTL_SANDBOX_ALERT_URL, '--key-file', keyFile, '--fingerprint', 'cpu-1', '--end-time', '2026-03-01T10:00:00Z', '-o', 'json']);
    expect(resolved.code).toBe(0);
    expect(resolved.json()).toEqual([{ iid: expect.any(Number), title: 'cpu hot' }]);
    expect(alertTable(sandbox.db).find((a) => a.title === 'cpu hot')).toMatchObject({ status: 'resolved', ended_at: '2026-03-01T10:00:00.000Z' });
    const again = await bare(['alerts', 'resolve', '--url', env.FORGECTL_SANDBOX_ALERT_URL, '--key-file', keyFile, '--fingerprint', 'cpu-1']);
    expect(again.code).toBe(6);
    expect(again.stderr).toContain('nothing open to resolve');
  });

  it('needs something to match on (exit 2, nothing sent)', async () => {
    sandbox.clearRequests();
    expect((await bare(['alerts', 'resolve', '--url', env.FORGECTL_SANDBOX_ALERT_URL, '--key-file', keyFile])).code).toBe(2);
    expect((await bare(['alerts', 'resolve', '--url', env.FORGECTL_SANDBOX_PROMETHEUS_URL, '--key-file', promKeyFile, '--format', 'prometheus', '--title', 'x'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });
});

describe('alerts with --format prometheus', () => {
  const prom = (verb: string, ...args: string[]) => ['alerts', verb, '--url', env.FORGECTL_SANDBOX_PROMETHEUS_URL, '--key-file', promKeyFile, '--format', 'prometheus', ...args];

  it('builds the webhook body, maps the severity label, and resolves by title and start time', async () => {
    const sent = await bare(prom('send', '--title', 'HighLatency', '--severity', 'p2', '--description', 'p99 > 2s', '--start-time', '2026-03-01T09:00:00Z', '--environment', 'production', '-o', 'json'));
    expect(sent.code).toBe(0);
    expect(sent.json()).toEqual([{ iid: expect.any(Number), title: 'HighLatency' }]);
    expect(lastAlert()).toMatchObject({ title: 'HighLatency', severity: 'high', description: 'p99 > 2s', environment: 'production', monitoring_tool: 'Prometheus' });

    const resolved = await bare(prom('resolve', '--title', 'HighLatency', '--start-time', '2026-03-01T09:00:00Z', '-o', 'json'));
    expect(resolved.code).toBe(0);
    expect(alertTable(sandbox.db).find((a) => a.title === 'HighLatency')!.status).toBe('resolved');
    const again = await bare(prom('resolve', '--title', 'HighLatency', '--start-time', '2026-03-01T09:00:00Z'));
    expect(again.code).toBe(6);
  });

  it('checks a prepared body for the required attributes, and refuses what the format cannot carry', async () => {
    sandbox.clearRequests();
    const partial = join(dir, 'partial.json');
    writeFileSync(partial, JSON.stringify({ version: '4', alerts: [{}] }));
    const result = await bare(prom('send', '--payload', partial));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('lacks commonAnnotations, commonLabels, externalURL, groupKey, groupLabels, receiver, status');
    expect((await bare(prom('send', '--title', 'x', '--severity', 'unknown'))).code).toBe(2);
    expect((await bare(prom('send', '--title', 'x', '--fingerprint', 'f'))).code).toBe(2);
    expect((await bare(prom('send', '--severity', 'high'))).code).toBe(2); // no title
    expect(sandbox.requests()).toEqual([]);
  });
});
