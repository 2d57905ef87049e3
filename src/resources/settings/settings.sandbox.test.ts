import { describe, expect, it } from 'vitest';
import { SETTINGS } from './resource.js';
import { tokens } from '../../sandbox/model.js';
import { startTestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

async function call(method: string, path: string, body?: unknown, token = sandbox.adminToken, contentType = 'application/json') {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': token, 'content-type': contentType },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('sandbox: application settings', () => {
  it('GET answers every field of the spec table with its type', async () => {
    const { status, body } = await call('GET', '/application/settings');
    expect(status).toBe(200);
    for (const [key, field] of Object.entries(SETTINGS)) {
      expect(key in body, key).toBe(true);
      const value = body[key];
      if (value === null) {
        expect(field.type === 'string' || field.nullable, key).toBe(true);
        continue;
      }
      const kind = Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value === 'number' ? (Number.isInteger(value) && field.type === 'integer' ? 'integer' : 'number') : typeof value;
      expect(kind, key).toBe(field.type);
    }
    expect(body.repository_storages_weighted).toEqual({ default: 100, storage2: 0 });
  });

  it('PUT takes JSON and form parameters, coerces them and answers the record', async () => {
    const json = await call('PUT', '/application/settings', { signup_enabled: false, max_attachment_size: '250', domain_allowlist: 'a.example, b.example' });
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ signup_enabled: false, max_attachment_size: 250, domain_allowlist: ['a.example', 'b.example'] });
    const form = await call('PUT', '/application/settings', 'signup_enabled=true&restricted_visibility_levels[]=public&polling_interval_multiplier=2.5', sandbox.adminToken, 'application/x-www-form-urlencoded');
    expect(form.body).toMatchObject({ signup_enabled: true, restricted_visibility_levels: ['public'], polling_interval_multiplier: 2.5 });
    expect(Date.parse(form.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(form.body.created_at));
  });

  it('answers wrong types, values and ranges with the bodies of real instances', async () => {
    expect(await call('PUT', '/application/settings', { max_attachment_size: 'lots' })).toEqual({ status: 400, body: { error: 'max_attachment_size is invalid' } });
    expect(await call('PUT', '/application/settings', { signup_enabled: 'maybe', session_expire_delay: 'x' })).toEqual({ status: 400, body: { error: 'session_expire_delay is invalid, signup_enabled is invalid' } });
    expect(await call('PUT', '/application/settings', { default_project_visibility: 'secret' })).toEqual({ status: 400, body: { error: 'default_project_visibility does not have a valid value' } });
    expect(await call('PUT', '/application/settings', { max_attachment_size: 0 })).toEqual({ status: 400, body: { message: { max_attachment_size: ['must be greater than or equal to 1'] } } });
    expect(await call('PUT', '/application/settings', { repository_storages_weighted: { nowhere: 5 } })).toEqual({ status: 400, body: { message: { repository_storages_weighted: ["can't include: nowhere"] } } });
    const none = await call('PUT', '/application/settings', { no_such_setting: 1 });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatch(/are missing, at least one parameter must be provided$/);
    expect((await call('GET', '/application/settings')).body.max_attachment_size).toBe(250);
  });

  it('keeps deprecated names in step with their replacements', async () => {
    const { body } = await call('PUT', '/application/settings', { asset_proxy_whitelist: ['cdn.example'] });
    expect(body).toMatchObject({ asset_proxy_allowlist: ['cdn.example'], asset_proxy_whitelist: ['cdn.example'] });
  });

  it('leaves out Premium settings on the free tier and ignores them in PUT', async () => {
    const free = await startTestSandbox({ tier: 'free' });
    try {
      const response = await fetch(`${free.url}/application/settings`, { headers: { 'PRIVATE-TOKEN': free.adminToken } });
      const body = (await response.json()) as Record<string, unknown>;
      expect('disable_personal_access_tokens' in body).toBe(false);
      expect('signup_enabled' in body).toBe(true);
    } finally {
      await free.close();
    }
  });

  it('answers 403 to non-administrators', async () => {
    const alice = tokens(sandbox.db).find((t) => t.name === 'alice-token')!.token;
    expect(await call('GET', '/application/settings', undefined, alice)).toEqual({ status: 403, body: { message: '403 Forbidden' } });
    expect((await call('PUT', '/application/settings', { signup_enabled: false }, alice)).status).toBe(403);
  });
});
