import { redactRecord } from '../../http/redact.js';
import { hooks, type Hook } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { hookBody, hookOptions, type HookOptions } from './shared.js';

export default defineCommand<HookOptions>({
  effect: 'write',
  description:
    'Adds a webhook. Secrets are never taken from the command line: the token from --token-stdin, --token-file, --token-env or ' +
    '--generate-token; custom header and URL variable values as NAME=env:VARIABLE, NAME=file:PATH or NAME=- (stdin). Needs the Maintainer role.',
  exits: { 10: 'the webhook has its generated secret token, but the file --generate-token names could not be written: the token is shown on stderr, once' },
  examples: [
    "printf '%s\\n' \"$HOOK_SECRET\" | forgectl hooks create --project acme/api --url https://ci.example.com/hook --events push,merge_requests --token-stdin",
    'forgectl hooks create --project acme/api --url https://chat.example.com/{room} --url-var room=env:ROOM_ID --events note --generate-token ./hook.secret',
    'forgectl hooks create --project acme/api --url https://deploy.example.com/hook --events push --branch-filter release/* --header X-Api-Key=file:./api.key',
  ],
  options: [projectOption, ...hookOptions('create')],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    const { body, afterSuccess } = await hookBody(opts, ctx, 'create');
    const hook = await ctx.api.call<Hook>(hooks.routes.create, { project, ...body });
    afterSuccess();
    return redactRecord(hook);
  },
});
