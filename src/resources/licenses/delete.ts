import { defineCommand, instanceName } from '../../cli/command.js';
import { parseInteger } from '../../parse.js';
import { licenses } from './resource.js';
import { describeLicense, type License } from './shared.js';

export default defineCommand<{ id: string }>({
  effect: 'destructive',
  examples: ['forgectl license delete 1', 'forgectl license delete 1 --yes'],
  args: [{ spec: '<id>', description: 'the license\'s ID' }],
  async run(opts, ctx) {
    const id = parseInteger('license id', 1)(opts.id);
    const [license, current] = await Promise.all([ctx.api.call<License>(licenses.routes.get, { license_id: id }), ctx.api.call<License | null>(licenses.routes.current)]);
    const isCurrent = current?.id === id;
    if (isCurrent) ctx.io.warn(`license ${id} is the current license of ${instanceName(ctx)}`);
    await ctx.confirm(`Delete ${isCurrent ? 'the current ' : ''}${describeLicense(license)}, valid ${license.starts_at} to ${license.expires_at ?? 'no end'}, from ${instanceName(ctx)}?`);
    await ctx.api.call(licenses.routes.delete, { license_id: id });
    ctx.io.note(`Deleted ${describeLicense(license)}`);
    return undefined;
  },
});
