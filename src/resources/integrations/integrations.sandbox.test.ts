import { describe, expect, it } from 'vitest';
import { type TestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

const call = (...args: Parameters<TestSandbox['call']>) => sandbox.call(...args);

describe('sandbox: group integrations (spec 1)', () => {
  it('lists active integrations with the fields of the spec', async () => {
    const r = await call('GET', '/groups/acme/integrations');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body[0])).toEqual([
      'id', 'title', 'slug', 'created_at', 'updated_at', 'active', 'commit_events', 'push_events', 'issues_events', 'alert_events',
      'confidential_issues_events', 'merge_requests_events', 'tag_push_events', 'deployment_events', 'note_events', 'confidential_note_events',
      'pipeline_events', 'wiki_page_events', 'job_events', 'comment_on_event_enabled', 'inherited', 'vulnerability_events',
    ]);
  });

  it('sets up with PUT (200), requires the parameters of the kind, and hides secrets', async () => {
    expect(await call('PUT', '/groups/1/integrations/bamboo', { bamboo_url: 'https://ci.example.com' }))
      .toEqual({ status: 400, body: { error: 'build_key is missing, username is missing, password is missing' } });
    const r = await call('PUT', '/groups/1/integrations/assembla', { token: 'secret-token', subdomain: 'acme' });
    expect(r.status).toBe(200);
    expect(r.body.properties).toEqual({ subdomain: 'acme' });
    expect((await call('GET', '/groups/1/integrations/assembla')).body.properties).toEqual({ subdomain: 'acme' });
    expect(await call('PUT', '/groups/1/integrations/bugzilla', { new_issue_url: 'x', issues_url: 'https://b', project_url: 'https://b' }))
      .toEqual({ status: 400, body: { message: { new_issue_url: ['must be a valid URL'] } } });
  });

  it('answers 404 for unknown slugs and integrations not set up; DELETE resets with 204', async () => {
    expect(await call('GET', '/groups/1/integrations/nope')).toEqual({ status: 404, body: { error: '404 Not Found' } });
    expect(await call('GET', '/groups/1/integrations/asana')).toEqual({ status: 404, body: { message: '404 Integration Not Found' } });
    expect((await call('DELETE', '/groups/1/integrations/assembla')).status).toBe(204);
    expect((await call('GET', '/groups/1/integrations/assembla')).status).toBe(404);
  });
});
