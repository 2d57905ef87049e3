import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { badgesPath, imageUrlOption, linkUrlOption, nameOption } from './shared.js';

export default defineCommand<{ project?: string; linkUrl: string; imageUrl: string; name?: string }>({
  examples: [
    "forgectl badges create --project acme/api --name ci --link-url 'https://ci.example.com/%{project_path}' --image-url 'https://ci.example.com/%{project_path}/%{default_branch}.svg'",
  ],
  options: [projectOption, linkUrlOption(true), imageUrlOption(true), nameOption],
  async run(opts, ctx) {
    return ctx.api.post(badgesPath(ctx.project(opts.project)), { link_url: opts.linkUrl, image_url: opts.imageUrl, name: opts.name });
  },
});
