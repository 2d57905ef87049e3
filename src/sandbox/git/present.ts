import { commits as declaredCommits } from '../../resources/commits/resource.js';
import type { Commit, Project } from '../model.js';
import { presentRecord } from '../records.js';

/** JSON views of commits and tree entries, as the service shows them. */

/** Trailers of a message: the lines "Key: value" of its last paragraph (git interpret-trailers). */
function parseTrailers(message: string): Record<string, string[]> {
  const paragraphs = message.trim().split(/\n\s*\n/);
  if (paragraphs.length < 2) return {};
  const lines = paragraphs[paragraphs.length - 1].split('\n');
  const trailers: Record<string, string[]> = {};
  for (const line of lines) {
    const match = /^([A-Za-z0-9][A-Za-z0-9-]*):\s*(.*)$/.exec(line);
    if (!match) return {};
    (trailers[match[1]] ??= []).push(match[2]);
  }
  return trailers;
}

/** The commit summary of compare results and blame: the declared fields but the trailers and stats. */
const SUMMARY = { fields: declaredCommits.fields, without: ['trailers', 'extended_trailers', 'stats'] };

export function presentCommitSummary(commit: Commit, project: Project, rootUrl: string): Record<string, unknown> {
  const web_url = `${rootUrl}/${project.path_with_namespace}/-/commit/${commit.id}`;
  return presentRecord(SUMMARY, commit, { short_id: commit.id.slice(0, 8), created_at: commit.committed_date, web_url });
}

/** A commit record: trailers when asked (always on a single commit), stats when asked. */
export function presentCommit(commit: Commit, project: Project, rootUrl: string, options: { stats?: boolean; trailers?: boolean; single?: boolean } = {}): Record<string, unknown> {
  const extended = options.trailers || options.single ? parseTrailers(commit.message) : {};
  const record: Record<string, unknown> = {
    ...presentCommitSummary(commit, project, rootUrl),
    trailers: Object.fromEntries(Object.entries(extended).map(([k, v]) => [k, v[v.length - 1]])),
    extended_trailers: extended,
  };
  if (options.stats) record.stats = commit.stats;
  if (options.single) Object.assign(record, { status: null, project_id: project.id, last_pipeline: null });
  return record;
}
