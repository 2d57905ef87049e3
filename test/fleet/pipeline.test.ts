import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { docTexts } from '../e2e/examples.js';
import { runProcess, type ProcessResult } from '../e2e/package.js';
import { BIN, BUILT, tempDir, useTestSandbox } from '../helpers/cli.js';

/**
 * The sharded CI pipeline of the fleets guide (docs/fleets.md), run as the CI system would: each job's script lines exactly as written, by sh (the
 * line that installs the packed tarball stands for forgectl on PATH: the installed-package tier tests that install);
 * a parallel job as N jobs at once with CI_NODE_INDEX and CI_NODE_TOTAL set; an exit code the job allows
 * (allow_failure: exit_codes) counts as passed. Against the sandbox.
 */

const sandbox = useTestSandbox({ fleet: 60 });

interface Job {
  parallel?: number;
  script: string[];
  needs?: string[];
  allow_failure?: { exit_codes: number[] };
  rules?: Array<{ if?: string; when?: string }>;
}

/** The guides' yaml block with `parallel: 8`: the sharded pipeline (docs/fleets.md). */
function guidePipeline(): Record<string, Job> {
  const blocks = docTexts().flatMap((text) => [...text.matchAll(/```yaml\n([\s\S]*?)```/g)]).map((match) => match[1]).filter((text) => /parallel: 8/.test(text));
  expect(blocks).toHaveLength(1);
  return YAML.parse(blocks[0]) as Record<string, Job>;
}

const DESIRED = `version: 1
target: acme/**
projects:
  "*":
    push_rule: {max_file_size: 25, deny_delete_tag: true}
    protected_tags:
      - {name: "v*", create_access_level: maintainer}
`;

describe.skipIf(!BUILT)("the fleets guide's sharded pipeline", () => {
  it('plans in 8 shards, merges their plans into one (exit 9: drift), and applies it in 8 shards', { timeout: 240_000 }, async () => {
    const pipeline = guidePipeline();
    expect(Object.keys(pipeline)).toEqual(['plan', 'merge', 'apply']);
    const checkout = tempDir('forgectl-pipeline-');
    const bin = join(checkout, 'bin');
    mkdirSync(bin);
    symlinkSync(BIN, join(bin, 'forgectl'));
    writeFileSync(join(checkout, 'desired.yaml'), DESIRED);
    // What a CI job's shell has: the CI variables, the instance and token as masked variables, a branch.
    const variables = {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: process.env.HOME,
      CI: 'true',
      CI_NODE_TOTAL: '1',
      CI_COMMIT_BRANCH: 'main',
      CI_DEFAULT_BRANCH: 'main',
      FORGECTL_URL: sandbox.rootUrl,
      FORGECTL_TOKEN: sandbox.adminToken,
      FORGECTL_CONFIG_DIR: tempDir(),
    };
    expect(pipeline.apply.rules).toEqual([{ if: '$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH', when: 'manual' }]);

    const runJob = async (name: string): Promise<ProcessResult[]> => {
      const job = pipeline[name];
      const total = job.parallel ?? 1;
      const instance = async (index: number): Promise<ProcessResult> => {
        const env = { ...variables, ...(job.parallel ? { CI_NODE_INDEX: String(index), CI_NODE_TOTAL: String(total) } : {}) };
        let last: ProcessResult = { code: 0, signal: null, stdout: '', stderr: '' };
        for (const line of job.script) {
          if (/^npm install -g \.\/\S+\.tgz$/.test(line)) continue;
          last = await runProcess('sh', ['-c', line], { env, cwd: checkout, timeoutMs: 120_000 });
          if (last.code !== 0) break;
        }
        return last;
      };
      const results = await Promise.all(Array.from({ length: total }, (_, i) => instance(i + 1)));
      const allowed = [0, ...(job.allow_failure?.exit_codes ?? [])];
      for (const result of results) expect(allowed, `${name}: ${result.stderr}`).toContain(result.code);
      return results;
    };

    const plans = await runJob('plan');
    expect(plans).toHaveLength(8);
    expect(plans.every((result) => result.code === 9)).toBe(true);
    expect(plans.map((result) => /shard (\d) of 8 \(CI_NODE_INDEX=\1, CI_NODE_TOTAL=8\)/.exec(result.stderr)?.[1])).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);

    const [merged] = await runJob('merge');
    expect(merged.code).toBe(9);
    expect(merged.stdout).toMatch(/Plan: 64 to create, 60 to change in 62 of 62 projects\./);
    const whole = await sandbox.run(['plan', '-f', join(checkout, 'desired.yaml')]);
    expect(merged.stdout).toBe(whole.stdout);

    const applied = await runJob('apply');
    expect(applied.map((result) => result.code)).toEqual(new Array(8).fill(0));
    expect(applied.map((result) => /Applied: (\d+) done/.exec(result.stderr)?.[1]).reduce((sum, n) => sum + Number(n), 0)).toBe(124);
    expect((await sandbox.run(['plan', '-f', join(checkout, 'desired.yaml')])).code).toBe(0);
  });
});
