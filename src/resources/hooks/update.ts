import { redactRecord } from '../../http/redact.js';
import { hooks, type Hook } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { recordOf } from '../../cli/resource-commands.js';
import { projectOption } from '../../cli/options.js';
import { UsageError } from '../../errors.js';
import { givesToken, hookBody, hookIdArg, hookIdOf, type HookOptions, hookOptions } from './shared.js';

interface Options extends HookOptions {
  id: string;
  allowTokenReset?: boolean;
}

export default defineCommand<Options>({
  effect: 'write',
  description:
    'Changes a webhook; --events replaces the set of events. Changing --url makes the service drop the secret token, so it is refused ' +
    'unless a new token comes with it (--token-stdin, --token-file, --token-env, --generate-token) or --allow-token-reset says that is intended. ' +
    'Needs the Maintainer role.',
  exits: { 10: 'the webhook has its generated secret token, but the file --generate-token names could not be written: the token is shown on stderr, once' },
  examples: [
    'forgectl hooks update 1 --project acme/api --events push,tag_push,pipeline',
    "forgectl hooks update 1 --project acme/api --url https://ci2.example.com/hook --token-file ./hook.secret",
    'forgectl hooks update 1 --project acme/api --generate-token ./hook.secret    # rotate the secret',
  ],
  record: recordOf(hooks),
  args: [hookIdArg],
  options: [projectOption, ...hookOptions('update'), { flags: '--allow-token-reset', description: 'with --url and no new token: accept that the secret token is removed' }],
  async run(opts, ctx) {
    const id = hookIdOf(opts.id);
    const project = ctx.project(opts.project);
    const { body, afterSuccess } = await hookBody(opts, ctx, 'update');
    if (Object.values(body).every((value) => value === undefined)) throw new UsageError('nothing to change', 'give --url, --events, --token-stdin, --header … (see --help)');
    const route = { project, hook_id: id };
    const current = await ctx.api.call<Hook>(hooks.routes.get, route);
    if (opts.url !== undefined && opts.url !== current.url && !givesToken(opts) && !opts.allowTokenReset) {
      throw new UsageError(
        `changing the URL of webhook ${id} makes the service remove its secret token`,
        'give the token again (--token-stdin, --token-file, --token-env or --generate-token), or add --allow-token-reset',
      );
    }
    // The service still documents url as required on update: send the current one when it does not change.
    const hook = await ctx.api.call<Hook>(hooks.routes.update, { ...route, ...body, url: opts.url ?? current.url });
    afterSuccess();
    return redactRecord(hook);
  },
});
