import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { projectOption } from '../../cli/options.js';
import { draftNotes } from './resource.js';
import { mrOption, parseFullSha, readTextOption } from '../merge-requests/review-options.js';
import { noteTextOptions, positionOf, positionOptions, type PositionOptions } from './shared.js';

interface Options extends PositionOptions {
  project?: string;
  mr: number;
  note?: string;
  noteFile?: string;
  commitId?: string;
  replyTo?: string;
  resolveDiscussion?: boolean;
}

export default defineCommand<Options>({
  effect: 'write',
  description: 'A draft either starts a thread (optionally on a line of the diff: the position flags) or replies to one (--reply-to). It stays private until published.',
  examples: [
    "forgectl draft-notes create --project acme/api --mr 1 --note 'looks good'",
    "forgectl draft-notes create --project acme/api --mr 1 --note 'Done.' --reply-to 6a9c1f… --resolve-discussion",
    "forgectl draft-notes create --project acme/api --mr 1 --note 'Off by one?' --new-path src/health.rb --new-line 1 --base-sha $BASE --start-sha $START --head-sha $HEAD",
  ],
  options: [
    projectOption,
    mrOption,
    ...noteTextOptions,
    { flags: '--commit-id <sha>', description: 'comment on this commit of the merge request', parse: parseFullSha('--commit-id') },
    { flags: '--reply-to <discussion>', description: 'reply to this discussion (thread) ID instead of starting a thread' },
    { flags: '--resolve-discussion', description: 'resolve the thread of --reply-to when the draft is published' },
    ...positionOptions,
  ],
  async run(opts, ctx) {
    const position = positionOf(opts);
    if (opts.resolveDiscussion && !opts.replyTo) throw new UsageError('--resolve-discussion needs --reply-to DISCUSSION');
    const note = await readTextOption(ctx, 'note', opts.note, opts.noteFile);
    if (note === undefined) throw new UsageError('the draft needs a text', 'pass --note TEXT or --note-file FILE (- for stdin)');
    return ctx.api.call(draftNotes.routes.create, {
      project: ctx.project(opts.project),
      merge_request_iid: opts.mr,
      note,
      commit_id: opts.commitId,
      in_reply_to_discussion_id: opts.replyTo,
      resolve_discussion: opts.resolveDiscussion,
      position,
    });
  },
});
