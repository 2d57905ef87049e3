import { UsageError } from '../errors.js';
import { writeFileAtomically } from '../files.js';
import { plural } from '../parse.js';
import type { RateGate } from '../http/rate-gate.js';

/**
 * Sharding a fleet run over several processes (a CI system's parallel jobs, a Kubernetes Indexed Job): each process
 * works on the projects whose full path falls in its shard. Which shard a path falls in depends on the path and the
 * number of shards only (rendezvous hashing: the shard whose hash of "shard:path" is highest), so adding or removing
 * a project moves no other, and going from N to N+1 shards moves only a 1/(N+1) share of the projects.
 */

export interface Shard {
  /** 1-based. */
  index: number;
  total: number;
  /** Where it came from, for the stderr line: "--shard", "CI_NODE_INDEX=2, CI_NODE_TOTAL=8". */
  source: string;
}

export const MAX_SHARDS = 1000;

type Env = Record<string, string | undefined>;

const whole = (name: string, value: string, min: number, max: number): number => {
  if (!/^\d+$/.test(value.trim())) throw new UsageError(`${name} must be a whole number, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
};

/** `--shard I/N` as given: I of N, 1-based. */
export function parseShard(value: string): { index: number; total: number } {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
  if (!match) throw new UsageError(`--shard takes I/N (this process's shard, 1 to N, of N), got "${value}"`, 'for example --shard 2/8');
  const total = whole(`--shard ${value.trim()}: the number of shards`, match[2], 1, MAX_SHARDS);
  const index = whole(`--shard ${value.trim()}: the shard`, match[1], 1, total);
  return { index, total };
}

/**
 * This process's shard: --shard I/N; else JOB_COMPLETION_INDEX (0-based) with the total from --shard-total or
 * FORGECTL_SHARD_TOTAL; else CI_NODE_INDEX of CI_NODE_TOTAL (1-based, set by parallel CI jobs). None: the whole fleet.
 */
export function resolveShard(opts: { shard?: { index: number; total: number }; shardTotal?: number }, env: Env): Shard | undefined {
  if (opts.shard) {
    if (opts.shardTotal !== undefined && opts.shardTotal !== opts.shard.total) throw new UsageError(`--shard ${opts.shard.index}/${opts.shard.total} and --shard-total ${opts.shardTotal} disagree`);
    return { ...opts.shard, source: '--shard' };
  }
  const k8s = env.JOB_COMPLETION_INDEX;
  if (k8s !== undefined && k8s !== '') {
    const totalText = opts.shardTotal !== undefined ? String(opts.shardTotal) : env.FORGECTL_SHARD_TOTAL;
    const totalName = opts.shardTotal !== undefined ? '--shard-total' : 'FORGECTL_SHARD_TOTAL';
    if (totalText === undefined || totalText === '') {
      throw new UsageError('JOB_COMPLETION_INDEX is set but not how many shards there are', "give --shard-total N or set FORGECTL_SHARD_TOTAL to the Job's completions");
    }
    const total = whole(totalName, totalText, 1, MAX_SHARDS);
    const index = whole('JOB_COMPLETION_INDEX', k8s, 0, total - 1) + 1;
    return { index, total, source: `JOB_COMPLETION_INDEX=${index - 1} of ${totalName}=${total}` };
  }
  if (opts.shardTotal !== undefined) throw new UsageError('--shard-total goes with JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)', 'elsewhere give --shard I/N');
  const ci = env.CI_NODE_INDEX;
  if (ci !== undefined && ci !== '') {
    const totalText = env.CI_NODE_TOTAL;
    if (totalText === undefined || totalText === '') throw new UsageError('CI_NODE_INDEX is set without CI_NODE_TOTAL');
    const total = whole('CI_NODE_TOTAL', totalText, 1, MAX_SHARDS);
    const index = whole('CI_NODE_INDEX', ci, 1, total);
    return { index, total, source: `CI_NODE_INDEX=${index}, CI_NODE_TOTAL=${total}` };
  }
  return undefined;
}

/** The shard (1-based, of `total`) a full path falls in; the same path always falls in the same shard. */
export function shardOf(path: string, total: number): number {
  // The instance's settings ('' as a path) go with the first shard.
  if (total <= 1 || path === '') return 1;
  const key = path.toLowerCase();
  let best = 1;
  let bestWeight = -1n;
  // Loaded here, not at the top: node:crypto costs every run's start-up, and this module is loaded by every run.
  const { createHash } = process.getBuiltinModule('node:crypto');
  for (let shard = 1; shard <= total; shard++) {
    const weight = createHash('sha256').update(`${shard}:${key}`).digest().readBigUInt64BE(0);
    if (weight > bestWeight) {
      bestWeight = weight;
      best = shard;
    }
  }
  return best;
}

/** Whether a path belongs to the shard (every path does without one). */
export const inShard = (path: string, shard: Shard | undefined): boolean => !shard || shardOf(path, shard.total) === shard.index;

/** "shard 2 of 8 (CI_NODE_INDEX=2, CI_NODE_TOTAL=8)". */
export const shardLabel = (shard: Shard): string => `shard ${shard.index} of ${shard.total} (${shard.source})`;

/**
 * Keeps the items of the shard and says on stderr which shard this is and how many of the items (`what`) it took.
 */
export function takeShard<T>(items: T[], pathOf: (item: T) => string, shard: Shard | undefined, note: (line: string) => void, what = 'projects'): T[] {
  if (!shard) return items;
  const mine = items.filter((item) => inShard(pathOf(item), shard));
  note(`${shardLabel(shard)}: ${mine.length.toLocaleString('en-US')} of ${items.length.toLocaleString('en-US')} ${what}`);
  return mine;
}

/** The line an empty shard ends with (exit 0). */
export const emptyShardLine = (shard: Shard): string => `shard ${shard.index} of ${shard.total} has nothing to do: none of the selected projects falls in it`;

/**
 * Starts the rate gate of a fleet run: `concurrency` requests in flight, and with --rate-limit this shard's share
 * of the whole job's budget (each of N shards 1/N of it). Returns the stderr line naming the share, if any.
 */
export function startBudget(gate: RateGate, concurrency: number, rateLimit: { limit: number; periodSeconds: number } | undefined, shard: Shard | undefined): string | undefined {
  gate.activate(concurrency);
  if (!rateLimit) return undefined;
  const share = rateLimit.limit / (shard?.total ?? 1);
  gate.pace(share, rateLimit.periodSeconds * 1000);
  const perPeriod = `${rateLimit.periodSeconds === 60 ? 'a minute' : `per ${rateLimit.periodSeconds} s`}`;
  return shard ? `rate limit: ${Number(share.toFixed(2))} requests ${perPeriod}, this shard's share of ${rateLimit.limit}` : undefined;
}

/** Writes the projects that failed, one full path a line, for a rerun with --projects-file (an empty list too). */
export function writeFailedTo(file: string, paths: string[], write: (path: string, text: string) => void): void {
  const header = `# ${plural(paths.length, 'project')} failed or not finished; rerun them with --projects-file ${file}\n`;
  write(file, header + paths.map((path) => `${path}\n`).join(''));
}

/**
 * What an interrupted run (Ctrl-C) reports: with --failed-to, what it left (failed, in flight, never started) is
 * written there first, as a projects file to run again, and the report says so.
 */
export function reportOnInterrupt(failedTo: string | undefined, report: () => string[], left: () => string[]): () => string[] {
  return () => {
    if (failedTo === undefined) return report();
    writeFailedTo(failedTo, [...new Set(left())], writeFileAtomically);
    return [...report(), `  what is left is in ${failedTo}: run it again with --projects-file ${failedTo}`];
  };
}
