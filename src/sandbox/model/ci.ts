import { runners as declaredRunners } from '../../resources/runners/resource.js';
import type { secureFiles as declaredSecureFiles } from '../../resources/secure-files/resource.js';
import { artifacts as declaredJobs, type JobArtifact } from '../../resources/artifacts/resource.js';
import { pipelines as declaredPipelines } from '../../resources/pipelines/resource.js';
import { defineTable } from '../db.js';
import type { StoredOf } from '../../api/fields.js';
import { collectionTable, type StoredRecord } from './declared.js';

/** CI: pipelines and jobs (with their artifacts), runners, variables, secure files. */

/**
 * A pipeline as stored: the declared fields (web_url computed), whether its ref is a tag, the pipeline that triggered
 * it (a child pipeline's parent), who ran it and when it finished.
 */
export type Pipeline = StoredRecord<typeof declaredPipelines, { project_id: number; tag: boolean; parent_id: number | null; user_id: number; finished_at: string | null }, 'web_url'>;

/** An entry of a stored archive: text, base64 bytes, or generated content (large artifacts). */
export interface StoredEntry {
  name: string;
  text?: string;
  base64?: string;
  generated?: { size: number; seed: string };
  mode?: number;
}

/**
 * A job as stored: the declared fields but those the service derives from its pipeline, its project, its user and its
 * artifacts; the downloadable archive (artifacts.zip) or null, and the report artifacts (junit …), listed on the job
 * but not downloadable as the archive.
 */
export type Job = StoredRecord<typeof declaredJobs, {
  project_id: number;
  pipeline_id: number;
  user_id: number;
  archive: StoredEntry[] | null;
  reports: JobArtifact[];
}, 'ref' | 'tag' | 'coverage' | 'erased_at' | 'duration' | 'queued_duration' | 'user' | 'commit' | 'pipeline' | 'web_url' | 'artifacts' | 'artifacts_file' | 'tag_list'>;

export const pipelines = collectionTable<Pipeline>(declaredPipelines);
export const jobs = defineTable<Job>('jobs');

/**
 * A runner as stored: the declared fields but those the service derives (its status and what follows from it, its
 * projects and groups, read from project_ids and group_id); its authentication token.
 */
export type Runner = Omit<StoredOf<typeof declaredRunners>, 'active' | 'is_shared' | 'name' | 'online' | 'status' | 'revision' | 'projects' | 'groups'> & {
  // Not StoredRecord's parent ids: a runner of the instance, a group or projects is one record served at every placement.
  /** The owning group of a group runner (null for the others); the projects of a project runner (the first is its owner). */
  group_id: number | null;
  project_ids: number[];
  token: string;
  token_expires_at: string | null;
};

export const runnerTable = defineTable<Runner>('ci_runners');
/** Which runner ran which job. */
export const runnerJobs = defineTable<{ runner_id: number; job_id: number }>('ci_runner_jobs');

/** A stored secure file: its contents in base64 (the state file is JSON); the checksum's algorithm and metadata are computed. */
export type StoredSecureFile = StoredRecord<typeof declaredSecureFiles, { project_id: number; data: string }, 'checksum_algorithm' | 'metadata'>;
