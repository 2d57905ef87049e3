import { verbEntries } from '../../cli/command.js';

export const groups: Record<string, string> = { 'push-rule': 'Project push rule (Premium)' };

export const entries = verbEntries('push-rule', () => import('./commands.js'), {
  get: 'Show the push rule of a project',
  set: 'Create or update the push rule of a project',
  delete: 'Remove the push rule of a project',
});
