import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

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
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    status: f.string({ readOnly: true }),
    stage: f.string({ readOnly: true }),
    name: f.string({ readOnly: true }),
    ref: f.string({ readOnly: true }),
    tag: f.bool({ readOnly: true }),
    created_at: f.time({ readOnly: true }),
    finished_at: f.time({ readOnly: true }),
    pipeline: f.object(),
    web_url: f.url({ readOnly: true }),
    artifacts: f.object(),
    artifacts_file: f.object(),
    artifacts_expire_at: f.time({ readOnly: true }),
  },
  columns: ['id', 'name', 'status', 'ref', 'artifacts_file.size', 'artifacts_expire_at'],
  identity: ['id'],
  roles: { read: 'reporter', write: 'maintainer' },
});

/** A job record, as far as the artifact commands read it. */
export interface Job {
  id: number;
  name: string;
  status: string;
  stage: string;
  ref: string;
  tag: boolean;
  pipeline: { id: number; status: string; ref: string; sha: string };
  web_url: string;
  artifacts: Array<{ file_type: string; size: number; filename: string; file_format: string | null }>;
  artifacts_file: { filename: string; size: number } | null;
  artifacts_expire_at: string | null;
}
