import { describe, expect, it } from 'vitest';
import { tokens } from '../../sandbox/model.js';
import { useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

describe('experiments list', () => {
  it('lists experiments with their state, as JSON and as TSV', async () => {
    const json = await sandbox.run(['experiments', 'list', '-o', 'json']);
    expect(json.code).toBe(0);
    expect(json.json()[0]).toMatchObject({ key: expect.any(String), definition: { default_enabled: false }, current_status: { state: expect.any(String), gates: expect.any(Array) } });
    const off = await sandbox.run(['experiments', 'list', '--state', 'off']);
    expect(off.stdout.split('\n').filter(Boolean).every((line) => line.split('\t')[1] === 'off')).toBe(true);
    expect(off.stdout).toMatch(/^trial_discover_page\toff\tfalse\t17\.5\t/m);
  });

  it('exits 4 for callers who are not team members', async () => {
    const bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
    expect((await sandbox.run(['experiments', 'list'], { env: { FORGECTL_TOKEN: bob } })).code).toBe(4);
  });
});
