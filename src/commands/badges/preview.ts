import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { badgesPath, imageUrlOption, linkUrlOption } from './shared.js';

export default defineCommand<{ project?: string; linkUrl: string; imageUrl: string }>({
  description: 'Shows how the URLs render for the project, placeholders resolved, without creating a badge.',
  examples: ["forgectl badges preview --project acme/api --link-url 'https://ci.example.com/%{project_path}' --image-url 'https://ci.example.com/%{commit_sha}.svg'"],
  options: [projectOption, linkUrlOption(true), imageUrlOption(true)],
  async run(opts, ctx) {
    return ctx.api.get(`${badgesPath(ctx.project(opts.project))}/render`, { link_url: opts.linkUrl, image_url: opts.imageUrl });
  },
});
