import { artifacts, type Job } from './resource.js';
import { pipelines } from '../pipelines/resource.js';
import type { Context, OptionDef } from '../../cli/command.js';
import { parseInteger } from '../../parse.js';
import type { DownloadSource } from '../../download/engine.js';
import { ApiError, CliError, ExitCode, UsageError } from '../../errors.js';

/** Which job's artifacts: `--job ID`, or `--ref REF --job-name NAME` (that job in the latest successful pipeline of REF). */
export interface JobSelector {
  project?: string;
  job?: number;
  ref?: string;
  jobName?: string;
}

export const jobOption: OptionDef = { flags: '--job <id>', description: 'the job, by id', parse: parseInteger('--job', 1) };

export const selectorOptions: OptionDef[] = [
  jobOption,
  { flags: '--ref <ref>', description: 'with --job-name: the branch or tag whose latest successful pipeline has the job' },
  { flags: '--job-name <name>', description: 'with --ref: the name of the job' },
];

export type Target = { project: string; job: number } | { project: string; ref: string; jobName: string };

export function target(opts: JobSelector, ctx: Context): Target {
  const byRef = opts.ref !== undefined || opts.jobName !== undefined;
  if (opts.job !== undefined && byRef) throw new UsageError('give --job ID, or --ref REF with --job-name NAME, not both');
  if (opts.job === undefined && !byRef) throw new UsageError('which job? give --job ID, or --ref REF with --job-name NAME');
  const project = ctx.project(opts.project);
  if (opts.job !== undefined) return { project, job: opts.job };
  if (!opts.ref || !opts.jobName) throw new UsageError('--ref and --job-name go together');
  if (opts.ref === 'HEAD' || /^[0-9a-f]{40}$/i.test(opts.ref)) throw new UsageError(`--ref ${opts.ref}: give a branch or tag name (the service does not take HEAD or commit ids here)`);
  return { project, ref: opts.ref, jobName: opts.jobName };
}

export const describeTarget = (t: Target): string => ('job' in t ? `job ${t.job}` : `job "${t.jobName}" of the latest successful pipeline of ${t.ref}`);

/** A path inside an archive: relative, without `..` (the service answers 400 otherwise; checked here first). */
export function artifactPath(path: string): string {
  const clean = path.replace(/^\.\//, '');
  if (!clean || clean.startsWith('/') || clean.split('/').some((part) => part === '..' || part === '') || clean.includes('\0')) {
    throw new UsageError(`"${path}" is not a path inside the archive`, 'give it as listed by: forgectl artifacts download … --list');
  }
  return clean;
}

/**
 * Why a download answered 404, as far as the service tells: the job's record says whether it has only report
 * artifacts or none, or expired; for a ref, whether there is a successful pipeline and the job in it. Falls back to
 * the list of causes when those reads are not allowed (a CI job token).
 */
export async function explainNotFound(ctx: Context, t: Target, what: string, path?: string): Promise<CliError> {
  const lines: string[] = [];
  let found: number | undefined;
  let fileMissing = false;
  /** What keeps the job's archive from being read; when nothing does, a file asked for is what is missing. */
  const archiveMissing = (job: Job): string[] => {
    const problems = jobProblems(job, ctx.now());
    if (problems.length || path === undefined) return problems;
    fileMissing = true;
    return [`job ${job.id} (${job.name}) has artifacts, but no file ${path} in them`];
  };
  try {
    if ('job' in t) {
      const job = await ctx.api.call<Job>(artifacts.routes.get, { project: t.project, job_id: t.job });
      found = job.id;
      lines.push(...archiveMissing(job));
    } else {
      // The newest successful pipeline no other pipeline triggered (child pipelines are searched after their parent).
      const successful = await ctx.api.call<Array<{ id: number; source: string }>>(pipelines.routes.list, { project: t.project, ref: t.ref, status: 'success', per_page: 20 });
      const pipeline = successful.find((p) => p.source !== 'parent_pipeline');
      if (!pipeline) lines.push(`${t.ref} has no successful pipeline (or is not a branch or tag)`);
      else {
        const jobs = await ctx.api.call<Job[]>(artifacts.routes.pipelineJobs, { project: t.project, pipeline_id: pipeline.id, per_page: 100 });
        const job = jobs.find((j) => j.name === t.jobName);
        if (!job) lines.push(`the latest successful pipeline of ${t.ref} (${pipeline.id}) has no job "${t.jobName}" (jobs: ${[...new Set([...jobs].sort((a, b) => a.id - b.id).map((j) => j.name))].join(', ') || 'none'}); a job of a child pipeline is found only when the parent has none of that name`);
        else {
          found = job.id;
          lines.push(...archiveMissing(job));
        }
      }
    }
  } catch (error) {
    // The project itself is not there (or not visible): the service's own answer says so better than any guess.
    if (error instanceof ApiError && error.status === 404 && /project not found/i.test(error.message)) return error;
    if (error instanceof ApiError && error.status === 404 && 'job' in t) lines.push(`project ${t.project} has no job ${t.job}`);
  }
  if (!lines.length) {
    lines.push(
      'the job has no artifacts, or only report artifacts (junit, coverage …), which are downloadable only when listed under artifacts:paths',
      'the artifacts expired or were deleted',
      'job' in t ? 'the job id is wrong' : `the job is not in the latest successful pipeline of ${t.ref} (manual jobs count only when they succeeded or may fail)`,
    );
  }
  const job = found === undefined ? '<job id>' : String(found);
  const hint =
    fileMissing
      ? `the files in them: forgectl artifacts download --job ${job} --list --project ${t.project}`
      : `the job's artifacts: forgectl api "/projects/${encodeURIComponent(t.project)}/jobs/${job}" --fields artifacts,artifacts_expire_at`;
  return new CliError(`${what} of ${describeTarget(t)} not found: ${lines.join('; ')}`, ExitCode.notFound, hint);
}

function jobProblems(job: Job, now: Date): string[] {
  const archive = job.artifacts?.find((a) => a.file_type === 'archive');
  const reports = (job.artifacts ?? []).filter((a) => a.file_type !== 'archive' && a.file_type !== 'trace' && a.file_type !== 'metadata');
  if (job.status !== 'success') return [`job ${job.id} (${job.name}) is ${job.status}`];
  if (!archive && reports.length) return [`job ${job.id} (${job.name}) has only report artifacts (${reports.map((r) => r.file_type).join(', ')}), which are not downloadable unless listed under artifacts:paths`];
  if (!archive) return [`job ${job.id} (${job.name}) has no artifacts`];
  if (job.artifacts_expire_at && job.artifacts_expire_at <= now.toISOString()) return [`the artifacts of job ${job.id} expired at ${job.artifacts_expire_at}`];
  return [];
}

/** A source whose 404 is explained (see explainNotFound) instead of the bare "404 Not found". */
export function explained(source: DownloadSource, ctx: Context, t: Target, what: string, path?: string): DownloadSource {
  return {
    async open(range) {
      try {
        return await source.open(range);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) throw await explainNotFound(ctx, t, what, path);
        throw error;
      }
    },
  };
}
