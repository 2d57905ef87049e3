import { defineCommand } from '../../../cli/command.js';
import { readSecret } from '../../../cli/secrets.js';
import { UsageError } from '../../../errors.js';
import { projectOption } from '../../../cli/options.js';
import { maskUrlCredentials, mirrorUrlProblem } from '../../../api/mirrors.js';
import { re2Problem } from '../../../api/push-rules.js';
import { pullMirror } from '../../../api/resources/pull-mirror.js';

interface Options {
  project?: string;
  url?: string;
  authUser?: string;
  authPasswordStdin?: boolean;
  enabled?: boolean;
  triggerBuilds?: boolean;
  onlyProtectedBranches?: boolean;
  overwriteDiverged?: boolean;
  branchRegex?: string;
}

function parseMirrorUrl(value: string): string {
  const problem = mirrorUrlProblem(value);
  if (problem) throw new UsageError(`--url ${maskUrlCredentials(value)} cannot be mirrored: ${problem}`);
  return value;
}

function parseBranchRegex(value: string): string {
  const problem = value ? re2Problem(value) : undefined;
  if (problem) throw new UsageError(`--branch-regex "${value}" is not a valid regular expression: ${problem}`);
  return value;
}

export default defineCommand<Options>({
  description:
    'Configures where the project pulls from. Prefer --auth-user with --auth-password-stdin to credentials inside --url (argv is visible to other users); ' +
    'either way they are never printed: the service masks them and --verbose/--dry-run redact them. --branch-regex turns --only-protected-branches off. Premium and Ultimate.',
  examples: [
    "printf '%s\\n' \"$MIRROR_TOKEN\" | forgectl mirror pull set --project acme/api --url https://src.example.com/x.git --auth-user mirror-bot --auth-password-stdin --enabled",
    "forgectl mirror pull set --project acme/api --branch-regex '^release/' --overwrite-diverged --yes",
  ],
  options: [
    projectOption,
    { flags: '--url <url>', description: 'repository to pull from (http, https, ssh or git)', parse: parseMirrorUrl },
    { flags: '--auth-user <user>', description: 'user name for the source repository' },
    { flags: '--auth-password-stdin', description: 'read the password or token for the source repository from stdin' },
    { flags: '--enabled', description: 'turn mirroring on' },
    { flags: '--trigger-builds', description: 'mirror updates trigger pipelines' },
    { flags: '--no-trigger-builds', description: 'mirror updates do not trigger pipelines' },
    { flags: '--only-protected-branches', description: 'mirror protected branches only' },
    { flags: '--no-only-protected-branches', description: 'mirror all branches' },
    { flags: '--overwrite-diverged', description: 'overwrite branches that diverged from the source' },
    { flags: '--no-overwrite-diverged', description: 'keep diverged branches' },
    { flags: '--branch-regex <regex>', description: 'mirror only branches matching this (RE2) regex; needs only-protected-branches off', parse: parseBranchRegex },
  ],
  async run(opts, ctx) {
    if (opts.branchRegex && opts.onlyProtectedBranches) throw new UsageError('--branch-regex cannot be combined with --only-protected-branches');
    const body: Record<string, unknown> = {
      url: opts.url,
      auth_user: opts.authUser,
      enabled: opts.enabled,
      mirror_trigger_builds: opts.triggerBuilds,
      only_mirror_protected_branches: opts.branchRegex ? false : opts.onlyProtectedBranches,
      mirror_overwrites_diverged_branches: opts.overwriteDiverged,
      mirror_branch_regex: opts.branchRegex,
    };
    if (opts.authPasswordStdin) {
      body.auth_password = await readSecret(ctx, '--auth-password-stdin', { stdin: true });
    }
    if (Object.values(body).every((v) => v === undefined)) throw new UsageError('nothing to set', 'give --url, --enabled or another setting');
    if (opts.url && /^[^:]+:\/\/[^/@]*:[^/@]*@/.test(opts.url)) {
      ctx.io.warn('the password in --url is visible to other users of this machine (ps, shell history); prefer --auth-user with --auth-password-stdin');
    }
    const project = ctx.project(opts.project);
    await ctx.confirm(`Configure pull mirroring of project ${project}${opts.url ? ` from ${maskUrlCredentials(opts.url)}` : ''}? Mirror updates can change its branches.`);
    return ctx.api.call(pullMirror.routes.update, { project, ...body });
  },
});
