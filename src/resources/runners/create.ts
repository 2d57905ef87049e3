import { creatableFields, routeOf } from '../../api/resource.js';
import { projects } from '../projects/resource.js';
import { groups } from '../groups/resource.js';
import { defineCommand } from '../../cli/command.js';
import { groupOption, projectOption } from '../../cli/options.js';
import { fieldOptions, fieldValues } from '../../cli/resource-commands.js';
import { UsageError } from '../../errors.js';
import { assertPrintTarget, handOverSecret, printTokenOption, secretFileFor } from '../../commands/new-secret.js';
import { byId, describeRunner } from './shared.js';

/** The settings a new runner may be given (its description, tags, protection …), as `runners update` takes them. */
const SETTINGS = creatableFields(byId).filter(([name]) => name !== 'projects' && name !== 'groups');

type Options = { instance?: boolean; group?: string; project?: string; outputFile?: string; printToken?: boolean } & Record<string, unknown>;

interface Created {
  id: number;
  token: string;
  token_expires_at: string | null;
}

export default defineCommand<Options>({
  description: [
    'Creates a runner of the instance (administrators), a group (its Owner) or a project (its Maintainer) and hands',
    "over its authentication token, which the service shows only in this answer: printed once, or with --output-file",
    'written there (mode 0600, atomically) and not printed (in a CI job, off a terminal, printed only with --print-token); the runner machine registers with it',
    '(gitlab-runner register --token …). If the file cannot be written the runner is deleted again.',
  ].join(' '),
  examples: [
    'forgectl runners create --project acme/api --description api-builds --tag-list docker,linux --output-file runner.token',
    'forgectl runners create --group acme --description acme-arm --tag-list arm64 --no-run-untagged --output-file arm.token',
    'forgectl runners create --instance --description shared-linux --tag-list linux -o json',
  ],
  options: [
    { flags: '--instance', description: 'an instance runner, every project may use it (administrators)' },
    groupOption,
    projectOption,
    ...fieldOptions(SETTINGS, { negatable: true }),
    { flags: '--output-file <path>', description: 'write the authentication token to this file (mode 0600, atomically) instead of printing it', localFile: true },
    printTokenOption,
  ],
  recordFields: ['id', 'token', 'token_expires_at'],
  async run(opts, ctx) {
    const given = [opts.instance, opts.group !== undefined, opts.project !== undefined].filter(Boolean).length;
    if (given !== 1) throw new UsageError(given ? 'give only one of --instance, --group and --project' : 'whose runner? give --instance, --group or --project');
    assertPrintTarget(ctx, opts.printToken, opts.outputFile !== undefined, 'write it to a file with --output-file FILE');
    const owner = opts.instance
      ? { runner_type: 'instance_type', where: 'the instance' }
      : opts.group !== undefined
        ? { runner_type: 'group_type', group_id: (await ctx.api.call<{ id: number }>(groups.routes.get, { group: ctx.group(opts.group) })).id, where: `group ${opts.group}` }
        : { runner_type: 'project_type', project_id: (await ctx.api.call<{ id: number }>(projects.routes.get, { project: ctx.project(opts.project) })).id, where: `project ${opts.project}` };
    const file = await secretFileFor(ctx, opts.outputFile, 'runner token');
    const { where, ...body } = owner;
    const runner = await ctx.api.call<Created>(routeOf(byId, 'create'), { ...body, ...fieldValues(SETTINGS, opts) });
    if (ctx.globals.dryRun || !runner) return undefined;
    const what = `the authentication token of ${describeRunner({ id: runner.id, description: opts.description as string | undefined })} of ${where}`;
    return handOverSecret(ctx, runner, file, { what, undone: `runner ${runner.id} was deleted again` }, () => ctx.api.call(routeOf(byId, 'delete'), { runner_id: runner.id }));
  },
});
