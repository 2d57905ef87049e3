import { beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';
import { integrationUrl } from './sandbox.js';
import { alertIntegrations, alertTable } from '../../sandbox/model.js';
import { sandboxEnv } from '../../sandbox/routes/index.js';

const sandbox = useTestSandbox();
let env: Record<string, string>;

beforeAll(async () => {
  env = sandboxEnv(sandbox);
});

async function post(url: string, body: unknown, authorization?: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
}

const bearer = (key: string) => `Bearer ${key}`;
const basic = (key: string) => `Basic ${Buffer.from(`:${key}`).toString('base64')}`;
const alertsOf = () => alertTable(sandbox.db).filter((a) => a.project_id === 1);

function prometheusBody(items: Array<Record<string, unknown>>, status = 'firing') {
  return {
    version: '4', groupKey: '{}:{alertname="x"}', status, receiver: 'forge', groupLabels: {}, commonLabels: {}, commonAnnotations: {},
    externalURL: 'http://alertmanager', alerts: items,
  };
}

describe('sandbox: alert intake URLs and their answers (api-facts §1.18)', () => {
  it('exports the generic and Prometheus endpoints of acme/api for --print-env', () => {
    expect(env.FORGECTL_SANDBOX_ALERT_URL).toBe(`${sandbox.rootUrl}/acme/api/alerts/notify.json`);
    expect(env.FORGECTL_SANDBOX_PROMETHEUS_URL).toBe(`${sandbox.rootUrl}/acme/api/prometheus/alerts/notify.json`);
    expect(env.FORGECTL_SANDBOX_ALERT_KEY).toMatch(/^[0-9a-f]{32}$/);
    expect(env.FORGECTL_SANDBOX_PROMETHEUS_KEY).not.toBe(env.FORGECTL_SANDBOX_ALERT_KEY);
  });

  it('creates an alert with Bearer or Basic authentication and answers 200 [{iid,title}]', async () => {
    const first = await post(env.FORGECTL_SANDBOX_ALERT_URL, { title: 'disk full', severity: 'HIGH', hosts: 'db1', fingerprint: 'disk-db1' }, bearer(env.FORGECTL_SANDBOX_ALERT_KEY));
    expect(first).toMatchObject({ status: 200, body: [{ iid: 1, title: 'disk full' }] });
    const second = await post(env.FORGECTL_SANDBOX_ALERT_URL, { description: 'no title', severity: 'bogus' }, basic(env.FORGECTL_SANDBOX_ALERT_KEY));
    expect(second).toMatchObject({ status: 200, body: [{ iid: 2, title: 'New: Alert' }] });
    expect(alertsOf().map((a) => [a.iid, a.severity, a.hosts, a.status])).toEqual([[1, 'high', ['db1'], 'triggered'], [2, 'critical', [], 'triggered']]);
  });

  it('answers with empty bodies: 401 wrong key, 403 inactive or unknown integration, 404 unknown project, 400 over 1 MB', async () => {
    const before = alertsOf().length;
    expect(await post(env.FORGECTL_SANDBOX_ALERT_URL, { title: 'x' }, bearer('0'.repeat(32)))).toEqual({ status: 401, text: '', body: undefined });
    expect(await post(env.FORGECTL_SANDBOX_ALERT_URL, { title: 'x' })).toMatchObject({ status: 401, text: '' });
    // The Prometheus key does not open the generic endpoint.
    expect((await post(env.FORGECTL_SANDBOX_ALERT_URL, { title: 'x' }, bearer(env.FORGECTL_SANDBOX_PROMETHEUS_KEY))).status).toBe(401);
    const inactive = alertIntegrations(sandbox.db).find((i) => !i.active)!;
    expect(await post(integrationUrl(sandbox.rootUrl, sandbox.db, inactive), { title: 'x' }, bearer(inactive.token))).toMatchObject({ status: 403, text: '' });
    expect((await post(`${sandbox.rootUrl}/acme/api/alerts/notify/http-endpoint/abcdef0123456789.json`, { title: 'x' }, bearer(env.FORGECTL_SANDBOX_ALERT_KEY))).status).toBe(403);
    expect((await post(`${sandbox.rootUrl}/acme/nope/alerts/notify.json`, { title: 'x' }, bearer(env.FORGECTL_SANDBOX_ALERT_KEY))).status).toBe(404);
    const big = await post(env.FORGECTL_SANDBOX_ALERT_URL, { title: 'big', description: 'x'.repeat(1024 * 1024) }, bearer(env.FORGECTL_SANDBOX_ALERT_KEY));
    expect(big).toMatchObject({ status: 400, text: '' });
    expect(alertsOf()).toHaveLength(before);
  });

  it('serves further HTTP endpoints under alerts/notify/<slug>/<identifier>.json', async () => {
    const endpoint = alertIntegrations(sandbox.db).find((i) => i.active && i.name === 'Ops monitor')!;
    const url = integrationUrl(sandbox.rootUrl, sandbox.db, endpoint);
    expect(url).toMatch(/\/acme\/api\/alerts\/notify\/ops-monitor\/[0-9a-f]{16}\.json$/);
    expect(await post(url, { title: 'from ops' }, bearer(endpoint.token))).toMatchObject({ status: 200, body: [{ title: 'from ops' }] });
  });

  it('groups by fingerprint, resolves by end_time, and opens a new alert after an identical resolved one', async () => {
    const key = bearer(env.FORGECTL_SANDBOX_ALERT_KEY);
    const again = await post(env.FORGECTL_SANDBOX_ALERT_URL, { title: 'disk full', fingerprint: 'disk-db1' }, key);
    expect(again.body).toEqual([{ iid: 1, title: 'disk full' }]);
    expect(alertsOf().find((a) => a.iid === 1)!.events).toBe(2);

    const resolved = await post(env.FORGECTL_SANDBOX_ALERT_URL, { fingerprint: 'disk-db1', end_time: '2026-01-31T12:00:00Z' }, key);
    expect(resolved.body).toEqual([{ iid: 1, title: 'disk full' }]);
    expect(alertsOf().find((a) => a.iid === 1)).toMatchObject({ status: 'resolved', ended_at: '2026-01-31T12:00:00.000Z' });
    // Nothing open to resolve: nothing persisted, 400.
    expect(await post(env.FORGECTL_SANDBOX_ALERT_URL, { fingerprint: 'disk-db1', end_time: '2026-01-31T12:00:00Z' }, key)).toMatchObject({ status: 400, text: '' });

    const reopened = await post(env.FORGECTL_SANDBOX_ALERT_URL, { title: 'disk full', fingerprint: 'disk-db1' }, key);
    expect(reopened.body[0].iid).toBeGreaterThan(1);
  });

  it('fingerprints identical payloads without a fingerprint, ignoring start_time and hosts (premium tiers)', async () => {
    const key = bearer(env.FORGECTL_SANDBOX_ALERT_KEY);
    const a = await post(env.FORGECTL_SANDBOX_ALERT_URL, { title: 'cpu', service: 'api', start_time: '2026-01-01T00:00:00Z', hosts: ['a'] }, key);
    const b = await post(env.FORGECTL_SANDBOX_ALERT_URL, { title: 'cpu', service: 'api', start_time: '2026-01-02T00:00:00Z', hosts: ['b'] }, key);
    expect(b.body[0].iid).toBe(a.body[0].iid);
    const resolved = await post(env.FORGECTL_SANDBOX_ALERT_URL, { title: 'cpu', service: 'api', end_time: '2026-01-02T01:00:00Z' }, key);
    expect(resolved.body[0].iid).toBe(a.body[0].iid);
    expect(alertsOf().find((x) => x.iid === a.body[0].iid)).toMatchObject({ status: 'resolved', events: 2 });
  });

  it('takes Prometheus webhook bodies: one alert per item, severity labels mapped, resolved by status', async () => {
    const key = bearer(env.FORGECTL_SANDBOX_PROMETHEUS_KEY);
    const items = [
      { status: 'firing', labels: { alertname: 'HighLatency', severity: 'page' }, annotations: { summary: 'p99 above 2s' }, startsAt: '2026-02-01T10:00:00Z', generatorURL: 'http://prom/graph?g0.expr=latency%3E2' },
      { status: 'firing', labels: { alertname: 'DiskLow', severity: 'WARNING' }, annotations: {}, startsAt: '2026-02-01T10:00:00Z' },
      { status: 'firing', labels: { severity: 'nonsense' }, annotations: { title: 'Odd' }, startsAt: '2026-02-01T10:00:00Z' },
    ];
    const response = await post(env.FORGECTL_SANDBOX_PROMETHEUS_URL, prometheusBody(items), key);
    expect(response.status).toBe(200);
    expect(response.body.map((a: { title: string }) => a.title)).toEqual(['p99 above 2s', 'DiskLow', 'Odd']);
    const byTitle = (title: string) => alertsOf().filter((a) => a.title === title).at(-1)!;
    expect([byTitle('p99 above 2s').severity, byTitle('DiskLow').severity, byTitle('Odd').severity]).toEqual(['high', 'low', 'critical']);

    const resolve = await post(env.FORGECTL_SANDBOX_PROMETHEUS_URL, prometheusBody([{ ...items[1], status: 'resolved', endsAt: '2026-02-01T11:00:00Z' }], 'resolved'), key);
    expect(resolve.body).toEqual([{ iid: byTitle('DiskLow').iid, title: 'DiskLow' }]);
    expect(byTitle('DiskLow').status).toBe('resolved');

    const { version: _, ...missing } = prometheusBody(items);
    expect(await post(env.FORGECTL_SANDBOX_PROMETHEUS_URL, missing, key)).toMatchObject({ status: 422, text: '' });
    expect((await post(env.FORGECTL_SANDBOX_PROMETHEUS_URL, prometheusBody(items), bearer(env.FORGECTL_SANDBOX_ALERT_KEY))).status).toBe(401);
  });
});

describe('sandbox: alert intake on the free tier', () => {
  it('serves only the legacy endpoints and does not group payloads without a fingerprint', async () => {
    const free = await startTestSandbox({ tier: 'free' });
    try {
      const freeEnv = sandboxEnv(free);
      const key = bearer(freeEnv.FORGECTL_SANDBOX_ALERT_KEY);
      const a = await post(freeEnv.FORGECTL_SANDBOX_ALERT_URL, { title: 'same' }, key);
      const b = await post(freeEnv.FORGECTL_SANDBOX_ALERT_URL, { title: 'same' }, key);
      expect([a.body[0].iid, b.body[0].iid]).toEqual([1, 2]);
      const endpoint = alertIntegrations(free.db).find((i) => i.active && i.name === 'Ops monitor')!;
      expect((await post(integrationUrl(free.rootUrl, free.db, endpoint), { title: 'x' }, bearer(endpoint.token))).status).toBe(403);
    } finally {
      await free.close();
    }
  });
});
