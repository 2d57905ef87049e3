import { readFileSync } from 'node:fs';
import { licenses } from './resource.js';
import { defineCommand, instanceName } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { describeLicense, presentLicense, type License } from './shared.js';

export default defineCommand<{ file: string }>({
  effect: 'write',
  description: 'The key is read from a file, or from stdin with --file -; never from the command line. The added license becomes the current one. A key the instance refuses exits 6.',
  examples: ['forgectl license add --file ./company.gitlab-license', 'vault read -field=key secret/license | forgectl license add --file -'],
  options: [{ flags: '--file <path>', description: 'file holding the license key, or - for stdin', required: true, localFile: true }],
  async run(opts, ctx) {
    let key: string;
    try {
      key = (opts.file === '-' ? await ctx.io.readStdin() : readFileSync(opts.file, 'utf8')).trim();
    } catch (error) {
      throw new UsageError(`cannot read the license key from ${opts.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    if (!key) throw new UsageError(`no license key in ${opts.file === '-' ? 'stdin' : opts.file}`);
    const license = await ctx.api.call<License>(licenses.routes.create, { license: key });
    ctx.io.note(`Added ${describeLicense(license)} to ${instanceName(ctx)}: ${license.user_limit ?? 'unlimited'} users, ${license.starts_at} to ${license.expires_at ?? 'no end'}`);
    return presentLicense(license);
  },
});
