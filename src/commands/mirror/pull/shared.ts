import { p } from '../../../api/path.js';

export const pullMirrorPath = (project: string): string => p`/projects/${project}/mirror/pull`;
