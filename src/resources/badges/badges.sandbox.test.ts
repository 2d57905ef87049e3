import { describe, expect, it } from 'vitest';
import { type TestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

const call = (...args: Parameters<TestSandbox['call']>) => sandbox.call(...args);

describe('sandbox: project badges (spec 1, api-facts §1.5)', () => {
  it('creates with 201, renders every placeholder, both spec and real names', async () => {
    const link = 'https://x.example.com/%{project_path}/%{project_title}/%{project_name}/%{project_id}/%{project_namespace}/%{group_name}/%{default_branch}';
    const image = 'https://x.example.com/i.svg?a=%{service_server}&b=%{gitlab_pages_domain}&c=%{service_pages_domain}&t=%{latest_tag}&s=%{commit_sha}';
    const r = await call('POST', '/projects/acme%2Fapi/badges', { link_url: link, image_url: image, name: 'all' });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body)).toEqual(['name', 'id', 'link_url', 'image_url', 'rendered_link_url', 'rendered_image_url', 'kind']);
    expect(r.body.rendered_link_url).toBe('https://x.example.com/acme/api/api/api/1/acme/acme/main');
    expect(r.body.rendered_image_url).toMatch(/^https:\/\/x\.example\.com\/i\.svg\?a=127\.0\.0\.1&b=pages\.sandbox\.test&c=pages\.sandbox\.test&t=v1\.1\.0&s=[0-9a-f]{40}$/);
  });

  it('answers 400 with the real bodies for missing and invalid URLs', async () => {
    expect(await call('POST', '/projects/1/badges', { image_url: 'https://x.example.com' })).toEqual({ status: 400, body: { error: 'link_url is missing' } });
    expect(await call('POST', '/projects/1/badges', { link_url: 'https://%{gitlab_server}/x', image_url: 'https://x.example.com' }))
      .toEqual({ status: 400, body: { message: { link_url: ['is blocked: URI is invalid'] } } });
  });

  it('lists group badges with the project badges and filters by name', async () => {
    const all = await call('GET', '/projects/1/badges');
    expect(all.body.some((b: { kind: string }) => b.kind === 'group')).toBe(true);
    const named = await call('GET', '/projects/1/badges?name=pipeline');
    expect(named.body).toHaveLength(1);
    expect(named.body[0].rendered_link_url).toBe('https://ci.acme.example.com/acme/api/-/pipelines?ref=main');
  });

  it('deletes project badges with 204 and refuses group badges with 403', async () => {
    const group = (await call('GET', '/projects/1/badges?name=pipeline')).body[0];
    expect(await call('DELETE', `/projects/1/badges/${group.id}`)).toEqual({ status: 403, body: { error: 'To delete a Group badge please use the Group endpoint' } });
    const own = (await call('POST', '/projects/1/badges', { link_url: 'https://a.example.com', image_url: 'https://a.example.com/i' })).body;
    expect((await call('DELETE', `/projects/1/badges/${own.id}`)).status).toBe(204);
    expect(await call('GET', `/projects/1/badges/${own.id}`)).toEqual({ status: 404, body: { message: '404 Badge Not Found' } });
  });

  it('renders a preview at GET /badges/render and requires both URLs', async () => {
    const r = await call('GET', `/projects/2/badges/render?link_url=${encodeURIComponent('https://x.example.com/%{project_path}')}&image_url=${encodeURIComponent('https://x.example.com/i')}`);
    expect(r).toEqual({ status: 200, body: { link_url: 'https://x.example.com/%{project_path}', image_url: 'https://x.example.com/i', rendered_link_url: 'https://x.example.com/acme/web', rendered_image_url: 'https://x.example.com/i' } });
    expect((await call('GET', '/projects/2/badges/render?link_url=https://x.example.com')).body).toEqual({ error: 'image_url is missing' });
  });

  it('leaves a placeholder it has no value for as written, whatever its name', async () => {
    const url = 'https://x.example.com/%{constructor}/%{to_string}';
    const r = await call('GET', `/projects/2/badges/render?link_url=${encodeURIComponent(url)}&image_url=${encodeURIComponent(url)}`);
    expect(r.body).toMatchObject({ rendered_link_url: url, rendered_image_url: url });
  });
});
