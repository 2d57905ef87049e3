import { describe, expect, it } from 'vitest';
import { tokens } from '../../sandbox/model.js';
import { useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

const get = async (token: string) => {
  const response = await fetch(`${sandbox.url}/experiments`, { headers: { 'PRIVATE-TOKEN': token } });
  return { status: response.status, body: (await response.json()) as any };
};

describe('sandbox: experiments', () => {
  it('lists experiments with definition and current status as the spec shapes them', async () => {
    const { status, body } = await get(sandbox.adminToken);
    expect(status).toBe(200);
    for (const experiment of body) {
      expect(Object.keys(experiment.definition).sort()).toEqual(['default_enabled', 'group', 'introduced_by_url', 'milestone', 'name', 'rollout_issue_url', 'type']);
      expect(['conditional', 'off', 'on']).toContain(experiment.current_status.state);
      for (const gate of experiment.current_status.gates) expect(['boolean', 'percentage_of_actors']).toContain(gate.key);
    }
  });

  it('answers 403 to callers who are not team members, 401 without a token', async () => {
    expect(await get(tokens(sandbox.db).find((t) => t.name === 'alice-token')!.token)).toEqual({ status: 403, body: { message: '403 Forbidden' } });
    expect((await get('')).status).toBe(401);
  });
});
