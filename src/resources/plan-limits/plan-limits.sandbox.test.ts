import { describe, expect, it } from 'vitest';
import { PLAN_LIMITS } from './values.js';
import { tokens } from '../../sandbox/model.js';
import { type TestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

const call = (...args: Parameters<TestSandbox['call']>) => sandbox.call(...args);

describe('sandbox: plan limits', () => {
  it('answers the integer limits of the default plan', async () => {
    const { status, body } = await call('GET', '/application/plan_limits');
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(Object.keys(PLAN_LIMITS).sort());
    expect(Object.values(body).every(Number.isInteger)).toBe(true);
  });

  it('updates one plan without touching the others', async () => {
    expect((await call('PUT', '/application/plan_limits', { plan_name: 'ultimate', ci_pipeline_size: 500, ci_active_jobs: '7' })).body).toMatchObject({ ci_pipeline_size: 500, ci_active_jobs: 7 });
    expect((await call('GET', '/application/plan_limits?plan_name=ultimate')).body.ci_pipeline_size).toBe(500);
    expect((await call('GET', '/application/plan_limits')).body.ci_pipeline_size).toBe(0);
  });

  it('answers bad input as Grape and the model do', async () => {
    expect(await call('PUT', '/application/plan_limits', { ci_pipeline_size: 1 })).toEqual({ status: 400, body: { error: 'plan_name is missing' } });
    expect(await call('GET', '/application/plan_limits?plan_name=platinum')).toEqual({ status: 400, body: { error: 'plan_name does not have a valid value' } });
    expect(await call('PUT', '/application/plan_limits', { plan_name: 'default', ci_pipeline_size: 'big' })).toEqual({ status: 400, body: { error: 'ci_pipeline_size is invalid' } });
    expect(await call('PUT', '/application/plan_limits', { plan_name: 'default', dotenv_size: -1 })).toEqual({ status: 400, body: { message: { dotenv_size: ['must be greater than or equal to 0'] } } });
  });

  it('answers 403 to non-administrators', async () => {
    const bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
    expect(await call('GET', '/application/plan_limits', undefined, bob)).toEqual({ status: 403, body: { message: '403 Forbidden' } });
  });
});
