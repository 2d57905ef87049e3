import { COMMIT_STATUS_STATES as STATES, commitStatuses } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { commitArg, projectOption } from '../../cli/options.js';
import { f } from '../../api/fields.js';
import { parseChoice } from '../../parse.js';

const targetUrl = f.url();

export default defineCommand<{ project?: string; sha: string; state: string; name?: string; ref?: string; targetUrl?: string; description?: string }>({
  effect: 'write',
  description:
    'Reports the state of an external check on a commit (what CI systems outside the instance do). A status of the same name that has not finished moves to the new state. Needs the Developer role.',
  examples: [
    'forgectl commits set-status main --state running --name ci/build --project acme/api',
    'forgectl commits set-status main --state success --name ci/build --target-url https://ci.example.com/builds/7 --project acme/api',
  ],
  args: [commitArg],
  options: [
    projectOption,
    { flags: '--state <state>', description: STATES.join(', '), required: true, parse: parseChoice('--state', STATES) },
    { flags: '--name <name>', description: 'name of the check (default "default")' },
    { flags: '--ref <ref>', description: 'branch or tag the status is for (default: the default branch)' },
    { flags: '--target-url <url>', description: 'where the check\'s details are', parse: (text: string) => targetUrl.kind.parse(text, '--target-url') },
    { flags: '--description <text>', description: 'a short description of the status' },
  ],
  async run(opts, ctx) {
    const { project, sha, state, name, ref, targetUrl, description } = opts;
    return ctx.api.call(commitStatuses.routes.create, { project: ctx.project(project), sha, state, name, ref, target_url: targetUrl, description });
  },
});
