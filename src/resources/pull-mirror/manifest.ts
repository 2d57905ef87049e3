import { verbEntries, type ManifestEntry } from '../../cli/command.js';

/** `mirror` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'mirror': 'Repository mirroring', 'mirror pull': 'Pull mirroring (Premium; credentials never shown)' };

export const entries: ManifestEntry[] = [
  ...verbEntries('mirror pull', () => import('./commands.js'), {
    get: 'Show the pull mirror of a project and its last update',
    set: 'Configure pull mirroring of a project',
  }),
  { path: 'mirror pull sync', summary: 'Start a mirror update now', load: () => import('./sync.js') },
  { path: 'mirror pull disable', summary: 'Stop pull mirroring of a project', load: () => import('./disable.js') },
];
