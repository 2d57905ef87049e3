import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { projectOption } from '../../cli/options.js';
import { parseInteger } from '../../cli/parse.js';
import { freezeBody, freezeOptions, periodPath, type FreezeOptions } from './shared.js';

export default defineCommand<FreezeOptions & { id: string }>({
  examples: ["forgectl freeze-periods update 1 --project acme/api --freeze-end '0 9 * * 1'"],
  args: ['<id>'],
  options: [projectOption, ...freezeOptions(false)],
  async run(opts, ctx) {
    const id = parseInteger('freeze period id', 1)(opts.id);
    const body = freezeBody(opts);
    if (Object.values(body).every((v) => v === undefined)) throw new UsageError('nothing to change', 'give --freeze-start, --freeze-end or --cron-timezone');
    return ctx.api.put(periodPath(ctx.project(opts.project), id), body);
  },
});
