import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { caller } from '../../../test/sandbox/review-helpers.js';

const sandbox = useTestSandbox();

const call = caller(() => sandbox);
const ISSUE = '/projects/acme%2Fapi/issues/1';

describe('sandbox: issues', () => {
  it('refuses an unknown state_event with 400 and changes nothing the same request gave', async () => {
    const before = (await call('GET', ISSUE)).body;
    expect(await call('PUT', ISSUE, { title: 'renamed', state_event: 'explode' })).toMatchObject({ status: 400, body: { error: 'state_event does not have a valid value' } });
    expect((await call('GET', ISSUE)).body).toMatchObject({ title: before.title, state: before.state, updated_at: before.updated_at });
    expect(await call('PUT', ISSUE, { title: 'renamed', state_event: 'close' })).toMatchObject({ status: 200, body: { title: 'renamed', state: 'closed' } });
  });
});
