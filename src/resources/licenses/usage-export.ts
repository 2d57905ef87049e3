import { defineCommand } from '../../cli/command.js';
import { licenses } from './resource.js';
import { outputFileOption } from '../../cli/options.js';
import { checkDownloadTarget } from '../../download/target.js';
import { DownloadResult } from '../../download/result.js';

export default defineCommand<{ outputFile?: string }>({
  effect: 'read',
  description: 'CSV of the current license: key, licensee, term, then billable users per day. It contains the license key.',
  examples: ['forgectl license usage-export --output-file usage.csv', 'forgectl license usage-export > usage.csv'],
  options: [outputFileOption],
  async run(opts, ctx) {
    await checkDownloadTarget(ctx, opts.outputFile);
    const response = await ctx.api.open(licenses.routes.usageExport);
    return new DownloadResult(response.body, { outputFile: opts.outputFile, description: 'license usage CSV' });
  },
});
