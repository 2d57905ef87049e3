import type { Db } from './db.js';
import { jobs, pipelines, type Job, type Pipeline, type Project } from './model.js';
import { projectPayload } from './webhook-payloads.js';
import type { HookEnv } from './webhooks.js';

/** Pipelines as other modules see them: a job's pipeline, the pipeline view, and webhook samples of their events. */

export const pipelineOf = (db: Db, job: Job): Pipeline => pipelines(db).find((p) => p.id === job.pipeline_id)!;

/** A pipeline as the API presents it (in lists, in a job, and in pipeline events). */
export function presentPipeline(req: HookEnv, pipeline: Pipeline, project: Project): Record<string, unknown> {
  return {
    id: pipeline.id,
    iid: pipeline.iid,
    project_id: pipeline.project_id,
    sha: pipeline.sha,
    ref: pipeline.ref,
    status: pipeline.status,
    source: pipeline.source,
    created_at: pipeline.created_at,
    updated_at: pipeline.updated_at,
    web_url: `${req.rootUrl}/${project.path_with_namespace}/-/pipelines/${pipeline.id}`,
  };
}

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
    object_attributes: { ...presentPipeline(env, pipeline, project), finished_at: pipeline.finished_at },
    project: projectPayload(env, project),
    builds: jobs(env.db).filter((j) => j.pipeline_id === pipeline.id).map((j) => ({ id: j.id, stage: j.stage, name: j.name, status: j.status })),
  };
}
