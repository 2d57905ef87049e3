import { defineCommand } from '../../cli/command.js';
import { licenses as declared } from './resource.js';
import { licenseColumns, presentLicense, warnAboutCurrent, type License } from './shared.js';

export default defineCommand({
  effect: 'read',
  description: 'Every license ever added, current or not; warns when the current one expires within 30 days.',
  examples: ['forgectl license list', 'forgectl license list -o json'],
  columns: licenseColumns,
  async run(_opts, ctx) {
    const [licenses, current] = await Promise.all([ctx.api.call<License[]>(declared.routes.list), ctx.api.call<License | null>(declared.routes.current)]);
    if (current) warnAboutCurrent(ctx, current);
    return licenses.map(presentLicense);
  },
});
