import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { defineCommand } from '../../cli/command.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { projectOption } from '../../cli/options.js';
import { multipartBody } from '../../api/multipart.js';
import { fileProblem } from '../../files.js';
import { SECURE_FILE_LIMITS, secureFiles, type SecureFile } from './resource.js';

const { maxBytes, perProject } = SECURE_FILE_LIMITS;

interface Options {
  project?: string;
  file: string;
  name?: string;
}

function readUpload(path: string): Buffer {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new UsageError(`--file ${path} is not a regular file`);
    size = stat.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read --file ${path}: ${fileProblem(error)}`);
  }
  if (size > maxBytes) {
    throw new UsageError(`${path} is ${size.toLocaleString('en-US')} bytes; secure files may be at most 5 MB (${maxBytes.toLocaleString('en-US')} bytes)`);
  }
  return readFileSync(path);
}

export default defineCommand<Options>({
  effect: 'write',
  description: 'Sent as multipart/form-data. The 5 MB size limit, the limit of 100 files per project and the unique name are checked before the upload. Needs the Maintainer role.',
  examples: ['forgectl secure-files upload --project acme/api --file ./release.keystore --name release.keystore'],
  options: [
    projectOption,
    { flags: '--file <path>', description: 'the file to upload (at most 5 MB)', required: true, localFile: true },
    { flags: '--name <name>', description: 'its name in the project, unique (default: the file name)' },
  ],
  async run(opts, ctx) {
    const name = opts.name ?? basename(opts.file);
    if (!name.trim() || name.split(/[\\/]/).includes('..')) throw new UsageError(`invalid --name "${name}"`);
    const data = readUpload(opts.file);
    const project = ctx.project(opts.project);

    // One page of 100 covers the whole project while it is within the limit.
    const existing = await ctx.api.call<SecureFile[]>(secureFiles.routes.list, { project, per_page: perProject });
    if (existing.some((file) => file.name === name)) {
      throw new CliError(`project ${project} already has a secure file named "${name}"`, ExitCode.rejected, 'choose another --name, or delete the old file first');
    }
    if (existing.length >= perProject) {
      throw new CliError(`project ${project} already has ${perProject} secure files, the most allowed`, ExitCode.rejected, 'delete one first');
    }
    const rawBody = multipartBody([
      { name: 'name', value: name },
      { name: 'file', value: data, filename: basename(opts.file), contentType: 'application/octet-stream' },
    ]);
    return ctx.api.call(secureFiles.routes.create, { project }, { rawBody });
  },
});
