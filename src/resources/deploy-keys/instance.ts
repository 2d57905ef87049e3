import { INSTANCE_DEPLOY_KEYS } from './resource.js';
import { defineCommand } from '../../cli/command.js';

type Projects = Array<{ path_with_namespace: string }> | null | undefined;
type InstanceKey = Record<string, unknown> & { projects_with_write_access?: Projects; projects_with_readonly_access?: Projects };

export default defineCommand<{ public?: boolean }>({
  effect: 'read',
  description: 'Every deploy key of the instance, with the projects it is enabled on. Administrators only.',
  examples: ['forgectl deploy-keys instance', 'forgectl deploy-keys instance -o json'],
  options: [{ flags: '--public', description: 'only instance deploy keys (any project may enable them)' }],
  list: true,
  columns: ['id', 'title', 'fingerprint_sha256', 'projects'],
  async run(opts, ctx) {
    const list = ctx.api.list<InstanceKey>(INSTANCE_DEPLOY_KEYS.list, { public: opts.public || undefined }, ctx.paging);
    // Both lists are optional: instances before 16.0 send no projects_with_readonly_access.
    return list.map((key) => ({
      ...key,
      projects: [...(key.projects_with_write_access ?? []).map((p) => `${p.path_with_namespace} (push)`), ...(key.projects_with_readonly_access ?? []).map((p) => p.path_with_namespace)].join(', '),
    }));
  },
});
