import { INSTANCE_DEPLOY_KEYS } from '../../api/resources/deploy-keys.js';
import { defineCommand } from '../../cli/command.js';

export default defineCommand<{ public?: boolean }>({
  effect: 'read',
  description: 'Every deploy key of the instance, with the projects it is enabled on. Administrators only.',
  examples: ['forgectl deploy-keys instance', 'forgectl deploy-keys instance -o json'],
  options: [{ flags: '--public', description: 'only instance deploy keys (any project may enable them)' }],
  list: true,
  columns: ['id', 'title', 'fingerprint_sha256', 'projects'],
  async run(opts, ctx) {
    const list = ctx.api.list<Record<string, unknown>>(INSTANCE_DEPLOY_KEYS.list, { public: opts.public || undefined }, ctx.paging);
    return list.map((key) => ({
      ...key,
      projects: [...(key.projects_with_write_access as Array<{ path_with_namespace: string }>).map((p) => `${p.path_with_namespace} (push)`), ...(key.projects_with_readonly_access as Array<{ path_with_namespace: string }>).map((p) => p.path_with_namespace)].join(', '),
    }));
  },
});
