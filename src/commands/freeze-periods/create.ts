import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { freezeBody, freezeOptions, periodsPath, type FreezeOptions } from './shared.js';

export default defineCommand<FreezeOptions>({
  description: 'Both cron expressions and the time zone are checked locally before anything is sent. Needs the Maintainer role.',
  examples: ["forgectl freeze-periods create --project acme/api --freeze-start '0 23 * * 5' --freeze-end '0 7 * * 1' --cron-timezone Europe/Berlin"],
  options: [projectOption, ...freezeOptions(true)],
  async run(opts, ctx) {
    return ctx.api.post(periodsPath(ctx.project(opts.project)), freezeBody(opts));
  },
});
