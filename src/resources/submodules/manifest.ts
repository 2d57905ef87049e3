import type { ManifestEntry } from '../../cli/command.js';

/** `submodules` commands. */
export const groups: Record<string, string> = { submodules: 'Submodule references' };

export const entries: ManifestEntry[] = [{ path: 'submodules update', summary: 'Point a submodule to another commit', load: () => import('./update.js') }];
