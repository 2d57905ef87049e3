import { p } from '../../api/path.js';

export const pushRulePath = (project: string): string => p`/projects/${project}/push_rule`;
