import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { mergeTrains } from './resource.js';
import { mrOption, parseFullSha } from '../merge-requests/review-options.js';

interface Options {
  project?: string;
  mr: number;
  autoMerge?: boolean;
  whenPipelineSucceeds?: boolean;
  sha?: string;
  squash?: boolean;
}

export default defineCommand<Options>({
  effect: 'write',
  description: [
    'Prints the whole train of the target branch. Without --auto-merge the merge request joins the train now, or the',
    'service refuses (exit 6) when it cannot be merged yet; with --auto-merge it joins when its checks pass (the',
    'service answers 202 and the command says so). --sha guards against merging commits you have not seen: a SHA',
    'that is not the HEAD of the source branch exits 6.',
  ].join(' '),
  examples: [
    'forgectl merge-trains add --project acme/api --mr 1',
    'forgectl merge-trains add --project acme/api --mr 1 --auto-merge --squash --sha "$(git rev-parse HEAD)"',
  ],
  options: [
    projectOption,
    mrOption,
    { flags: '--auto-merge', description: 'join the train when the checks pass instead of now' },
    { flags: '--when-pipeline-succeeds', description: 'deprecated name of --auto-merge, for older instances' },
    { flags: '--sha <sha>', description: 'the HEAD commit you expect; the merge fails when the branch moved', parse: parseFullSha('--sha') },
    { flags: '--squash', description: 'squash the commits into one on merge' },
  ],
  columns: mergeTrains.columns,
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    // The status tells joined now (201) from joining when the checks pass (202): the response, not only its body.
    const response = await ctx.api.callResponse<unknown[]>(mergeTrains.routes.add, {
      project,
      merge_request_iid: opts.mr,
      sha: opts.sha,
      squash: opts.squash,
      auto_merge: opts.autoMerge,
      when_pipeline_succeeds: opts.whenPipelineSucceeds,
    });
    ctx.io.note(response.status === 202
      ? `merge request !${opts.mr} will join the merge train when its checks pass`
      : `merge request !${opts.mr} added to the merge train`);
    return response.data;
  },
});
