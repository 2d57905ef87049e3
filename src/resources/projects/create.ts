import { projects } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { groupId, inputsOf, settingOptions, settingValues } from './settings.js';
import { withoutSecretValues } from '../variables/resource.js';

export default defineCommand<Record<string, unknown> & { namespace?: string; initializeWithReadme?: boolean }>({
  effect: 'write',
  description: 'Creates a project in a group (--namespace) or in your personal namespace, with any of the settings `projects update` takes. Needs a role in the group that its project_creation_level allows (Developer by default).',
  examples: [
    'forgectl projects create --name billing --namespace acme --merge-method ff --initialize-with-readme',
    'forgectl projects create --path scratch -o json',
  ],
  options: [
    { flags: '--namespace <id|path>', description: 'the group to create it in (default: your personal namespace)' },
    { flags: '--initialize-with-readme', description: 'start the repository with a README on the default branch' },
    ...settingOptions(inputsOf(projects), 'create', ['namespace_id']),
  ],
  async run(opts, ctx) {
    const values = settingValues(inputsOf(projects), 'create', opts);
    if (values.name === undefined && values.path === undefined) throw new UsageError('give --name or --path (or both)');
    const namespace = opts.namespace === undefined ? undefined : await groupId(ctx, opts.namespace, '--namespace');
    const created = await ctx.api.call<{ path_with_namespace: string }>(projects.routes.create, { ...values, namespace_id: namespace, initialize_with_readme: opts.initializeWithReadme || undefined });
    ctx.io.note(`Created project ${created.path_with_namespace}`);
    return withoutSecretValues(created);
  },
});
