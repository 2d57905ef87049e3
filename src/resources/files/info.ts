import { isUtf8 } from 'node:buffer';
import { repositoryFiles } from './resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { projectOption, repoPathArg } from '../../cli/options.js';
import { repoPath } from '../../git/content.js';
import { refOption, refOrDefault } from './shared.js';

/** The fields the service sends as X-Gitlab-* (real instances) or X-Service-* (its documentation) headers. */
const FIELDS = ['blob_id', 'commit_id', 'content_sha256', 'encoding', 'file_name', 'file_path', 'last_commit_id', 'ref', 'size', 'execute_filemode'];

export default defineCommand<{ project?: string; path: string; ref?: string }>({
  effect: 'read',
  description: "A HEAD request: the file's metadata without its content, from the response headers.",
  examples: ['forgectl files info README.md --ref main --project acme/api', 'forgectl files info bin/deploy.sh --ref main --project acme/api --fields blob_id,execute_filemode'],
  args: [repoPathArg],
  options: [projectOption, refOption(false)],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    const ref = await refOrDefault(ctx, project, opts.ref);
    return fileInfo(ctx, project, repoPath(opts.path), ref);
  },
});

/** A file's record without its content: a HEAD request, whose answer is only headers (404 when there is none). */
export async function fileInfo(ctx: Context, project: string, filePath: string, ref: string): Promise<Record<string, unknown>> {
  const response = await ctx.api.open(repositoryFiles.routes.info, { project, file_path: filePath, ref });
  await response.body.dump().catch(() => undefined);
  return fileHeaders(response.header);
}

/**
 * A header value as text. The service writes a file name's UTF-8 bytes into the header, which arrive as one character
 * per byte: they are decoded as UTF-8 when they are valid UTF-8.
 */
function headerText(value: string): string {
  if (!/[\x80-\xff]/.test(value) || /[\u0100-\uffff]/.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : value;
}

/** The file record carried by response headers (HEAD, raw), typed as the GET record is. */
export function fileHeaders(header: (name: string) => string | undefined): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const field of FIELDS) {
    const suffix = field.split('_').map((w) => w[0].toUpperCase() + w.slice(1)).join('-');
    const raw = header(`x-gitlab-${suffix}`) ?? header(`x-service-${suffix}`);
    if (raw === undefined) continue;
    const value = headerText(raw);
    record[field] = field === 'size' ? Number(value) : field === 'execute_filemode' ? value === 'true' : value;
  }
  return record;
}
