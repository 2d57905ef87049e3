import { repositoryTree, type FileDiff } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { UsageError } from '../../errors.js';
import { TextResult } from '../../output/result.js';
import { plural } from '../../parse.js';

interface Comparison {
  commit: unknown;
  commits: Array<{ id: string; title: string }>;
  diffs: FileDiff[];
  compare_timeout: boolean;
  compare_same_ref: boolean;
  web_url: string;
}

type Flags = { project?: string; from: string; to: string; straight?: boolean; fromProject?: string; unidiff?: boolean; stat?: boolean; nameOnly?: boolean; patch?: boolean };

export default defineCommand<Flags>({
  effect: 'read',
  description:
    'Compares from the merge base of FROM and TO (--straight: from FROM itself). Shows one line per changed file with its line counts; --name-only the paths; --patch a patch that `git apply` accepts; -o json the whole comparison. Warns when the service timed out or emptied diffs that were too large.',
  examples: [
    'forgectl repo compare main feature --project acme/api',
    'forgectl repo compare main feature --patch --project acme/api | git apply --check',
    'forgectl repo compare v1.0.0 v1.1.0 --name-only --project acme/api',
  ],
  args: [{ spec: '<from>', description: 'the base: a branch, tag or commit SHA' }, { spec: '<to>', description: 'the head compared with it: a branch, tag or commit SHA' }],
  options: [
    projectOption,
    { flags: '--straight', description: 'compare FROM..TO directly instead of from the merge base' },
    { flags: '--from-project <id>', description: 'the project FROM is in (a fork), by numeric id' },
    { flags: '--unidiff', description: 'diffs with ---/+++ headers (unified format)' },
    { flags: '--stat', description: 'one line per changed file with added and removed lines (the default)' },
    { flags: '--name-only', description: 'only the paths of changed files' },
    { flags: '--patch', description: 'a patch for git apply' },
  ],
  columns: ['status', 'path', 'additions', 'deletions'],
  async run(opts, ctx) {
    if ([opts.stat, opts.nameOnly, opts.patch].filter(Boolean).length > 1) throw new UsageError('choose one of --stat, --name-only and --patch');
    if (opts.fromProject !== undefined && !/^\d+$/.test(opts.fromProject)) throw new UsageError(`--from-project takes a numeric project id, got "${opts.fromProject}"`);
    const comparison = await ctx.api.call<Comparison>(repositoryTree.routes.compare, {
      project: ctx.project(opts.project),
      from: opts.from,
      to: opts.to,
      straight: opts.straight || undefined,
      from_project_id: opts.fromProject,
      unidiff: opts.unidiff || opts.patch || undefined,
    });
    if (comparison.compare_timeout) ctx.io.warn('the service timed out computing the comparison: the result may be incomplete');
    const emptied = comparison.diffs.filter((d) => d.too_large || (!d.diff && !d.renamed_file && d.a_mode === d.b_mode && !d.new_file && !d.deleted_file));
    if (emptied.length) ctx.io.warn(`the service left out the diff of ${plural(emptied.length, 'file')} (too large): ${emptied.map((d) => d.new_path).join(', ')}`);
    if (opts.patch) return new TextResult(comparison.diffs.map(gitPatch).join(''));
    if (opts.nameOnly) return new TextResult(comparison.diffs.map((d) => `${d.new_path}\n`).join(''));
    if (!opts.stat && (ctx.format === 'json' || ctx.format === 'yaml')) return comparison;
    return comparison.diffs.map((d) => ({ status: status(d), path: d.renamed_file ? `${d.old_path} → ${d.new_path}` : d.new_path, ...lineCounts(d.diff) }));
  },
});

function status(d: FileDiff): string {
  if (d.new_file) return 'added';
  if (d.deleted_file) return 'deleted';
  if (d.renamed_file) return 'renamed';
  if (d.a_mode !== d.b_mode && !d.diff) return 'mode';
  return 'modified';
}

function lineCounts(diff: string): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+') && !line.startsWith('+++ ')) additions++;
    else if (line.startsWith('-') && !line.startsWith('--- ')) deletions++;
  }
  return { additions, deletions };
}

/** One file's change as `git diff` writes it: header, mode lines, and the hunks (unified diff from the service). */
export function gitPatch(d: FileDiff): string {
  const lines = [`diff --git a/${d.old_path} b/${d.new_path}`];
  if (d.new_file) lines.push(`new file mode ${d.b_mode}`);
  else if (d.deleted_file) lines.push(`deleted file mode ${d.a_mode}`);
  else if (d.a_mode !== d.b_mode) lines.push(`old mode ${d.a_mode}`, `new mode ${d.b_mode}`);
  if (d.renamed_file) lines.push(`rename from ${d.old_path}`, `rename to ${d.new_path}`);
  let body = d.diff;
  if (body && !body.startsWith('--- ') && !body.startsWith('Binary files')) {
    body = `--- ${d.new_file ? '/dev/null' : `a/${d.old_path}`}\n+++ ${d.deleted_file ? '/dev/null' : `b/${d.new_path}`}\n${body}`;
  }
  return `${lines.join('\n')}\n${body}`;
}
