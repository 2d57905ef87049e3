import { defineCommand } from '../../cli/command.js';
import { outputFileOption, projectOption } from '../../cli/options.js';
import { parseInteger } from '../../parse.js';
import { checkDownloadTarget } from '../../download/target.js';
import { DownloadResult } from '../../download/result.js';
import { secureFiles, type SecureFile } from './resource.js';

export default defineCommand<{ project?: string; id: string; outputFile?: string }>({
  effect: 'read',
  description: "The contents are checked against the file's sha256 checksum; on a mismatch nothing is written (exit 8). The file is written with mode 0600: it holds a secret.",
  examples: ['forgectl secure-files download 1 --project acme/api --output-file deploy.env', 'forgectl secure-files download 1 --project acme/api > deploy.env'],
  args: ['<id>'],
  options: [projectOption, outputFileOption],
  async run(opts, ctx) {
    const id = parseInteger('secure file id', 1)(opts.id);
    await checkDownloadTarget(ctx, opts.outputFile);
    const project = ctx.project(opts.project);
    const record = await ctx.api.call<SecureFile>(secureFiles.routes.get, { project, secure_file_id: id });
    const response = await ctx.api.open(secureFiles.routes.download, { project, secure_file_id: id });
    const length = Number(response.header('content-length'));
    return new DownloadResult(response.body, {
      outputFile: opts.outputFile,
      size: Number.isFinite(length) && length > 0 ? length : undefined,
      sha256: record.checksum_algorithm === 'sha256' ? record.checksum : undefined,
      description: record.name,
      secret: true,
    });
  },
});
