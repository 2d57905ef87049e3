import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { projectOption } from '../../cli/options.js';
import { parseInteger } from '../../cli/parse.js';
import { badgePath, imageUrlOption, linkUrlOption, nameOption } from './shared.js';

export default defineCommand<{ project?: string; id: string; linkUrl?: string; imageUrl?: string; name?: string }>({
  examples: ["forgectl badges update 3 --project acme/api --image-url 'https://ci.example.com/%{project_path}/status.svg'"],
  args: ['<id>'],
  options: [projectOption, linkUrlOption(false), imageUrlOption(false), nameOption],
  async run(opts, ctx) {
    const id = parseInteger('badge id', 1)(opts.id);
    const body = { link_url: opts.linkUrl, image_url: opts.imageUrl, name: opts.name };
    if (Object.values(body).every((v) => v === undefined)) throw new UsageError('nothing to change', 'give --link-url, --image-url or --name');
    return ctx.api.put(badgePath(ctx.project(opts.project), id), body);
  },
});
