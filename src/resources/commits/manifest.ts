import type { ManifestEntry } from '../../cli/command.js';

/** `commits` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { commits: 'Commits: list, show, create from local files, cherry-pick, revert, statuses' };

export const entries: ManifestEntry[] = [
  { path: 'commits list', summary: 'List the commits of a branch, tag or range', load: () => import('./list.js') },
  { path: 'commits get', summary: 'Show one commit', load: () => import('./get.js') },
  { path: 'commits create', summary: 'Commit local files, folders, deletes and moves in one commit', load: () => import('./create.js') },
  { path: 'commits refs', summary: 'List the branches and tags that contain a commit', load: () => import('./refs.js') },
  { path: 'commits sequence', summary: "Show a commit's sequence number", load: () => import('./sequence.js') },
  { path: 'commits cherry-pick', summary: 'Apply a commit to another branch', load: () => import('./cherry-pick.js') },
  { path: 'commits revert', summary: 'Undo a commit on a branch with a new commit', load: () => import('./revert.js') },
  { path: 'commits statuses', summary: 'List the statuses (external checks, jobs) of a commit', load: () => import('./statuses.js') },
  { path: 'commits set-status', summary: 'Report the state of an external check on a commit', load: () => import('./set-status.js') },
];
