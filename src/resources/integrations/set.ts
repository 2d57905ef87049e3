import { redactRecord } from '../../http/redact.js';
import { readFileSync } from 'node:fs';
import { defineCommand } from '../../cli/command.js';
import { readSecret } from '../../cli/secrets.js';
import { UsageError } from '../../errors.js';
import { groupOption } from '../../cli/options.js';
import { parseKeyValue } from '../../parse.js';
import { checkIntegrationParam, isSecretSetting } from './values.js';
import { groupIntegrations, integrationArg, parseSlug } from './shared.js';

interface Options {
  group?: string;
  slug: string;
  param?: Array<[string, string]>;
  secretFile?: Array<[string, string]>;
  secretStdin?: string;
  useInheritedSettings?: boolean;
}


function parseParamName(name: string): string {
  if (!/^[a-z][a-z0-9_]*$/i.test(name)) throw new UsageError(`invalid parameter name "${name}"`);
  return name;
}

/** true/false become booleans (event flags, enable_ssl_verification); everything else is sent as text. */
function typed(value: string): string | boolean {
  return value === 'true' ? true : value === 'false' ? false : value;
}

function readSecretFile(key: string, path: string): string {
  try {
    return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new UsageError(`cannot read the ${key} file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

export default defineCommand<Options>({
  effect: 'write',
  description:
    'Sets up or updates a group integration (PUT). Plain settings and event flags go in --param key=value; secrets such as token, api_key and ' +
    'password only from a file (--secret-file key=PATH) or stdin (--secret-stdin key). A setting the kind does not take is refused before anything is sent, naming the closest one.',
  examples: [
    'forgectl integrations set bugzilla --group acme --param new_issue_url=https://bugs.example.com/new --param issues_url=https://bugs.example.com/:id --param project_url=https://bugs.example.com',
    "printf '%s\\n' \"$ASANA_KEY\" | forgectl integrations set asana --group acme --secret-stdin api_key --param restrict_to_branch=main",
    'forgectl integrations set bamboo --group acme --param bamboo_url=https://ci.example.com --param build_key=KEY --param username=ci --secret-file password=./bamboo.pw',
  ],
  args: [integrationArg],
  options: [
    groupOption,
    { flags: '--param <key=value>', description: 'a setting or event flag, e.g. push_events=false (repeatable)', parse: parseKeyValue('--param') },
    { flags: '--secret-file <key=path>', description: 'a secret setting read from a file (repeatable)', parse: parseKeyValue('--secret-file'), localFile: true },
    { flags: '--secret-stdin <key>', description: 'a secret setting read from stdin', localFile: true },
    { flags: '--use-inherited-settings', description: 'use the settings inherited from the instance' },
  ],
  async run(opts, ctx) {
    const slug = parseSlug(opts.slug);
    const params = opts.param ?? [];
    // A secret on the command line is refused first, whatever its name: it must not stay in the shell's history.
    const secret = params.find(([key]) => isSecretSetting(slug, key));
    if (secret) throw new UsageError(`${secret[0]} is a secret and is not accepted on the command line`, `use --secret-file ${secret[0]}=PATH or --secret-stdin ${secret[0]}`);
    const names = [...params, ...(opts.secretFile ?? [])].map(([key]) => key).concat(opts.secretStdin ?? []);
    for (const name of names) checkIntegrationParam(slug, parseParamName(name));
    const body: Record<string, unknown> = Object.fromEntries(params.map(([key, value]) => [key, typed(value)]));
    for (const [key, path] of opts.secretFile ?? []) body[key] = readSecretFile(key, path);
    if (opts.secretStdin) {
      body[opts.secretStdin] = await readSecret(ctx, `--secret-stdin ${opts.secretStdin}`, { stdin: true });
    }
    if (opts.useInheritedSettings) body.use_inherited_settings = true;
    return redactRecord(await ctx.api.call(groupIntegrations.set, { ...body, group: ctx.group(opts.group), slug }));
  },
});
