import { verbEntries, type ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { 'runners': 'CI runners: list, pause, update, reset their tokens, find and prune stale ones' };

export const entries: ManifestEntry[] = [
  { path: 'runners list', summary: 'List runners: yours, the instance\'s, a group\'s or a project\'s', load: () => import('./list.js') },
  ...verbEntries('runners', () => import('./commands.js'), {
    get: 'Show one runner, with its last contact, tags and owners',
    update: 'Change a runner\'s description, tags, timeout, protection or note',
  }),
  ...verbEntries('runners', () => import('./pause.js'), {
    pause: 'Pause a runner: it takes no new jobs',
    resume: 'Resume a paused runner',
  }),
  { path: 'runners create', summary: 'Create a runner and hand over its authentication token', load: () => import('./create.js') },
  ...verbEntries('runners', () => import('./assign.js'), {
    assign: 'Let a project use a project runner of another project',
    unassign: 'Take a project runner from one of its projects',
  }),
  { path: 'runners delete', summary: 'Delete a runner\'s registration', load: () => import('./delete.js') },
  { path: 'runners jobs', summary: 'List the jobs a runner ran', load: () => import('./jobs.js') },
  { path: 'runners reset-token', summary: 'Reset a runner\'s authentication token, kept safe until saved', load: () => import('./reset-token.js') },
  { path: 'runners audit', summary: 'Runners not contacted for a while (exit 9 when any): for cron and monitoring', load: () => import('./audit.js') },
  { path: 'runners prune', summary: 'Delete the runners not contacted for a while, 50 at a time, after asking', load: () => import('./prune.js') },
];
