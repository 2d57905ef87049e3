import { defineCommand } from '../../cli/command.js';
import { parseInteger } from '../../parse.js';
import { licenses } from './resource.js';
import { currentLicense, presentLicense, warnAboutCurrent, type License } from './shared.js';

export default defineCommand<{ id?: string }>({
  effect: 'read',
  description: 'The plan, licensee, user limit, active users, overage and expiry, with a warning when the current license expires within 30 days.',
  examples: ['forgectl license get', 'forgectl license get 1 -o json'],
  args: [{ spec: '[id]', description: 'the license\'s ID (default: the license in use)' }],
  async run(opts, ctx) {
    if (opts.id === undefined) {
      const license = await currentLicense(ctx);
      warnAboutCurrent(ctx, license);
      return presentLicense(license);
    }
    return presentLicense(await ctx.api.call<License>(licenses.routes.get, { license_id: parseInteger('license id', 1)(opts.id) }));
  },
});
