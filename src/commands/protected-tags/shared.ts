import { p } from '../../api/path.js';

export const tagsPath = (project: string): string => p`/projects/${project}/protected_tags`;
/** The tag name or wildcard is one encoded path segment: "release/*" goes as release%2F*, never with a raw slash. */
export const tagPath = (project: string, name: string): string => p`/projects/${project}/protected_tags/${name}`;
