import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** The states of a pipeline, and what started one. */
export const PIPELINE_STATUSES = ['success', 'failed', 'running', 'pending', 'canceled', 'manual'] as const;
export const PIPELINE_SOURCES = ['push', 'web', 'parent_pipeline'] as const;

/**
 * CI pipelines of a project. The artifact commands list them to find the jobs whose artifacts to fetch (the jobs
 * of a pipeline are artifacts.ts's); one pipeline by id the sandbox serves for other clients (python-gitlab).
 */
export const pipelines = defineResource({
  noun: 'pipeline',
  command: 'artifacts',
  parent: 'project',
  id: { param: 'pipeline_id', field: 'id' },
  routes: {
    list: 'GET /projects/{project}/pipelines',
    get: 'GET /projects/{project}/pipelines/{pipeline_id}',
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    iid: f.int({ min: 1, readOnly: true }),
    project_id: f.int({ readOnly: true }),
    sha: f.string({ readOnly: true }),
    ref: f.string({ readOnly: true }),
    status: f.enum(PIPELINE_STATUSES, { readOnly: true }),
    source: f.enum(PIPELINE_SOURCES, { readOnly: true }),
    created_at: f.time({ readOnly: true }),
    updated_at: f.time({ readOnly: true }),
    web_url: f.url({ readOnly: true }),
  },
  filters: { ref: f.string(), status: f.string() },
  columns: ['id', 'ref', 'status', 'source', 'created_at'],
  identity: ['id'],
  roles: { read: 'reporter', write: 'maintainer' },
});
