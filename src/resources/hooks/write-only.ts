import { hooks } from './resource.js';
import { defineCommand, type CommandDef } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseSecretSource, readSecret } from '../../cli/secrets.js';
import { UsageError } from '../../errors.js';
import { hookIdArg, hookIdOf } from './shared.js';

/**
 * `hooks url-var set|delete` and `hooks header set|delete`: one value of a webhook that the service never returns.
 * The value comes from its source (env:VARIABLE, file:PATH or - for stdin), never from the command line.
 */
const KINDS = {
  'url-var': {
    what: 'URL variable',
    routes: { set: hooks.routes.setUrlVariable, delete: hooks.routes.deleteUrlVariable },
    example: { key: 'room', source: 'env:ROOM_ID' },
  },
  header: {
    what: 'custom header',
    routes: { set: hooks.routes.setCustomHeader, delete: hooks.routes.deleteCustomHeader },
    example: { key: 'X-Api-Key', source: 'file:./api.key' },
  },
} as const;

const KEY = /^[A-Za-z0-9_-]+$/;

function checkKey(what: string, key: string): string {
  if (!KEY.test(key)) throw new UsageError(`${what} name "${key}" may contain only letters, digits, _ and -`);
  return key;
}

export function writeOnlyValueCommands(kind: keyof typeof KINDS): { set: CommandDef; delete: CommandDef } {
  const { what, routes, example } = KINDS[kind];
  return {
    set: defineCommand<{ project?: string; id: string; key: string; source: string }>({
      effect: 'write',
      description: `Sets a ${what} of a webhook (created or replaced). The value comes from env:VARIABLE, file:PATH or - (stdin; prompts on a terminal), never from the command line; the service never returns it. Needs the Maintainer role.`,
      examples: [
        `forgectl hooks ${kind} set 1 ${example.key} ${example.source} --project acme/api`,
        `printf '%s' "$VALUE" | forgectl hooks ${kind} set 1 ${example.key} - --project acme/api`,
      ],
      args: [hookIdArg, { spec: '<key>', description: `the ${what}'s name` }, { spec: '<source>', description: 'where the value comes from: env:VARIABLE, file:PATH or - (stdin)', localFile: true }],
      options: [projectOption],
      async run(opts, ctx) {
        const id = hookIdOf(opts.id);
        const key = checkKey(what, opts.key);
        const source = parseSecretSource(`the value of ${what} ${key}`, opts.source);
        const value = await readSecret(ctx, `${what} ${key}`, source);
        await ctx.api.call(routes.set, { project: ctx.project(opts.project), hook_id: id, key, value }, { redact: ['value'] });
        ctx.io.note(`set ${what} ${key} of webhook ${id}`);
        return undefined;
      },
    }),
    delete: defineCommand<{ project?: string; id: string; key: string }>({
      effect: 'destructive',
      description: `Removes a ${what} of a webhook. Needs the Maintainer role.`,
      examples: [`forgectl hooks ${kind} delete 1 ${example.key} --project acme/api --yes`],
      args: [hookIdArg, { spec: '<key>', description: `the ${what}'s name` }],
      options: [projectOption],
      async run(opts, ctx) {
        const id = hookIdOf(opts.id);
        const key = checkKey(what, opts.key);
        const project = ctx.project(opts.project);
        await ctx.confirm(`Remove ${what} ${key} of webhook ${id} of project ${project}?`);
        await ctx.api.call(routes.delete, { project, hook_id: id, key });
        ctx.io.note(`removed ${what} ${key} of webhook ${id}`);
        return undefined;
      },
    }),
  };
}
