import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { notes } from './resource.js';
import { routeOf } from '../../api/resource.js';
import { parseId, placementFor, placementOptions } from '../../cli/resource-commands.js';
import { readTextOption } from '../merge-requests/review-options.js';
import { bodyOptions, type NoteableOptions } from './shared.js';

export default defineCommand<NoteableOptions & { id: string; body?: string; bodyFile?: string; confidential?: boolean }>({
  effect: 'write',
  description: 'Only the author, or a Maintainer, may change a note.',
  examples: ["forgectl notes update 2 --project acme/api --issue 1 --body 'Deployed to production.'"],
  args: [{ spec: '<id>', description: 'the note\'s ID' }],
  options: [
    ...placementOptions(notes),
    ...bodyOptions,
    { flags: '--confidential', description: 'make the note internal (deprecated flag of the service)' },
    { flags: '--no-confidential', description: 'make the note visible to everyone who sees the issue' },
  ],
  async run(opts, ctx) {
    const { resource, params } = placementFor(notes, opts, ctx);
    const id = parseId(resource, opts.id);
    const body = await readTextOption(ctx, 'body', opts.body, opts.bodyFile);
    if (body === undefined && opts.confidential === undefined) throw new UsageError('nothing to change', 'give --body, --body-file or --confidential');
    return ctx.api.call(routeOf(resource, 'update'), { ...params, note_id: id, body, confidential: opts.confidential });
  },
});
