import { verbEntries, type ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { 'group-badges': 'Group badges (shown on every project of the group)' };

export const entries: ManifestEntry[] = verbEntries('group-badges', () => import('./commands.js'), {
  list: 'List the badges of a group',
  get: 'Show one group badge',
  create: 'Add a badge to a group',
  update: 'Change a group badge',
  delete: 'Remove a group badge',
});
