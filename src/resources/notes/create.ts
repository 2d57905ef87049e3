import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { parseDateTime } from '../../parse.js';
import { notes } from './resource.js';
import { routeOf } from '../../api/resource.js';
import { placementFor, placementOptions } from '../../cli/resource-commands.js';
import { readTextOption } from '../merge-requests/review-options.js';
import { bodyOptions, type NoteableOptions } from './shared.js';

interface Options extends NoteableOptions {
  body?: string;
  bodyFile?: string;
  internal?: boolean;
  confidential?: boolean;
  createdAt?: string;
}

function parseCreatedAt(value: string): string {
  const parsed = parseDateTime('--created-at')(value);
  if (Date.parse(parsed) <= Date.UTC(1970, 0, 1)) throw new UsageError('--created-at must be after 1970-01-01');
  return parsed;
}

export default defineCommand<Options>({
  effect: 'write',
  description: 'Internal notes are visible only to members with the Reporter role or more. --created-at backdates the note (imports); the service honours it only for administrators and project or group owners.',
  examples: [
    "forgectl notes create --project acme/api --issue 1 --body 'Deployed to staging.'",
    'forgectl notes create --project acme/api --snippet 1 --body-file review.md --internal',
    './report.sh | forgectl notes create --project acme/api --issue 1 --body-file -',
  ],
  options: [
    ...placementOptions(notes),
    ...bodyOptions,
    { flags: '--internal', description: 'visible only to project members with Reporter or more' },
    { flags: '--confidential', description: 'deprecated name of --internal, for older instances' },
    { flags: '--created-at <datetime>', description: 'ISO 8601 creation time, after 1970-01-01 (administrators and owners)', parse: parseCreatedAt },
  ],
  async run(opts, ctx) {
    const { resource, params } = placementFor(notes, opts, ctx);
    const body = await readTextOption(ctx, 'body', opts.body, opts.bodyFile);
    if (body === undefined) throw new UsageError('the note needs a text', 'pass --body TEXT or --body-file FILE (- for stdin)');
    return ctx.api.call(routeOf(resource, 'create'), {
      ...params,
      body,
      internal: opts.internal,
      confidential: opts.confidential,
      created_at: opts.createdAt,
    });
  },
});
