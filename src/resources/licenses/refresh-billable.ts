import { defineCommand } from '../../cli/command.js';
import { CliError, ExitCode } from '../../errors.js';
import { parseInteger } from '../../parse.js';
import { licenses } from './resource.js';

export default defineCommand<{ id: string }>({
  effect: 'write',
  description: 'The instance recalculates in the background (202); read the result later with forgectl license get.',
  examples: ['forgectl license refresh-billable 1'],
  args: [{ spec: '<id>', description: 'the license\'s ID' }],
  async run(opts, ctx) {
    const id = parseInteger('license id', 1)(opts.id);
    const result = await ctx.api.call<{ success?: boolean }>(licenses.routes.refreshBillable, { license_id: id });
    if (result?.success === false) throw new CliError(`the instance did not start the recalculation for license ${id}`, ExitCode.rejected);
    ctx.io.note(`Recalculation of billable users started for license ${id}`);
    return result;
  },
});
