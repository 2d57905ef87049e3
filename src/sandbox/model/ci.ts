import type { RUNNER_TYPES } from '../../resources/runners/resource.js';
import type { SecureFile } from '../../resources/secure-files/resource.js';
import { defineTable } from '../db.js';

/** CI: pipelines and jobs (with their artifacts), runners, variables, secure files. */

export type PipelineStatus = 'success' | 'failed' | 'running' | 'pending' | 'canceled' | 'manual';

export interface Pipeline {
  id: number;
  iid: number;
  project_id: number;
  ref: string;
  tag: boolean;
  sha: string;
  status: PipelineStatus;
  source: 'push' | 'web' | 'parent_pipeline';
  /** The pipeline that triggered this child pipeline. */
  parent_id: number | null;
  user_id: number;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** An entry of a stored archive: text, base64 bytes, or generated content (large artifacts). */
export interface StoredEntry {
  name: string;
  text?: string;
  base64?: string;
  generated?: { size: number; seed: string };
  mode?: number;
}

export interface Job {
  id: number;
  project_id: number;
  pipeline_id: number;
  name: string;
  stage: string;
  status: 'success' | 'failed' | 'running' | 'manual' | 'canceled' | 'skipped' | 'created';
  when: 'on_success' | 'manual';
  allow_failure: boolean;
  user_id: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** The downloadable archive (artifacts.zip), or null. */
  archive: StoredEntry[] | null;
  /** Report artifacts (junit, …): listed on the job, not downloadable as the archive. */
  reports: Array<{ file_type: string; filename: string; size: number; file_format: string }>;
  artifacts_expire_at: string | null;
}

export const pipelines = defineTable<Pipeline>('pipelines');
export const jobs = defineTable<Job>('jobs');

export interface Runner {
  id: number;
  description: string;
  runner_type: (typeof RUNNER_TYPES)[number];
  paused: boolean;
  contacted_at: string | null;
  created_at: string;
  ip_address: string | null;
  maintenance_note: string | null;
  tag_list: string[];
  run_untagged: boolean;
  locked: boolean;
  access_level: 'not_protected' | 'ref_protected';
  maximum_timeout: number | null;
  version: string | null;
  platform: string | null;
  architecture: string | null;
  /** The owning group of a group runner; the projects of a project runner (the first is its owner). */
  group_id: number | null;
  project_ids: number[];
  token: string;
  token_expires_at: string | null;
}

export const runnerTable = defineTable<Runner>('ci_runners');
/** Which runner ran which job. */
export const runnerJobs = defineTable<{ runner_id: number; job_id: number }>('ci_runner_jobs');

/** A stored secure file: its contents in base64 (the state file is JSON). */
export type StoredSecureFile = Pick<SecureFile, 'id' | 'name' | 'checksum' | 'created_at' | 'expires_at'> & { project_id: number; data: string };
