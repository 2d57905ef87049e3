import { verbEntries } from '../../cli/command.js';

export const groups: Record<string, string> = { 'freeze-periods': 'Deploy freeze periods' };

export const entries = verbEntries('freeze-periods', () => import('./commands.js'), {
  list: 'List the deploy freeze periods of a project',
  get: 'Show one freeze period',
  create: 'Add a freeze period (cron checked locally)',
  update: 'Change a freeze period',
  delete: 'Remove a freeze period',
});
