import { artifacts as declaredJobs } from '../resources/artifacts/resource.js';
import { pipelines as declaredPipelines } from '../resources/pipelines/resource.js';
import type { Db } from './db.js';
import { jobs, pipelines, projects, users, type Job, type Pipeline, type Project, type StoredEntry } from './model.js';
import { presentUserBasic } from './present.js';
import { presentRecord, type Values } from './records.js';
import { projectPayload } from './webhook-payloads.js';
import type { HookEnv } from './webhooks.js';
import { zipLayout, type ZipEntrySource } from './zip.js';

/** Pipelines and jobs as other modules see them: a job's pipeline, their answers, and webhook samples of their events. */

export const pipelineOf = (db: Db, job: Job): Pipeline => pipelines(db).find((p) => p.id === job.pipeline_id)!;

/** What the service derives of a pipeline: its page. */
export const pipelineComputed = (env: HookEnv, pipeline: Pipeline, project: Project): { web_url: string } => ({
  web_url: `${env.rootUrl}/${project.path_with_namespace}/-/pipelines/${pipeline.id}`,
});

/** A pipeline as the API presents it (in lists, in a job, and in pipeline events). */
export const pipelineAnswer = (env: HookEnv, pipeline: Pipeline, project: Project): Values => presentRecord(declaredPipelines, pipeline, pipelineComputed(env, pipeline, project));

/** A stored archive entry as the zip writer takes it. */
export const toZipEntry = (entry: StoredEntry): ZipEntrySource => ({
  name: entry.name,
  mode: entry.mode,
  generated: entry.generated,
  data: entry.generated ? undefined : entry.base64 !== undefined ? Buffer.from(entry.base64, 'base64') : Buffer.from(entry.text ?? '', 'utf8'),
});

/** What the service derives of a job from its pipeline (ref, tag, commit), its user and its times. */
function jobBasics(env: HookEnv, job: Job, pipeline: Pipeline): Values {
  const user = users(env.db).find((u) => u.id === job.user_id);
  const duration = job.started_at && job.finished_at ? (Date.parse(job.finished_at) - Date.parse(job.started_at)) / 1000 : null;
  return { ref: pipeline.ref, tag: pipeline.tag, duration, user: user ? presentUserBasic(user, env.rootUrl) : null, commit: { id: pipeline.sha, short_id: pipeline.sha.slice(0, 8) } };
}

/** What the service derives of a job: from its pipeline, its user, its artifacts, the clock. */
function jobComputed(env: HookEnv, job: Job, project: Project): Values {
  const pipeline = pipelineOf(env.db, job);
  const archive = job.archive ? zipLayout(job.archive.map(toZipEntry)) : undefined;
  return {
    ...jobBasics(env, job, pipeline),
    queued_duration: 1.2,
    pipeline: pipelineAnswer(env, pipeline, project),
    web_url: `${env.rootUrl}/${project.path_with_namespace}/-/jobs/${job.id}`,
    artifacts: [...(archive ? [{ file_type: 'archive', size: archive.size, filename: 'artifacts.zip', file_format: 'zip' }] : []), ...job.reports],
    artifacts_file: archive ? { filename: 'artifacts.zip', size: archive.size } : null,
    tag_list: [],
  };
}

/** A job as the API presents it. */
export const jobAnswer = (env: HookEnv, job: Job, project: Project): Values => presentRecord(declaredJobs, job, jobComputed(env, job, project));

/** A runner's list of its jobs goes without these fields of a job, and has its project after them. */
const RUNNER_JOB_VIEW = {
  fields: declaredJobs.fields,
  without: ['allow_failure', 'erased_at', 'queued_duration', 'web_url', 'artifacts', 'artifacts_file', 'artifacts_expire_at', 'tag_list', 'when'],
};

/** A job as a runner's list of its jobs presents it: fewer fields, a brief pipeline, and its project. */
export function runnerJobAnswer(env: HookEnv, job: Job): Values {
  const pipeline = pipelineOf(env.db, job);
  const project = projects(env.db).find((p) => p.id === job.project_id)!;
  const brief = { id: pipeline.id, project_id: pipeline.project_id, ref: pipeline.ref, sha: pipeline.sha, status: pipeline.status };
  return {
    ...presentRecord(RUNNER_JOB_VIEW, job, { ...jobBasics(env, job, pipeline), pipeline: brief }),
    project: projectBrief(project),
  };
}

/** A project as a runner's answers name it (its jobs', its projects): by its path, the namespace's path in its name. */
export const projectBrief = (project: Project): Values => ({ id: project.id, name: project.name, name_with_namespace: project.path_with_namespace.split('/').join(' / '), path: project.path, path_with_namespace: project.path_with_namespace });

/** Sample payloads for webhook tests of pipeline and job events: the project's newest pipeline or job. */
export function pipelineSample(env: HookEnv, project: Project, kind: 'job_events' | 'pipeline_events'): unknown {
  const newest = <T extends { id: number; project_id: number }>(list: T[]) => list.filter((x) => x.project_id === project.id).sort((a, b) => b.id - a.id)[0];
  if (kind === 'job_events') {
    const job = newest(jobs(env.db));
    if (!job) return undefined;
    const pipeline = pipelineOf(env.db, job);
    return {
      object_kind: 'build',
      ref: pipeline.ref,
      tag: pipeline.tag,
      before_sha: '0'.repeat(40),
      sha: pipeline.sha,
      build_id: job.id,
      build_name: job.name,
      build_stage: job.stage,
      build_status: job.status,
      build_created_at: job.created_at,
      build_started_at: job.started_at,
      build_finished_at: job.finished_at,
      build_allow_failure: job.allow_failure,
      pipeline_id: pipeline.id,
      project_id: project.id,
      project_name: project.name,
      project: projectPayload(env, project),
    };
  }
  const pipeline = newest(pipelines(env.db));
  if (!pipeline) return undefined;
  return {
    object_kind: 'pipeline',
    object_attributes: { ...pipelineAnswer(env, pipeline, project), finished_at: pipeline.finished_at },
    project: projectPayload(env, project),
    builds: jobs(env.db).filter((j) => j.pipeline_id === pipeline.id).map((j) => ({ id: j.id, stage: j.stage, name: j.name, status: j.status })),
  };
}
