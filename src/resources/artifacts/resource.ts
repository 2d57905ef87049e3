import { f, type RecordOf } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** The states of a job. */
export const JOB_STATUSES = ['created', 'manual', 'running', 'success', 'failed', 'canceled', 'skipped'] as const;

/** An artifact of a job: its archive, or a report (junit …). */
export interface JobArtifact {
  file_type: string;
  size: number;
  filename: string;
  file_format: string | null;
}

/**
 * Job artifacts: the archive (artifacts.zip) and single files of a CI job, by job id or as "the job of this name in
 * the latest successful pipeline of a ref" (found through the pipelines, pipelines.ts); keeping and deleting them. The
 * records are jobs.
 */
export const artifacts = defineResource({
  noun: 'job',
  command: 'artifacts',
  parent: 'project',
  id: { param: 'job_id', field: 'id' },
  routes: {
    /** The jobs of a project (the sandbox serves it for other clients; no command lists them). */
    list: 'GET /projects/{project}/jobs',
    get: 'GET /projects/{project}/jobs/{job_id}',
    archive: 'GET /projects/{project}/jobs/{job_id}/artifacts',
    archiveByRef: 'GET /projects/{project}/jobs/artifacts/{ref_name}/download',
    file: 'GET /projects/{project}/jobs/{job_id}/artifacts/{*artifact_path}',
    fileByRef: 'GET /projects/{project}/jobs/artifacts/{ref_name}/raw/{*artifact_path}',
    keep: 'POST /projects/{project}/jobs/{job_id}/artifacts/keep',
    delete: 'DELETE /projects/{project}/jobs/{job_id}/artifacts',
    deleteAll: 'DELETE /projects/{project}/artifacts',
    pipelineJobs: 'GET /projects/{project}/pipelines/{pipeline_id}/jobs',
  },
  fields: {                                    // in the order the service presents them
    id: f.int({ min: 1, readOnly: true }),
    status: f.enum(JOB_STATUSES, { readOnly: true }),
    stage: f.string({ readOnly: true }),
    name: f.string({ readOnly: true }),
    ref: f.string({ readOnly: true }),
    tag: f.bool({ readOnly: true }),
    /** A percentage, from the job's log; null when the project parses none. */
    coverage: f.int({ readOnly: true, nullable: true }),
    allow_failure: f.bool({ readOnly: true }),
    created_at: f.time({ readOnly: true }),
    started_at: f.time({ readOnly: true, nullable: true }),
    finished_at: f.time({ readOnly: true, nullable: true }),
    erased_at: f.time({ readOnly: true, nullable: true }),
    /** Seconds, with a fraction: from start to finish, and waiting for a runner. */
    duration: f.int({ readOnly: true, nullable: true }),
    queued_duration: f.int({ readOnly: true, nullable: true }),
    user: f.object(),
    commit: f.object<{ id: string; short_id: string }>(),
    pipeline: f.object<{ id: number; status: string; ref: string; sha: string }>(),
    web_url: f.url({ readOnly: true }),
    artifacts: f.object<JobArtifact[]>(),
    artifacts_file: f.object<{ filename: string; size: number } | null>(),
    artifacts_expire_at: f.time({ readOnly: true, nullable: true }),
    tag_list: f.list({ readOnly: true }),
    when: f.enum(['on_success', 'manual'], { readOnly: true }),
  },
  columns: ['id', 'name', 'status', 'ref', 'artifacts_file.size', 'artifacts_expire_at'],
  identity: ['id'],
  roles: { read: 'reporter', write: 'maintainer' },
});

/** A job as the service presents it. */
export type Job = RecordOf<typeof artifacts>;
