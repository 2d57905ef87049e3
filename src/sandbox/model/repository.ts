import type { StoredOf } from '../../api/fields.js';
import type { commitComments as commitCommentDeclaration, commits as commitDeclaration, commitStatuses as commitStatusDeclaration } from '../../resources/commits/resource.js';
import { pullMirror } from '../../resources/pull-mirror/resource.js';
import { pushRule } from '../../resources/push-rule/resource.js';
import { projectSnippets as declaredSnippets } from '../../resources/snippets/resource.js';
import { protectedBranches as protectedBranchDeclaration } from '../../resources/protected-branches/resource.js';
import { protectedTags as protectedTagDeclaration } from '../../resources/protected-tags/resource.js';
import type { tags as tagDeclaration } from '../../resources/tags/resource.js';
import { defineTable } from '../db.js';
import { collectionTable, singletonTable, type StoredFields, type StoredRecord } from './declared.js';

/**
 * Repositories and what is kept beside their objects (src/sandbox/git): commits, refs, tag annotations, signatures,
 * commit comments and statuses, protected branches and tags, push rules, pull mirrors; snippets and their files.
 */

/** A commit as stored: the declared fields git records, its project, its root tree and its stats. */
export type Commit = Pick<StoredOf<typeof commitDeclaration>, 'id' | 'parent_ids' | 'title' | 'message' | 'author_name' | 'author_email' | 'authored_date'
  | 'committer_name' | 'committer_email' | 'committed_date'> & {
  project_id: number;
  /** Id of the root tree (src/sandbox/git/store.ts); the commit's id is computed from it as git does. */
  tree: string;
  /** Lines added and removed against the first parent. */
  stats: { additions: number; deletions: number; total: number };
};

export interface Repository {
  project_id: number;
  branches: Record<string, string>;
  tags: Record<string, string>;
}

export const commits = defineTable<Commit>('commits');
export const repositories = defineTable<Repository>('repositories');

/** The annotation of an annotated tag: its message, its own object id (the tag's target) and when it was made. */
export type TagAnnotation = Pick<StoredOf<typeof tagDeclaration>, 'name' | 'message' | 'target' | 'created_at'> & { project_id: number };

export const tagAnnotations = defineTable<TagAnnotation>('tag_annotations');

/** The signature of a signed commit, as `GET …/commits/:sha/signature` answers it (a GPG, SSH or X.509 record). */
export interface CommitSignature {
  project_id: number;
  sha: string;
  record: Record<string, unknown>;
}

export const commitSignatures = defineTable<CommitSignature>('commit_signatures');

/** A comment on a commit (`POST …/commits/:sha/comments`): as declared, its commit and author beside. */
export type CommitComment = StoredFields<typeof commitCommentDeclaration, 'note' | 'path' | 'line' | 'line_type' | 'created_at', { project_id: number; sha: string; author_id: number }>;

export const commitComments = defineTable<CommitComment>('commit_comments');

export type CommitStatusState = CommitStatus['status'];

/** An external commit status (`POST /projects/{project}/statuses/{sha}`): as declared, its stage, coverage and author beside. */
export type CommitStatus = StoredFields<typeof commitStatusDeclaration, 'sha' | 'ref' | 'status' | 'name' | 'target_url' | 'description' | 'created_at'
  | 'started_at' | 'finished_at' | 'pipeline_id', { project_id: number; stage: string; coverage: number | null; author_id: number }>;

export const commitStatuses = defineTable<CommitStatus>('commit_statuses');

export interface CreateAccess {
  id: number;
  access_level: number;
  user_id?: number;
  group_id?: number;
  deploy_key_id?: number;
}

/** A protected tag rule as stored: its access entries without the words they are presented with. */
export type ProtectedTag = StoredRecord<typeof protectedTagDeclaration, { create_access_levels: CreateAccess[] }>;

export const protectedTagTable = collectionTable<ProtectedTag>(protectedTagDeclaration);

/**
 * A protected branch rule as stored: a name or wildcard (`release/*`) of a project, or of a group (Premium: it applies
 * to the group's projects), with its declared fields. Who may push, merge and unprotect are access entries as
 * protected tags have them (a role, a user, a group or, push only, a deploy key), stored without the words they are
 * presented with; `inherited` is presented, not stored. Every project's default branch is protected when the project
 * is created (src/sandbox/protection.ts).
 */
export type ProtectedBranch = StoredRecord<typeof protectedBranchDeclaration, Record<'push_access_levels' | 'merge_access_levels' | 'unprotect_access_levels', CreateAccess[]>, 'inherited'>;

export const protectedBranches = collectionTable<ProtectedBranch>(protectedBranchDeclaration);

/** A project's push rule (src/resources/push-rule/sandbox.ts serves it from its declaration). */
export type PushRule = StoredRecord<typeof pushRule>;

export const pushRuleTable = singletonTable<PushRule>(pushRule);

/** A project's pull mirror (src/resources/pull-mirror/sandbox.ts serves it from its declaration). */
export type PullMirror = StoredRecord<typeof pullMirror>;

export const pullMirrorTable = singletonTable<PullMirror>(pullMirror);

/**
 * A project snippet (document 2, "Project snippet"), shared by the snippets routes, notes on snippets and storage
 * moves, with its small repository (its versions, for raw files at a ref).
 */
export type Snippet = Pick<StoredOf<typeof declaredSnippets>, 'id' | 'project_id' | 'title' | 'file_name' | 'description' | 'visibility' | 'created_at' | 'updated_at' | 'imported' | 'imported_from'> & {
  author_id: number;
  /** Files of the snippet's repository at its head: path → content. */
  files: Record<string, string>;
  /** Earlier versions of the files, newest last, by commit id (raw files can be read at any of them). */
  versions?: Array<{ sha: string; files: Record<string, string> }>;
  /** What the service records about the request that created the snippet (administrators can read it). */
  user_agent_detail?: { user_agent: string; ip_address: string; akismet_submitted: boolean };
  /** Absent on snippets created by modules that do not track storage: they are on `default`. */
  repository_storage?: string;
  /** Set while a repository storage move runs. */
  repository_read_only?: boolean;
};

export const snippets = collectionTable<Snippet>(declaredSnippets);

/** A personal snippet (`/snippets`): a user's, outside any project; its files as a project snippet's. */
export type PersonalSnippet = Pick<Snippet, 'id' | 'title' | 'description' | 'visibility' | 'created_at' | 'updated_at' | 'author_id' | 'files'>;

export const personalSnippets = defineTable<PersonalSnippet>('personal_snippets');
