import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

describe('plan-limits', () => {
  it('sets a limit of the default plan, showing the change, and get shows it', async () => {
    const set = await sandbox.run(['plan-limits', 'set', 'ci_pipeline_size=123', '--yes', '-o', 'json']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toContain('ci_pipeline_size: 0 → 123');
    expect(set.json().ci_pipeline_size).toBe(123);
    expect((await sandbox.run(['plan-limits', 'get', '-o', 'json'])).json().ci_pipeline_size).toBe(123);
    const put = sandbox.requests().find((r) => r.method === 'PUT');
    expect(put?.path).toBe('/api/v4/application/plan_limits');
  });

  it('keeps plans apart (--plan)', async () => {
    expect((await sandbox.run(['plan-limits', 'set', 'storage_size_limit=2048', 'notification_limit=1024', '--plan', 'premium', '--yes'])).code).toBe(0);
    expect((await sandbox.run(['plan-limits', 'get', '--plan', 'premium', '-o', 'json'])).json()).toMatchObject({ storage_size_limit: 2048, notification_limit: 1024 });
    expect((await sandbox.run(['plan-limits', 'get', '--fields', 'storage_size_limit'])).stdout).toBe('storage_size_limit\t0\n');
  });

  it('accepts only known limits and whole numbers, before sending anything', async () => {
    sandbox.clearRequests();
    for (const argv of [['ci_pipeline_size=1.5'], ['ci_pipeline_size=-1'], ['ci_pipeline_size=lots'], ['ci_pipeline_sise=3'], ['ci_pipeline_size=1', '--plan', 'platinum'], ['ci_pipeline_size']]) {
      expect((await sandbox.run(['plan-limits', 'set', ...argv, '--yes'])).code, argv.join(' ')).toBe(2);
    }
    expect(sandbox.requests()).toEqual([]);
  });

  it('asks for --yes without a terminal and sends no PUT without it', async () => {
    sandbox.clearRequests();
    expect((await sandbox.run(['plan-limits', 'set', 'ci_active_jobs=5'])).code).toBe(2);
    expect(sandbox.requests().filter((r) => r.method === 'PUT')).toEqual([]);
  });
});
