import { commits } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseChoice, parseDateTime } from '../../parse.js';
import { repoPath } from '../../git/content.js';

export default defineCommand<{ project?: string; ref?: string; since?: string; until?: string; path?: string; author?: string; allRefs?: boolean; firstParent?: boolean; order?: string; withStats?: boolean; trailers?: boolean }>({
  effect: 'read',
  description: 'Newest first. The service does not count commits: "more exist" comes from its next link. (--all fetches every page, as in every list; --all-refs lists the commits of every branch and tag.)',
  examples: ['forgectl commits list --project acme/api', 'forgectl commits list --ref main --path src --since 2026-01-01T00:00:00Z --project acme/api', 'forgectl commits list --ref v1.0.0..main --all --project acme/api -o ndjson'],
  options: [
    projectOption,
    { flags: '--ref <ref>', description: 'branch, tag, commit or range A..B (default: the default branch)' },
    { flags: '--since <datetime>', description: 'committed at or after (ISO 8601)', parse: parseDateTime('--since') },
    { flags: '--until <datetime>', description: 'committed at or before (ISO 8601)', parse: parseDateTime('--until') },
    { flags: '--path <path>', description: 'only commits that change this file or folder' },
    { flags: '--author <text>', description: 'only commits whose author name or email contains this' },
    { flags: '--all-refs', description: 'commits of every branch and tag' },
    { flags: '--first-parent', description: 'follow only the first parent of merge commits' },
    { flags: '--order <order>', description: 'default (newest first) or topo', parse: parseChoice('--order', ['default', 'topo'] as const) },
    { flags: '--with-stats', description: 'added and removed lines of each commit' },
    { flags: '--trailers', description: 'parse trailers (Signed-off-by: …) of each message' },
  ],
  list: true,
  columns: commits.columns,
  async run(opts, ctx) {
    return ctx.api.list(
      commits.routes.list,
      {
        project: ctx.project(opts.project),
        ref_name: opts.ref,
        since: opts.since,
        until: opts.until,
        path: opts.path ? repoPath(opts.path) : undefined,
        author: opts.author,
        all: opts.allRefs || undefined,
        first_parent: opts.firstParent || undefined,
        order: opts.order,
        with_stats: opts.withStats || undefined,
        trailers: opts.trailers || undefined,
      },
      ctx.paging,
    );
  },
});
