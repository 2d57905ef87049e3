import { describe, expect, it } from 'vitest';
import { type TestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox({ fleet: 10 });

const call = (...args: Parameters<TestSandbox['call']>) => sandbox.call(...args);

describe('sandbox: CI/CD variables', () => {
  it('lists a project\'s variables in the service\'s shape, hidden values as null, with pagination headers', async () => {
    const list = await call('GET', '/projects/acme%2Fapi/variables?per_page=3');
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total')).toBe('7');
    expect(list.headers.get('x-next-page')).toBe('2');
    expect(Object.keys(list.body[0])).toEqual(['variable_type', 'key', 'value', 'protected', 'masked', 'hidden', 'raw', 'environment_scope', 'description']);
    const all = await call('GET', '/projects/acme%2Fapi/variables?per_page=100');
    const signing = all.body.find((v: { key: string }) => v.key === 'SIGNING_KEY');
    expect(signing).toMatchObject({ masked: true, hidden: true, value: null });
    expect(all.body.find((v: { key: string }) => v.key === 'KUBECONFIG')).toMatchObject({ variable_type: 'file', environment_scope: 'production' });
  });

  it('needs filter[environment_scope] for a key in several scopes (409), 404 for a scope it is not in', async () => {
    expect(await call('GET', '/projects/1/variables/API_URL')).toEqual({
      status: 409, body: { message: "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'" },
    });
    expect((await call('GET', '/projects/1/variables/API_URL?filter[environment_scope]=production')).body.value).toBe('https://api.acme.example.com');
    expect(await call('GET', '/projects/1/variables/API_URL?filter[environment_scope]=review')).toEqual({ status: 404, body: { message: '404 Variable Not Found' } });
    const updated = await call('PUT', '/projects/1/variables/API_URL', { value: 'https://api2.acme.example.com', filter: { environment_scope: 'production' } });
    expect(updated.body).toMatchObject({ key: 'API_URL', environment_scope: 'production', value: 'https://api2.acme.example.com' });
    expect((await call('GET', '/projects/1/variables/API_URL?filter[environment_scope]=staging')).body.value).toBe('https://staging.api.acme.example.com');
  });

  it('creates (201, defaults), refuses a duplicate key and scope, a bad key, an unmaskable value, an unknown type', async () => {
    const made = await call('POST', '/projects/2/variables', { key: 'NEW_ONE', value: 'v1' });
    expect(made).toEqual({ status: 201, body: { variable_type: 'env_var', key: 'NEW_ONE', value: 'v1', protected: false, masked: false, hidden: false, raw: false, environment_scope: '*', description: null } });
    expect(await call('POST', '/projects/2/variables', { key: 'NEW_ONE', value: 'v2' })).toEqual({ status: 400, body: { message: { key: ['(NEW_ONE) has already been taken'] } } });
    expect((await call('POST', '/projects/2/variables', { key: 'NEW_ONE', value: 'v2', environment_scope: 'review/*' })).status).toBe(201);
    expect(await call('POST', '/projects/2/variables', { key: 'BAD-KEY', value: 'x' })).toEqual({ status: 400, body: { message: { key: ["can contain only letters, digits and '_'."] } } });
    expect(await call('POST', '/projects/2/variables', { key: 'SHORT', value: 'abc', masked: true })).toEqual({ status: 400, body: { message: { value: ['is invalid'] } } });
    expect((await call('POST', '/projects/2/variables', { key: 'SPACES', value: 'has a space!', masked: true, raw: true })).status).toBe(400);
    expect((await call('POST', '/projects/2/variables', { key: 'RAWMASK', value: 'p@ss!w0rd#', masked: true, raw: true })).status).toBe(201);
    expect(await call('POST', '/projects/2/variables', { key: 'T', value: 'x', variable_type: 'yaml' })).toEqual({ status: 400, body: { error: 'variable_type does not have a valid value' } });
    expect(await call('POST', '/projects/2/variables', { key: 'T' })).toEqual({ status: 400, body: { error: 'value is missing' } });
  });

  it('hides a value for good with masked_and_hidden: null in every answer, and it cannot be unmasked', async () => {
    const made = await call('POST', '/groups/acme/variables', { key: 'VAULT_TOKEN', value: 'hvs.CAESIJ3z9', masked_and_hidden: true });
    expect(made.body).toMatchObject({ key: 'VAULT_TOKEN', value: null, masked: true, hidden: true });
    expect((await call('GET', '/groups/acme/variables/VAULT_TOKEN')).body.value).toBeNull();
    expect((await call('PUT', '/groups/acme/variables/VAULT_TOKEN', { value: 'hvs.NEWVALUE1' })).body.value).toBeNull();
    expect(sandbox.db.table<{ key: string; value: string }>('ci_variables').find((v) => v.key === 'VAULT_TOKEN')!.value).toBe('hvs.NEWVALUE1');
    expect((await call('PUT', '/groups/acme/variables/VAULT_TOKEN', { masked: false })).status).toBe(400);
    expect((await call('DELETE', '/groups/acme/variables/VAULT_TOKEN')).status).toBe(204);
  });

  it('serves instance variables to administrators only, without scope or hidden', async () => {
    const list = await call('GET', '/admin/ci/variables');
    expect(Object.keys(list.body[0])).toEqual(['variable_type', 'key', 'value', 'protected', 'masked', 'raw', 'description']);
    expect((await call('GET', '/admin/ci/variables', undefined, sandbox.tokenWithRole('owner'))).status).toBe(403);
    expect((await call('POST', '/admin/ci/variables', { key: 'INSTANCE_ONE', value: 'x', environment_scope: 'production' })).body).not.toHaveProperty('environment_scope');
    expect((await call('DELETE', '/admin/ci/variables/INSTANCE_ONE')).status).toBe(204);
  });

  it('needs the Maintainer role for a project\'s variables', async () => {
    expect((await call('GET', '/projects/1/variables', undefined, sandbox.tokenWithRole('developer'))).status).toBe(403);
    expect((await call('GET', '/projects/1/variables', undefined, sandbox.tokenWithRole('maintainer'))).status).toBe(200);
  });

  it('seeds fleet projects with variables, every tenth with a hidden one', async () => {
    const ten = await call('GET', `/projects/${encodeURIComponent('acme/team-01/squad-1/svc-010')}/variables`);
    expect(ten.body.map((v: { key: string }) => v.key)).toEqual(['SERVICE_NAME', 'DATABASE_PASSWORD', 'SIGNING_KEY']);
  });
});
