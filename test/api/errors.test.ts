import { describe, expect, it } from 'vitest';
import { errorMessageFromBody, hintForStatus } from '../../src/api/errors.js';

// Every error body shape of api-facts §4 becomes one line.
describe('error bodies', () => {
  it.each([
    ['a message string', { message: '404 Project Not Found' }, 404, '404 Project Not Found'],
    ['a field map', { message: { name: ['has already been taken'], path: ['is too long', 'is invalid'] } }, 400, 'name has already been taken; path is too long; path is invalid'],
    ['nested entities', { message: { 'default_branch_protection_defaults': { allowed_to_push: ['is invalid'] } } }, 400, 'default_branch_protection_defaults.allowed_to_push is invalid'],
    ['an array of messages', { message: ['Name has already been taken', 'Create access levels is invalid'] }, 422, 'Name has already been taken; Create access levels is invalid'],
    ['an application rate limit', { message: { error: 'This endpoint has been requested too many times. Try again later.' } }, 429, 'This endpoint has been requested too many times. Try again later.'],
    ['a Grape error', { error: 'name is missing' }, 400, 'name is missing'],
    ['an OAuth error', { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' }, 401, 'Token was revoked. You have to re-authorize from the user.'],
    ['a cherry-pick failure', { message: 'Sorry, we cannot cherry-pick this commit automatically.', error_code: 'conflict' }, 400, 'Sorry, we cannot cherry-pick this commit automatically. (conflict)'],
    ['plain text', 'Retry later\n', 429, 'Retry later'],
    ['an empty body', undefined, 500, '500 Internal Server Error'],
    ['an empty body of an unusual status', '', 418, 'HTTP 418'],
  ])('understands %s', (_name, body, status, expected) => {
    expect(errorMessageFromBody(body, status)).toBe(expected);
  });

  it('hints at logging in on 401 and at scopes on insufficient_scope', () => {
    expect(hintForStatus(401, {})).toContain('forgectl auth login');
    expect(hintForStatus(403, { error: 'insufficient_scope', scope: 'api' })).toContain('(api)');
    expect(hintForStatus(404, {})).toBeUndefined();
    // A 403 on a path only administrators use says so; elsewhere the reason is the caller's role, which varies.
    expect(hintForStatus(403, { message: '403 Forbidden' }, '/admin/ci/variables')).toBe('this is for administrators of the instance, and the token in use is not one');
    expect(hintForStatus(403, { message: '403 Forbidden' }, '/application/settings')).toContain('administrators');
    expect(hintForStatus(403, { message: '403 Forbidden' }, '/projects/acme%2Fapi/variables')).toBeUndefined();
  });
});
